/**
 * The floors of `lib/` run one way. The order is written once, in `tests/support/layers.ts`:
 *
 * | layer | folders                          | what lives there                                          |
 * |-------|----------------------------------|-----------------------------------------------------------|
 * | 1     | `commands`                       | one entry per subcommand: its option table and settings   |
 * | 2     | `controller`, `dns`, `doctor`,   | the subcommands' rooms, each holding everything it knows  |
 * |       | `kuberture`, `proxy`             |                                                           |
 * | 3     | `sinks`                          | the controller's modes, one room per mode                 |
 * | 4     | `election`, `hostnames`,         | the Lease elector; hostnames from objects; the list-watch |
 * |       | `reflector`                      | cache                                                     |
 * | 5     | `kube`                           | the API client, credentials, Events                       |
 * | 6     | `resources`                      | object shapes and their decoders                          |
 * | 7     | `daemon`                         | what every long-running subcommand shares                 |
 * | 8     | `cli`                            | option tables, parsing, help                              |
 * | 9     | `util`                           | clocks, addresses, logging, metrics                       |
 *
 * `main.ts` sits above them all. A module may import from its own folder and from any lower
 * layer; never from a higher one, and never from another folder of its own layer (two rooms of
 * one floor do not lean on each other). Inside a folder the same holds for rooms: a file of
 * `commands/` belongs to the subcommand its name starts with and may not import another
 * subcommand's files; a mode folder under `sinks/` may not import another mode's folder, and the
 * files directly in `sinks/` (the contract and what modes share) may not import any mode.
 * One exception, on purpose: the doctor judges the controller's set-up, so it takes the
 * controller's own option table and settings (one truth for what the flags mean); see
 * {@linkcode READS_SUBCOMMAND}.
 *
 * @module
 */

import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { LAYERS } from "./support/layers.ts";

/** Folders whose sub-folders are rooms that may not import each other. */
const ROOMED_FOLDERS = new Set(["sinks"]);

/** Folders whose files belong to the subcommand their name starts with. */
const SUBCOMMAND_FOLDERS = new Set(["commands"]);

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const LIB = join(ROOT, "lib");

function layerOf(folder: string): number | undefined {
  const index = LAYERS.findIndex((group) => group.includes(folder));
  return index < 0 ? undefined : index;
}

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* walk(path);
    else if (entry.isFile && entry.name.endsWith(".ts")) yield path;
  }
}

/** Every module specifier in `source`: static imports and re-exports, and `import("…")` calls. */
export function importSpecifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']/gms,
    /^\s*import\s*["']([^"']+)["']/gm,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const match of source.matchAll(pattern)) found.push(match[1]!);
  }
  return found;
}

/** Subcommands allowed to read another's `commands/` files: the doctor reads the controller's. */
const READS_SUBCOMMAND: Readonly<Record<string, readonly string[]>> = { doctor: ["controller"] };

/** The subcommand a `commands/` file belongs to: `controller_options.ts` → `controller`. */
function subcommandOf(file: string): string {
  return file.replace(/\.ts$/, "").split("_")[0]!;
}

/** Why importing `to` from `from` (both relative to `lib/`) breaks the floors, or `undefined`. */
export function violation(from: string, to: string): string | undefined {
  if (to.startsWith("..")) {
    return to === "../deno.json" ? undefined : `imports ${to}, outside lib/`;
  }
  const [fromTop, ...fromRest] = from.split("/");
  const [toTop, ...toRest] = to.split("/");
  if (fromTop === undefined || toTop === undefined) return "cannot place the module";
  if (fromRest.length === 0) return `${from} is not in a folder of lib/`;
  const fromLayer = layerOf(fromTop);
  const toLayer = layerOf(toTop);
  if (fromLayer === undefined) return `lib/${fromTop}/ has no place in the layer order`;
  if (toLayer === undefined) return `lib/${toTop}/ has no place in the layer order`;
  if (fromTop === toTop) {
    if (SUBCOMMAND_FOLDERS.has(fromTop)) {
      const a = subcommandOf(fromRest.join("/"));
      const b = subcommandOf(toRest.join("/"));
      if (a !== b && !(READS_SUBCOMMAND[a] ?? []).includes(b)) {
        return `the ${a} subcommand imports the ${b} subcommand's ${toTop}/${toRest.join("/")}`;
      }
    }
    if (ROOMED_FOLDERS.has(fromTop)) {
      const fromRoom = fromRest.length > 1 ? fromRest[0] : undefined;
      const toRoom = toRest.length > 1 ? toRest[0] : undefined;
      if (toRoom !== undefined && fromRoom !== toRoom) {
        return fromRoom === undefined
          ? `shared ${fromTop}/ code imports the ${toRoom} room`
          : `the ${fromRoom} room imports the ${toRoom} room`;
      }
    }
    return undefined;
  }
  if (toLayer < fromLayer) {
    return `${fromTop} (layer ${fromLayer + 1}) imports the higher ${toTop} (layer ${toLayer + 1})`;
  }
  if (toLayer === fromLayer) return `${fromTop} imports its sibling ${toTop} on the same floor`;
  return undefined;
}

async function libViolations(): Promise<string[]> {
  const problems: string[] = [];
  for await (const path of walk(LIB)) {
    const from = relative(LIB, path);
    const source = await Deno.readTextFile(path);
    for (const specifier of importSpecifiers(source)) {
      if (!specifier.startsWith(".")) continue;
      const to = relative(LIB, resolve(dirname(path), specifier));
      const problem = violation(from, to);
      if (problem !== undefined) problems.push(`lib/${from} → ${specifier}: ${problem}`);
    }
  }
  return problems.sort();
}

Deno.test("layering: every folder of lib/ has a place in the layer order", async () => {
  const unplaced: string[] = [];
  for await (const entry of Deno.readDir(LIB)) {
    if (entry.isDirectory && layerOf(entry.name) === undefined) unplaced.push(entry.name);
    if (entry.isFile) unplaced.push(`${entry.name} (a file directly in lib/)`);
  }
  assert.deepEqual(unplaced, []);
});

Deno.test("layering: no module in lib/ imports a higher layer, a sibling folder or a sibling room", async () => {
  assert.deepEqual(await libViolations(), []);
});

Deno.test("layering: main.ts reaches lib/ only through commands, daemon, cli and util", async () => {
  const source = await Deno.readTextFile(join(ROOT, "main.ts"));
  const reached = importSpecifiers(source)
    .filter((specifier) => specifier.startsWith("./lib/"))
    .map((specifier) => specifier.split("/")[2]!)
    .filter((folder) => !["commands", "daemon", "cli", "util"].includes(folder));
  assert.deepEqual(reached, []);
});

Deno.test("layering: the rule catches what it must (a table of imports)", () => {
  const cases: [string, string, boolean][] = [
    ["controller/runtime.ts", "sinks/sink.ts", true],
    ["sinks/sink.ts", "controller/runtime.ts", false],
    ["kube/client.ts", "resources/ingress.ts", true],
    ["resources/ingress.ts", "kube/client.ts", false],
    ["controller/runtime.ts", "proxy/server.ts", false],
    ["hostnames/hostname.ts", "reflector/store.ts", false],
    ["commands/controller.ts", "commands/controller_options.ts", true],
    ["commands/controller.ts", "commands/proxy.ts", false],
    ["sinks/coredns/coredns_sink.ts", "sinks/markers.ts", true],
    ["sinks/coredns/coredns_sink.ts", "sinks/etc_hosts/edit_hosts_file.ts", false],
    ["sinks/markers.ts", "sinks/coredns/coredns_sink.ts", false],
    ["sinks/coredns/corefile/tokens.ts", "sinks/coredns/coredns_sink.ts", true],
    ["util/version.ts", "../deno.json", true],
    ["util/clock.ts", "../tests/support/fake_clock.ts", false],
  ];
  const wrong = cases.filter(([from, to, allowed]) => (violation(from, to) === undefined) !== allowed);
  assert.deepEqual(wrong, []);
});
