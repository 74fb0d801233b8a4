/**
 * `deno task bench:kube`: how fast the reflector syncs a large cluster and how many watch
 * events a second it applies, next to the informer of `@kubernetes/client-node` measured in the
 * same run against the same fake API server.
 *
 * Method: the fake API server (in this process) holds 10,000 Ingresses of about 1 KiB each. For
 * each client, in alternating rounds, a fresh child process syncs them (paged lists for ours,
 * one list for client-node's informer) and reports the time to synced and its RSS; this process
 * then updates every Ingress at once (the events queue up on the watch stream), and the child
 * reports how long it took to apply them, from the first to the last. Times start when the
 * child's script starts (after the runtime and modules are loaded). Medians of the rounds are printed with ratios.
 *
 * Flags: `--quick` (fewer objects and rounds, a smoke run), `--v8-flags=<a,b>` (V8 flags for both
 * client processes, passed as `DENO_V8_FLAGS`, as the chart's `controller.v8Flags` does for the
 * controller).
 *
 * @module
 */

import { ROOT } from "../support/ouroboros_process.ts";
import { type FakeApiServer, startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { shopIngress } from "../support/ingress_manifest.ts";

const quick = Deno.args.includes("--quick");
const V8_FLAGS_PREFIX = "--v8-flags=";
const v8Flags = Deno.args.findLast((arg) => arg.startsWith(V8_FLAGS_PREFIX))?.slice(V8_FLAGS_PREFIX.length) ??
  "";
const unknown = Deno.args.filter((arg) => arg !== "--quick" && !arg.startsWith(V8_FLAGS_PREFIX));
if (unknown.length > 0) {
  // deno-lint-ignore no-console
  console.error(
    `unknown arguments ${unknown.join(" ")}; usage: deno task bench:kube [--quick] [--v8-flags=<a,b>]`,
  );
  Deno.exit(2);
}
const OBJECTS = quick ? 2_000 : 10_000;
const ROUNDS = quick ? 1 : 3;
const CLIENT = new URL("./kube_bench_client.ts", import.meta.url).pathname;

function say(text = ""): void {
  // deno-lint-ignore no-console
  console.log(text);
}

/** Ingress `i` of about 1 KiB; `generation` changes with every update round. */
function ingress(i: number, generation: number): Record<string, unknown> {
  const host = `shop-${i}.tenant-${i % 97}.example.com`;
  return shopIngress(i, {
    tlsHosts: [host, `www.${host}`],
    ruleHosts: [host],
    annotations: { "bench/generation": String(generation), "bench/padding": "x".repeat(300) },
  });
}

interface Round {
  readonly syncMs: number;
  readonly syncRss: number;
  readonly syncHeap: number;
  readonly eventsPerSecond: number;
  readonly eventsRss: number;
}

async function measure(
  server: FakeApiServer,
  mode: "ours" | "client-node",
  generation: number,
): Promise<Round> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", "-P=bench", CLIENT, server.url, mode, String(OBJECTS)],
    cwd: ROOT,
    ...(v8Flags === "" ? {} : { env: { DENO_V8_FLAGS: v8Flags } }),
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const next = async (): Promise<Record<string, number | string>> => {
    while (!buffer.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error(`${mode} client ended early`);
      buffer += value;
    }
    const newline = buffer.indexOf("\n");
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    return JSON.parse(line) as Record<string, number | string>;
  };
  const synced = await next();
  if (synced.size !== OBJECTS) throw new Error(`${mode} synced ${synced.size} objects, expected ${OBJECTS}`);
  // All updates are queued on the watch stream before the child reads any of them, so the rate
  // measured is the child's, not the fake server's.
  for (let i = 0; i < OBJECTS; i++) server.update(ingress(i, generation));
  const events = await next();
  lines.releaseLock();
  await child.stdout.cancel().catch(() => {});
  await child.status;
  return {
    syncMs: Number(synced.ms),
    syncRss: Number(synced.rss),
    syncHeap: Number(synced.heap),
    eventsPerSecond: Number(events.count) / (Number(events.ms) / 1000),
    eventsRss: Number(events.rss),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

// Deno reads /proc only with --allow-all, so ask cat.
const cpuinfo = new TextDecoder().decode(
  (await new Deno.Command("cat", { args: ["/proc/cpuinfo"] }).output()).stdout,
);
const cpu = /model name\s*:\s*(.*)/.exec(cpuinfo)?.[1] ?? "unknown";
say("ouroboros Kubernetes client benchmark");
say(`date:     ${new Date().toISOString()}`);
say(`machine:  ${Deno.build.arch}, ${cpu}, ${navigator.hardwareConcurrency} cores`);
say(`Deno:     ${Deno.version.deno}; peer: @kubernetes/client-node 2.0.1 informer`);
say(`objects:  ${OBJECTS} Ingresses of about 1 KiB; ${ROUNDS} round(s) per client, alternating`);
say(`V8 flags: ${v8Flags === "" ? "(defaults)" : v8Flags} for both clients`);
say("");

await using server = await startFakeApiServer({ bookmarkIntervalMs: 0, historyLimit: OBJECTS * 4 });
for (let i = 0; i < OBJECTS; i++) server.create(ingress(i, 0));

const results: Record<"ours" | "client-node", Round[]> = { ours: [], "client-node": [] };
let generation = 1;
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? (["ours", "client-node"] as const) : (["client-node", "ours"] as const);
  for (const mode of order) {
    const result = await measure(server, mode, generation++);
    results[mode].push(result);
    say(
      `round ${round + 1} ${mode.padEnd(11)} synced in ${result.syncMs.toFixed(0)} ms, ` +
        `RSS ${(result.syncRss / 2 ** 20).toFixed(1)} MiB; ${result.eventsPerSecond.toFixed(0)} events/s`,
    );
  }
}

const row = (name: string, ours: number, peer: number, digits: number) =>
  `${name.padEnd(40)} ${ours.toFixed(digits).padStart(10)} ${peer.toFixed(digits).padStart(12)} ${
    (ours / peer).toFixed(2).padStart(8)
  }x`;
const pick = (mode: "ours" | "client-node", field: keyof Round) => median(results[mode].map((r) => r[field]));
say("");
say(`RESULTS (medians of ${ROUNDS} round(s); the fake API server runs in the benchmark process)`);
say(
  `${"metric".padEnd(40)} ${"ouroboros".padStart(10)} ${"client-node".padStart(12)} ${"ratio".padStart(9)}`,
);
say(
  row(`time to synced, ${OBJECTS} Ingresses, ms`, pick("ours", "syncMs"), pick("client-node", "syncMs"), 0),
);
say(
  row("RSS after sync, MiB", pick("ours", "syncRss") / 2 ** 20, pick("client-node", "syncRss") / 2 ** 20, 1),
);
say(
  row(
    "V8 heap in use after sync, MiB",
    pick("ours", "syncHeap") / 2 ** 20,
    pick("client-node", "syncHeap") / 2 ** 20,
    1,
  ),
);
say(
  row(
    "watch events applied per second",
    pick("ours", "eventsPerSecond"),
    pick("client-node", "eventsPerSecond"),
    0,
  ),
);
say(
  row(
    "RSS after the events, MiB",
    pick("ours", "eventsRss") / 2 ** 20,
    pick("client-node", "eventsRss") / 2 ** 20,
    1,
  ),
);
say("");
const goals = [
  [`${OBJECTS} Ingresses synced in under 2 s`, pick("ours", "syncMs") < 2000],
  ["RSS after sync under 100 MiB", pick("ours", "syncRss") < 100 * 2 ** 20],
  ["at least 30,000 events/s", pick("ours", "eventsPerSecond") >= 30_000],
] as const;
say("Goals");
for (const [goal, met] of goals) say(`  ${met ? "met    " : "NOT met"} ${goal}`);
