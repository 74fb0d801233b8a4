/**
 * The kubelet's part for a ConfigMap volume, done on loopback: the ConfigMap's data copied into a
 * folder the way the kubelet's atomic writer lays it out, so CoreDNS reads what the controller
 * wrote exactly as in a pod:
 *
 * ```
 * <dir>/..2026_12_05_08_40_00.123456789/Corefile   the payload, in a fresh folder per version
 * <dir>/..data -> ..2026_12_05_…                   swapped with one rename of a new symlink
 * <dir>/Corefile -> ..data/Corefile                each key, a symlink through ..data
 * ```
 *
 * A reader therefore sees the old set of files or the new one, never a mix or a half-written file.
 * The ConfigMap is read as the admin (the kubelet's own reads are not what the suite tests) every
 * `intervalMs` (the kubelet's sync is a period too, of a minute; the suite uses 100 ms), and the
 * files change only when its resourceVersion does. A folder that already holds the layout keeps
 * working while the ConfigMap is missing, as a pod's mount does.
 *
 * Effects: reads the API, writes the folder.
 *
 * @module
 */

/** The folder of versions written so far, for a test to check the layout. */
export interface ConfigMapVolume extends AsyncDisposable {
  readonly dir: string;
  /** How many versions have been written. */
  readonly writes: () => number;
  /** Resolves after the next complete poll: the files then hold what the API held when it began. */
  synced(): Promise<void>;
}

/** Reads the ConfigMap: its data and resourceVersion, or `undefined` when it does not exist. */
export type ConfigMapReader = () => Promise<
  { data: Record<string, string>; resourceVersion: string } | undefined
>;

/** A timestamped folder name like the kubelet's (`..2026_12_05_08_40_00.123456789`). */
export function versionFolderName(now: Date, sequence: number): string {
  const pad = (value: number, width = 2) => String(value).padStart(width, "0");
  return `..${now.getUTCFullYear()}_${pad(now.getUTCMonth() + 1)}_${pad(now.getUTCDate())}_${
    pad(now.getUTCHours())
  }_${pad(now.getUTCMinutes())}_${pad(now.getUTCSeconds())}.${pad(sequence, 9)}`;
}

/**
 * Writes `data` into `dir` with the atomic layout: a new version folder, `..data` swapped to it
 * with one rename, a symlink per key, keys no longer present removed, the previous version
 * folder removed last.
 */
export async function writeAtomically(
  dir: string,
  data: Readonly<Record<string, string>>,
  options: { now: Date; sequence: number },
): Promise<void> {
  const version = versionFolderName(options.now, options.sequence);
  await Deno.mkdir(`${dir}/${version}`, { recursive: true });
  for (const [key, value] of Object.entries(data)) {
    await Deno.writeTextFile(`${dir}/${version}/${key}`, value);
  }
  let previous: string | undefined;
  try {
    previous = await Deno.readLink(`${dir}/..data`);
  } catch {
    previous = undefined;
  }
  await Deno.remove(`${dir}/..data_tmp`).catch(() => {});
  await Deno.symlink(version, `${dir}/..data_tmp`);
  await Deno.rename(`${dir}/..data_tmp`, `${dir}/..data`);
  for (const key of Object.keys(data)) {
    try {
      await Deno.lstat(`${dir}/${key}`);
    } catch {
      await Deno.symlink(`..data/${key}`, `${dir}/${key}`);
    }
  }
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.startsWith("..")) continue;
    if (!(entry.name in data)) await Deno.remove(`${dir}/${entry.name}`);
  }
  if (previous !== undefined && previous !== version) {
    await Deno.remove(`${dir}/${previous}`, { recursive: true }).catch(() => {});
  }
}

/**
 * Mirrors the ConfigMap `read` returns into `dir` until disposed. The first copy is written
 * before this resolves (so a component started next finds its file), when the ConfigMap exists.
 */
export async function mirrorConfigMap(
  dir: string,
  read: ConfigMapReader,
  options: { intervalMs?: number } = {},
): Promise<ConfigMapVolume> {
  await Deno.mkdir(dir, { recursive: true });
  let writes = 0;
  let seen: string | undefined;
  let waiters: (() => void)[] = [];
  const sync = async () => {
    const current = await read();
    if (current !== undefined && current.resourceVersion !== seen) {
      await writeAtomically(dir, current.data, { now: new Date(), sequence: writes });
      seen = current.resourceVersion;
      writes++;
    }
    const done = waiters;
    waiters = [];
    for (const resolve of done) resolve();
  };
  await sync();
  const stop = new AbortController();
  const loop = (async () => {
    while (!stop.signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
      if (stop.signal.aborted) break;
      // A failed read (the apiserver restarting) keeps the files as they are, as the kubelet does.
      await sync().catch(() => {});
    }
  })();
  return {
    dir,
    writes: () => writes,
    synced: () => new Promise<void>((resolve) => waiters.push(resolve)),
    async [Symbol.asyncDispose]() {
      stop.abort();
      await loop;
      for (const resolve of waiters) resolve();
    },
  };
}
