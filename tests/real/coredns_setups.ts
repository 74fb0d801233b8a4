/**
 * CoreDNS set-ups beyond one CoreDNS reading one ConfigMap (`coredns.ts`), for the scenarios of
 * coredns-import mode and node-local-dns:
 * - a second ConfigMap volume next to CoreDNS's own (the import ConfigMap a Deployment mounts at
 *   the folder its `import` glob reads), copied with the same kubelet-style atomic layout;
 * - an `import` line put into a Corefile's root block, as an operator adds it;
 * - a CoreDNS serving a fixed Corefile from a plain file, standing in for the resolvers outside
 *   the cluster (the node's upstream), so a scenario can tell "went upstream" from "went through
 *   the cluster's CoreDNS" by the address that comes back;
 * - the A records a server answers, and how many times a CoreDNS reloaded its Corefile.
 *
 * Effects: processes, files, the API (as the admin, for the ConfigMap copies).
 *
 * @module
 */

import { queryDns } from "../support/dns_tools.ts";
import { ensureBuilt } from "./build.ts";
import { type ComponentProcess, startComponent } from "./component_process.ts";
import { type ConfigMapReader, type ConfigMapVolume, mirrorConfigMap } from "./configmap_volume.ts";
import { corefileErrors } from "./coredns.ts";
import type { Stack } from "./stack.ts";

/** Reads a ConfigMap as the admin: its data and resourceVersion, `undefined` when it is missing. */
export function configMapReader(stack: Stack, namespace: string, name: string): ConfigMapReader {
  return async () => {
    const response = await stack.plane.request(`/api/v1/namespaces/${namespace}/configmaps/${name}`);
    if (response.status === 404) {
      await response.body?.cancel();
      return undefined;
    }
    if (!response.ok) {
      throw new Error(`reading ${namespace}/${name}: ${response.status} ${await response.text()}`);
    }
    const object = await response.json() as {
      data?: Record<string, string>;
      metadata: { resourceVersion: string };
    };
    return { data: object.data ?? {}, resourceVersion: object.metadata.resourceVersion };
  };
}

/**
 * Copies a ConfigMap into `dir` as a second volume of the CoreDNS pod would be (each key a symlink
 * through `..data`); the first copy is written before this resolves.
 */
export function mirrorVolume(
  stack: Stack,
  options: { namespace: string; configmap: string; dir: string },
): Promise<ConfigMapVolume> {
  return mirrorConfigMap(options.dir, configMapReader(stack, options.namespace, options.configmap));
}

/**
 * `corefile` with `line` as the first directive of its root block (`.:53 {`), indented as the
 * line after the opening brace is.
 *
 * @throws {Error} when the Corefile has no `.:53 {` line.
 */
export function withRootDirective(corefile: string, line: string): string {
  const match = /^\.:53 \{\n([ \t]*)/m.exec(corefile);
  if (match === null) throw new Error("the Corefile has no root block `.:53 {`");
  const at = match.index + ".:53 {\n".length;
  return `${corefile.slice(0, at)}${match[1]}${line}\n${corefile.slice(at)}`;
}

/** A CoreDNS serving a Corefile from a plain file. */
export interface StaticCoredns extends AsyncDisposable {
  readonly address: { readonly host: string; readonly port: number };
  readonly process: ComponentProcess;
  configErrors(): string[];
}

/**
 * Starts CoreDNS on `corefile` (written to `<stack dir>/<name>.Corefile`); it is ready once it
 * answers `probe` with any reply on `bind`, port 53.
 */
export async function startStaticCoredns(
  stack: Stack,
  options: { name: string; corefile: string; bind: string; probe: string },
): Promise<StaticCoredns> {
  const path = `${stack.dir}/${options.name}.Corefile`;
  await Deno.writeTextFile(path, options.corefile);
  const address = { host: options.bind, port: 53 };
  const process = await startComponent({
    name: options.name,
    command: await ensureBuilt("coredns"),
    args: ["-conf", path],
    dir: stack.dir,
    ready: async () => (await aRecords(address, options.probe)) !== "no reply",
  });
  return {
    address,
    process,
    configErrors: () => corefileErrors(process.output()),
    [Symbol.asyncDispose]: () => process.stop(),
  };
}

/**
 * The A records `server` answers for `name`, sorted and comma-joined; the status (`NXDOMAIN`,
 * `SERVFAIL`, `NOERROR` for no A record) when there are none; `no reply` when nothing came back
 * (a server that is restarting), so a poll can go on.
 */
export async function aRecords(server: { host: string; port: number }, name: string): Promise<string> {
  let reply;
  try {
    [reply] = await queryDns(server, [{ name }], { timeoutSeconds: 2 });
  } catch {
    return "no reply";
  }
  const addresses = (reply?.answers ?? []).filter((record) => record.type === "A").map((record) =>
    record.data
  );
  return addresses.length > 0 ? addresses.sort().join(",") : reply?.status ?? "no reply";
}

/** How many times a CoreDNS has finished loading a changed Corefile, from its output. */
export function completedReloads(output: string): number {
  return output.split("\n").filter((line) => line.includes("[INFO] Reloading complete")).length;
}
