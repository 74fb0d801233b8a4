/**
 * The floors of `lib/` run one way. The order is written once, in `tests/support/layers.ts`:
 *
 * | layer | folders                          | what lives there                                          |
 * |-------|----------------------------------|-----------------------------------------------------------|
 * | 1     | `controller`, `dns`, `doctor`,   | one room per subcommand: its entry (`<name>_command.ts`), |
 * |       | `kuberture`, `proxy`             | option table, settings and everything it knows            |
 * | 2     | `routes`                         | the route table the controller writes, the proxy reads    |
 * | 3     | `election`, `hostnames`,         | the Lease elector; hostnames from objects; the one writer |
 * |       | `publisher`, `reflector`         | of external-dns objects; the list-watch cache             |
 * | 4     | `kube`                           | the API client, credentials, Events                       |
 * | 5     | `resources`                      | object shapes and their decoders                          |
 * | 6     | `daemon`                         | what every long-running subcommand shares                 |
 * | 7     | `cli`                            | option tables, parsing, help                              |
 * | 8     | `util`                           | clocks, addresses, logging, metrics                       |
 *
 * `main.ts` sits above them all. A module may import from its own folder and from any lower
 * layer; never from a higher one, and never from another folder of its own layer (two rooms of
 * one floor do not lean on each other). Inside the controller, its modes (`controller/modes/`)
 * sit below its loop: a mode never imports the controller's other files, a mode folder never
 * imports another mode's, and the files directly in `modes/` (the contract and what modes share)
 * import no mode. One exception, on purpose: the doctor judges the controller's set-up, so it
 * reads the controller's option table, settings and modes' pure analysis (one truth for what the
 * flags mean and what a good Corefile is), and asks DNS with the forwarder's own lookup; see
 * {@linkcode DOCTOR_READS}.
 *
 * @module
 */

import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { LAYERS } from "./support/layers.ts";

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

/**
 * What the doctor may read of its siblings: the controller's option table, settings and modes, and
 * the DNS room's lookup (the forwarder's own UDP, TC→TCP code asks the doctor's questions).
 */
const DOCTOR_READS =
  /^(controller\/(controller_options\.ts|controller_settings\.ts|modes\/)|dns\/upstream\/lookup_addresses\.ts$)/;

/** Which mode a path under `controller/modes/` belongs to, or `""` for the shared files. */
function modeOf(rest: readonly string[]): string | undefined {
  if (rest[0] !== "modes") return undefined;
  return rest.length > 2 ? rest[1]! : "";
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
    if (fromTop !== "controller") return undefined;
    const fromMode = modeOf(fromRest);
    const toMode = modeOf(toRest);
    if (fromMode === undefined) return undefined;
    if (toMode === undefined) {
      return `the controller's modes import the loop's controller/${toRest.join("/")}`;
    }
    if (toMode !== "" && fromMode !== toMode) {
      return fromMode === ""
        ? `shared modes/ code imports the ${toMode} mode`
        : `the ${fromMode} mode imports the ${toMode} mode`;
    }
    return undefined;
  }
  if (fromTop === "doctor" && DOCTOR_READS.test(to)) return undefined;
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

Deno.test("layering: main.ts reaches lib/ only through each subcommand's entry, daemon, cli and util", async () => {
  const source = await Deno.readTextFile(join(ROOT, "main.ts"));
  const reached = importSpecifiers(source)
    .filter((specifier) => specifier.startsWith("./lib/"))
    .map((specifier) => specifier.slice("./lib/".length))
    .filter((path) => {
      const [folder, file] = path.split("/");
      return !["daemon", "cli", "util"].includes(folder!) && file !== `${folder}_command.ts`;
    });
  assert.deepEqual(reached, []);
});

Deno.test("layering: the rule catches what it must (a table of imports)", () => {
  const cases: [string, string, boolean][] = [
    ["controller/runtime.ts", "controller/modes/sink.ts", true],
    ["controller/modes/sink.ts", "controller/runtime.ts", false],
    ["kube/client.ts", "resources/ingress.ts", true],
    ["resources/ingress.ts", "kube/client.ts", false],
    ["controller/runtime.ts", "proxy/server.ts", false],
    ["hostnames/hostname.ts", "reflector/store.ts", false],
    ["controller/controller_command.ts", "controller/controller_options.ts", true],
    ["controller/controller_command.ts", "proxy/proxy_command.ts", false],
    ["controller/modes/coredns/coredns_sink.ts", "controller/modes/markers.ts", true],
    ["controller/modes/coredns/coredns_sink.ts", "controller/modes/etc_hosts/edit_hosts_file.ts", false],
    ["controller/modes/markers.ts", "controller/modes/coredns/coredns_sink.ts", false],
    ["controller/modes/coredns/corefile/tokens.ts", "controller/modes/coredns/coredns_sink.ts", true],
    ["doctor/checks/dns_wiring_check.ts", "controller/modes/coredns/corefile/tokens.ts", true],
    ["doctor/doctor_command.ts", "controller/controller_options.ts", true],
    ["doctor/doctor_command.ts", "controller/reconcile_loop.ts", false],
    ["kuberture/kuberture_command.ts", "controller/controller_options.ts", false],
    ["util/version.ts", "../deno.json", true],
    ["util/clock.ts", "../tests/support/fake_clock.ts", false],
  ];
  const wrong = cases.filter(([from, to, allowed]) => (violation(from, to) === undefined) !== allowed);
  assert.deepEqual(wrong, []);
});
