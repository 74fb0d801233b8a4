/**
 * Proxy benchmark: `deno task bench:proxy` (add `--quick` for a short smoke run).
 *
 * A script that PRINTS figures; it asserts nothing about speed and is not part of the test suite.
 *
 * Method
 * ------
 * Three paths carry the same loads, on loopback:
 *   (a) ouroboros: `ouroboros proxy` as a child process (`deno run -P=proxy main.ts proxy`), default
 *       settings except listen/target addresses and `--log-level=warn`;
 *   (b) haproxy: HAProxy `mode tcp` with `server … send-proxy` (the hairpin-proxy set-up), tuned with
 *       `nbthread 1` (ours is single-threaded) and a `maxconn` large enough for the test;
 *   (c) direct: the client talks to the backend itself, no proxy: the machine's limit.
 * Backends: nginx (one process) with a `proxy_protocol` listener for (a)/(b) and a plain one for
 * (c), serving a small body (`/small`) and a large file (`/big.bin`, generated in a temp dir); and
 * `bench_peer.py sink`, which strips the PROXY header on one port and not on the other, counts
 * bytes to EOF and acknowledges the count, for uploads and idle connections. Proxies reach nginx
 * through their "http" listener and the sink through their "https" listener (opaque bytes).
 *
 * Measurements, interleaved: every round runs each measurement on each path in turn (the path
 * order rotates from round to round), and the table reports the median over the rounds:
 *   1. bulk throughput: `bench_peer.py download` (GET of the large file, read to EOF into one reused
 *      1 MiB buffer) and `bench_peer.py upload` (sendfile of the same file to the sink, timed until
 *      the sink acknowledges every byte), MiB/s;
 *   2. new-connection rate: `wrk -t1 -c32 -H 'Connection: close'` on /small, requests/s;
 *   3. keep-alive latency: `wrk -t1 -c8 --latency` on /small, p50/p99, and the latency ADDED to the
 *      direct path (median of the path minus median of direct);
 *   4. RSS per idle connection: a fresh proxy instance per round, a separate client process
 *      (`bench_peer.py hold`) opens N idle connections, the script waits until the sink holds N
 *      connections whose PROXY header arrived, and compares VmRSS of the proxy process with the
 *      value right after start; at 1,000 and at the largest count the 20,000 descriptor limit
 *      allows (each proxied connection needs two descriptors in the proxy);
 *   5. CPU seconds per GiB: utime+stime of the proxy process (/proc/<pid>/stat, all threads) around
 *      each bulk transfer, divided by the bytes moved.
 * Client load is identical for every path (same command lines, same peer program). The load
 * generator, the backend and the proxy all share the machine's cores, which the output says.
 * Before the rounds, each path gets one warm-up pass (JIT, page cache, connection pools).
 *
 * @module
 */

import { DEFAULT_RELAY_BUFFERS } from "../../lib/proxy/relay.ts";
import { freePort, startHaproxy, startNginx, waitForPort } from "../support/daemons.ts";
import { denoArgs, ROOT } from "../support/ouroboros_process.ts";
import { requireTool } from "../support/tools.ts";
import { waitFor } from "../support/wait.ts";
import {
  figure,
  median,
  parseCpuTicks,
  parseOpenFilesLimit,
  parseVmRssKib,
  parseWrk,
  ratio,
  renderTable,
  type WrkResult,
} from "./bench_report.ts";

const PEER = new URL("./bench_peer.py", import.meta.url).pathname;
const HOST = "127.0.0.1";
const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
/** Descriptors kept free in the proxy besides the two per idle connection (health, probes, slack). */
const FD_RESERVE = 64;
/** HAProxy's own descriptors on top of 2 × maxconn (listeners, poller, stdio), measured: 14. */
const HAPROXY_MAXCONN_SLACK = 32;
const RATE_CONNECTIONS = 32;
const LATENCY_CONNECTIONS = 8;
const SMALL_BODY = "hello from the benchmark backend\n";

/** Durations and sizes of one run. */
interface Settings {
  readonly quick: boolean;
  readonly rounds: number;
  readonly idleRounds: number;
  readonly fileMiB: number;
  readonly wrkSeconds: number;
  readonly idleSmall: number;
  /** The idle count aimed for; lowered to what the descriptor limit allows. */
  readonly idleTarget: number;
}

const FULL: Settings = {
  quick: false,
  rounds: 5,
  idleRounds: 3,
  fileMiB: 1024,
  wrkSeconds: 5,
  idleSmall: 1000,
  idleTarget: 10_000,
};
const QUICK: Settings = {
  quick: true,
  rounds: 2,
  idleRounds: 1,
  fileMiB: 128,
  wrkSeconds: 1,
  idleSmall: 200,
  idleTarget: 1000,
};

type PathName = "ouroboros" | "haproxy" | "direct";
const PATHS: readonly PathName[] = ["ouroboros", "haproxy", "direct"];

/** One way to reach the backends; `pid` is the proxy process (absent for direct). */
interface Target {
  readonly name: PathName;
  readonly pid?: number;
  /** Port leading to nginx (HTTP). */
  readonly httpPort: number;
  /** Port leading to the sink. */
  readonly sinkPort: number;
}

/** A started proxy process. */
interface ProxyInstance extends Target {
  readonly pid: number;
  stop(): Promise<void>;
}

function print(line = ""): void {
  // deno-lint-ignore no-console
  console.log(line);
}

async function capture(command: string, args: readonly string[]): Promise<{ code: number; text: string }> {
  const output = await new Deno.Command(command, {
    args: [...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const decoder = new TextDecoder();
  return { code: output.code, text: decoder.decode(output.stdout) + decoder.decode(output.stderr) };
}

/** Reads a byte stream line by line. */
function lineReader(stream: ReadableStream<Uint8Array>) {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return {
    async next(): Promise<string | undefined> {
      while (true) {
        const newline = buffer.indexOf("\n");
        if (newline >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          return line;
        }
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffer += value;
      }
    },
    async cancel(): Promise<void> {
      await reader.cancel().catch(() => {});
    },
  };
}

async function peerJson(args: readonly string[]): Promise<{ bytes: number; seconds: number }> {
  const { code, text } = await capture("python3", [PEER, ...args]);
  if (code !== 0) throw new Error(`bench_peer.py ${args.join(" ")} failed (${code}): ${text}`);
  return JSON.parse(text) as { bytes: number; seconds: number };
}

// ---------------------------------------------------------------------------------------------
// /proc readings

/**
 * Reads a /proc file through `cat`: Deno treats /proc as a privileged path that only
 * `--allow-all` may read, and the bench permission set deliberately is not that.
 */
async function readProc(path: string): Promise<string> {
  const { code, text } = await capture("cat", [path]);
  if (code !== 0) throw new Error(`cannot read ${path}: ${text}`);
  return text;
}

async function rssKib(pid: number): Promise<number> {
  return parseVmRssKib(await readProc(`/proc/${pid}/status`));
}

async function cpuTicks(pid: number): Promise<number> {
  return parseCpuTicks(await readProc(`/proc/${pid}/stat`));
}

async function openFds(pid: number): Promise<number> {
  const { code, text } = await capture("ls", ["-1", `/proc/${pid}/fd`]);
  if (code !== 0) throw new Error(`cannot list /proc/${pid}/fd: ${text}`);
  return text.split("\n").filter((line) => line.trim() !== "").length;
}

// ---------------------------------------------------------------------------------------------
// Processes under test and peers

/** The python sink: counts bytes after an optional PROXY header; a control port reports counters. */
async function startSink(): Promise<
  { pp: number; plain: number; stats: () => Promise<SinkStats>; stop(): Promise<void> }
> {
  const child = new Deno.Command("python3", {
    args: [PEER, "sink"],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  })
    .spawn();
  const lines = lineReader(child.stdout);
  const first = await lines.next();
  if (first === undefined) {
    throw new Error(`the sink exited before listening: ${JSON.stringify(await child.status)}`);
  }
  const ports = JSON.parse(first) as { pp: number; plain: number; control: number };
  return {
    pp: ports.pp,
    plain: ports.plain,
    stats: async () => {
      const conn = await Deno.connect({ hostname: HOST, port: ports.control });
      return JSON.parse(await new Response(conn.readable).text()) as SinkStats;
    },
    async stop() {
      child.kill("SIGKILL");
      await child.status;
      await lines.cancel();
    },
  };
}

interface SinkStats {
  readonly accepted: number;
  /** Connections open now whose PROXY header (if expected) has arrived. */
  readonly ready: number;
  readonly bytes: number;
}

/**
 * Starts `ouroboros proxy` like `startProxy` does but with `--log-level=warn`, which hides the
 * INFO "proxy starting" line that `startProxy` waits for; readiness is detected by polling the
 * listen ports instead.
 */
async function startOuroboros(httpTarget: number, sinkTarget: number): Promise<ProxyInstance> {
  const http = freePort();
  const https = freePort();
  const health = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: denoArgs("proxy", [
      "proxy",
      `--listen-http=${HOST}:${http}`,
      `--listen-https=${HOST}:${https}`,
      `--listen-health=${HOST}:${health}`,
      `--target-host=${HOST}`,
      `--target-http-port=${httpTarget}`,
      `--target-https-port=${sinkTarget}`,
      "--log-level=warn",
    ]),
    cwd: ROOT,
    clearEnv: true,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  const drain = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) log += chunk;
  })();
  const status = Promise.all([child.status, drain]).then(([s]) => s);
  const stop = async () => {
    try {
      child.kill("SIGKILL");
    } catch { /* exited already */ }
    await status;
  };
  try {
    await Promise.race([
      Promise.all([waitForPort(HOST, http, "ouroboros"), waitForPort(HOST, https, "ouroboros")]),
      status.then((s) => {
        throw new Error(`ouroboros exited with ${s.code} before listening:\n${log}`);
      }),
    ]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { name: "ouroboros", pid: child.pid, httpPort: http, sinkPort: https, stop };
}

/** The HAProxy configuration body (after startHaproxy's global/defaults), printed in the header. */
function haproxyBody(http: number, https: number, nginxPP: number, sinkPP: number): string {
  return `global
  nbthread 1
frontend fe_http
  bind ${HOST}:${http}
  default_backend be_http
backend be_http
  server ingress ${HOST}:${nginxPP} send-proxy
frontend fe_https
  bind ${HOST}:${https}
  default_backend be_https
backend be_https
  server sink ${HOST}:${sinkPP} send-proxy
`;
}

async function startHaproxyTarget(nginxPP: number, sinkPP: number, maxconn: number): Promise<ProxyInstance> {
  const http = freePort();
  const https = freePort();
  const daemon = await startHaproxy(
    haproxyBody(http, https, nginxPP, sinkPP),
    [[HOST, http], [HOST, https]],
    maxconn,
  );
  return {
    name: "haproxy",
    pid: daemon.child.pid,
    httpPort: http,
    sinkPort: https,
    stop: () => daemon.stop(),
  };
}

/** A client process holding idle connections, so its descriptors do not count against the proxy. */
function startHolder(port: number) {
  const child = new Deno.Command("python3", {
    args: [PEER, "hold", HOST, String(port)],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = lineReader(child.stdout);
  const encoder = new TextEncoder();
  let open = 0;
  return {
    /** Opens connections until `total` are open; resolves when the client has connected them all. */
    async openTo(total: number): Promise<void> {
      await writer.write(encoder.encode(`open ${total - open}\n`));
      const reply = await lines.next();
      if (reply !== `opened ${total}`) throw new Error(`the idle client answered ${JSON.stringify(reply)}`);
      open = total;
    },
    async close(): Promise<void> {
      await writer.write(encoder.encode("close\n")).catch(() => {});
      await writer.close().catch(() => {});
      await child.status;
      await lines.cancel();
    },
  };
}

async function writeBigFile(path: string, mib: number): Promise<void> {
  const chunk = new Uint8Array(MIB);
  for (let offset = 0; offset < chunk.length; offset += 65_536) {
    crypto.getRandomValues(chunk.subarray(offset, offset + 65_536));
  }
  using file = await Deno.open(path, { write: true, create: true, truncate: true });
  for (let i = 0; i < mib; i++) {
    // Vary each MiB a little so no layer can dedupe or compress the stream.
    chunk[0] = i & 0xff;
    chunk[1] = (i >> 8) & 0xff;
    let offset = 0;
    while (offset < chunk.length) offset += await file.write(chunk.subarray(offset));
  }
}

function nginxHttpBlock(root: string, pp: number, plain: number): string {
  return `  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_requests 1000000;
  keepalive_timeout 300s;
  server {
    listen ${HOST}:${pp} proxy_protocol;
    listen ${HOST}:${plain};
    root ${root};
    location = /small { default_type text/plain; return 200 "${SMALL_BODY.trimEnd()}\\n"; }
    location = /whoami { default_type text/plain; return 200 "$proxy_protocol_addr\\n"; }
  }`;
}

// ---------------------------------------------------------------------------------------------
// Samples

type Metric =
  | "download"
  | "upload"
  | "cpuDownload"
  | "cpuUpload"
  | "rate"
  | "p50"
  | "p99"
  | "idleSmall"
  | "idleLarge"
  | "idleMarginal";

const samples = new Map<string, number[]>();
const problems: string[] = [];

function add(metric: Metric, path: PathName, value: number): void {
  const key = `${metric}/${path}`;
  const list = samples.get(key) ?? [];
  list.push(value);
  samples.set(key, list);
}

function values(metric: Metric, path: PathName): number[] {
  return samples.get(`${metric}/${path}`) ?? [];
}

function med(metric: Metric, path: PathName): number {
  return median(values(metric, path));
}

function noteWrkProblems(what: string, path: PathName, result: WrkResult): void {
  for (const problem of result.problems) problems.push(`${what} via ${path}: ${problem}`);
}

// ---------------------------------------------------------------------------------------------
// Measurements

async function bulk(
  kind: "download" | "upload",
  target: Target,
  bigPath: string,
  fileBytes: number,
  clockTicks: number,
): Promise<void> {
  const before = target.pid === undefined ? undefined : await cpuTicks(target.pid);
  const result = kind === "download"
    ? await peerJson(["download", HOST, String(target.httpPort), "/big.bin"])
    : await peerJson(["upload", HOST, String(target.sinkPort), bigPath]);
  const after = target.pid === undefined ? undefined : await cpuTicks(target.pid);
  if (result.bytes !== fileBytes) {
    throw new Error(`${kind} via ${target.name} moved ${result.bytes} bytes, expected ${fileBytes}`);
  }
  add(kind, target.name, result.bytes / MIB / result.seconds);
  if (before !== undefined && after !== undefined) {
    add(
      kind === "download" ? "cpuDownload" : "cpuUpload",
      target.name,
      (after - before) / clockTicks / (result.bytes / GIB),
    );
  }
}

async function wrk(
  port: number,
  connections: number,
  seconds: number,
  extra: readonly string[],
): Promise<WrkResult> {
  const { code, text } = await capture("wrk", [
    "-t1",
    `-c${connections}`,
    `-d${seconds}s`,
    ...extra,
    `http://${HOST}:${port}/small`,
  ]);
  if (code !== 0) throw new Error(`wrk failed (${code}):\n${text}`);
  return parseWrk(text);
}

async function connectionRate(target: Target, seconds: number): Promise<void> {
  const result = await wrk(target.httpPort, RATE_CONNECTIONS, seconds, ["-H", "Connection: close"]);
  noteWrkProblems("connection rate", target.name, result);
  add("rate", target.name, result.requestsPerSecond);
}

async function keepAliveLatency(target: Target, seconds: number): Promise<void> {
  const result = await wrk(target.httpPort, LATENCY_CONNECTIONS, seconds, ["--latency"]);
  noteWrkProblems("keep-alive latency", target.name, result);
  if (result.p50Ms === undefined || result.p99Ms === undefined) {
    throw new Error("wrk --latency printed no percentiles");
  }
  add("p50", target.name, result.p50Ms);
  add("p99", target.name, result.p99Ms);
}

/** Checks that each path reaches nginx and that nginx parsed a PROXY header where one is expected. */
async function sanityCheck(target: Target): Promise<void> {
  const { code, text } = await capture("curl", [
    "-sS",
    "--max-time",
    "10",
    `http://${HOST}:${target.httpPort}/whoami`,
  ]);
  const expected = target.name === "direct" ? "" : HOST;
  if (code !== 0 || text.trim() !== expected) {
    throw new Error(
      `/whoami via ${target.name}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(text)}`,
    );
  }
}

/** Opens idle connections through a fresh instance and records RSS growth per connection. */
async function idleMemory(
  instance: ProxyInstance,
  counts: readonly [number, number],
  sinkStats: () => Promise<SinkStats>,
): Promise<{ baseKib: number; kib: [number, number] }> {
  const ready0 = (await sinkStats()).ready;
  const baseKib = await rssKib(instance.pid);
  const holder = startHolder(instance.sinkPort);
  const kib: [number, number] = [0, 0];
  try {
    for (const [index, count] of counts.entries()) {
      await holder.openTo(count);
      await waitFor(`the sink to hold ${count} connections through ${instance.name}`, async () => {
        return (await sinkStats()).ready >= ready0 + count;
      }, { timeoutMs: 180_000, intervalMs: 50 });
      kib[index] = await rssKib(instance.pid);
    }
  } finally {
    await holder.close();
  }
  await waitFor(
    "the idle connections to close at the sink",
    async () => (await sinkStats()).ready <= ready0,
    {
      timeoutMs: 60_000,
      intervalMs: 50,
    },
  );
  return { baseKib, kib };
}

// ---------------------------------------------------------------------------------------------
// Main

function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

async function environment(): Promise<string[]> {
  const cpuinfo = await readProc("/proc/cpuinfo");
  const model = /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? "unknown";
  const cores = cpuinfo.split("\n").filter((line) => line.startsWith("processor")).length;
  const first = (text: string) => text.split("\n").find((line) => line.trim() !== "")?.trim() ?? "unknown";
  const limits = parseOpenFilesLimit(await readProc("/proc/self/limits"));
  return [
    `date:        ${new Date().toISOString()}`,
    `uname -m:    ${first((await capture("uname", ["-m"])).text)}   kernel ${Deno.osRelease()}`,
    `CPU:         ${model}, ${cores} cores`,
    `Deno:        ${Deno.version.deno} (V8 ${Deno.version.v8})`,
    `HAProxy:     ${first((await capture("haproxy", ["-v"])).text)}`,
    `nginx:       ${first((await capture("nginx", ["-v"])).text)}`,
    `wrk:         ${first((await capture("wrk", ["-v"])).text)}`,
    `python3:     ${
      first((await capture("python3", ["--version"])).text)
    } (bench_peer.py: sink and bulk/idle clients)`,
    `fd limit:    ${limits} per process (cannot be raised here)`,
    `loadavg:     ${
      (await readProc("/proc/loadavg")).trim()
    } (at start; other work on the machine skews figures)`,
  ];
}

async function main(): Promise<void> {
  const unknown = Deno.args.filter((arg) => arg !== "--quick");
  if (unknown.length > 0) {
    print(`usage: deno task bench:proxy [--quick]   (unknown: ${unknown.join(" ")})`);
    Deno.exitCode = 2;
    return;
  }
  const settings = Deno.args.includes("--quick") ? QUICK : FULL;
  for (const tool of ["nginx", "haproxy", "wrk", "python3", "curl"]) requireTool(tool);
  const startedAt = performance.now();
  const clockTicks = Number((await capture("getconf", ["CLK_TCK"])).text.trim()) || 100;

  print(
    `ouroboros proxy benchmark${settings.quick ? " (--quick smoke run: figures are indicative only)" : ""}`,
  );
  for (const line of await environment()) print(line);
  print();

  const cleanups: (() => Promise<void>)[] = [];
  const dir = await Deno.makeTempDir({ prefix: "ouroboros-bench-" });
  cleanups.push(() => Deno.remove(dir, { recursive: true }));
  try {
    const fileBytes = settings.fileMiB * MIB;
    const bigPath = `${dir}/big.bin`;
    await writeBigFile(bigPath, settings.fileMiB);

    const sink = await startSink();
    cleanups.push(() => sink.stop());
    const nginxPP = freePort();
    const nginxPlain = freePort();
    const nginx = await startNginx(nginxHttpBlock(dir, nginxPP, nginxPlain), [[HOST, nginxPP], [
      HOST,
      nginxPlain,
    ]]);
    cleanups.push(() => nginx.stop());

    const ours = await startOuroboros(nginxPP, sink.pp);
    cleanups.push(() => ours.stop());
    const haproxy = await startHaproxyTarget(nginxPP, sink.pp, 4000);
    cleanups.push(() => haproxy.stop());
    const direct: Target = { name: "direct", httpPort: nginxPlain, sinkPort: sink.plain };
    const targets: Record<PathName, Target> = { ouroboros: ours, haproxy, direct };

    print("Set-up");
    print(`  backend:   nginx (1 process, sendfile) :${nginxPP} proxy_protocol, :${nginxPlain} plain;`);
    print(`             bench_peer.py sink :${sink.pp} strips PROXY header, :${sink.plain} plain`);
    print(
      `  ouroboros: deno run -P=proxy main.ts proxy --target-host=${HOST} --log-level=warn (defaults otherwise:`,
    );
    print(
      `             PROXY v1, relay buffers ${DEFAULT_RELAY_BUFFERS.small} B own, borrowing ` +
        `${DEFAULT_RELAY_BUFFERS.pool.size} B while streaming), pid ${ours.pid}`,
    );
    print(`  haproxy:   mode tcp, nbthread 1, maxconn 4000 (idle test: N + ${HAPROXY_MAXCONN_SLACK}),`);
    print(
      `             timeout connect 5s / client 1h / server 1h, server ... send-proxy (v1), pid ${haproxy.pid}`,
    );
    print(
      `  loads:     download/upload ${settings.fileMiB} MiB; wrk -t1 -c${RATE_CONNECTIONS} -d${settings.wrkSeconds}s ` +
        `-H 'Connection: close'; wrk -t1 -c${LATENCY_CONNECTIONS} -d${settings.wrkSeconds}s --latency`,
    );
    print(
      `  rounds:    ${settings.rounds} (idle memory: ${settings.idleRounds}), interleaved, path order rotated ` +
        `each round; medians reported`,
    );
    print(`  fairness:  client load is identical for every path; the clients (wrk, python), the backend and`);
    print(
      `             the proxy all share the same ${navigator.hardwareConcurrency} cores, so every figure includes that contention.`,
    );
    print();

    for (const name of PATHS) await sanityCheck(targets[name]);
    print("Sanity: nginx saw the client address 127.0.0.1 in the PROXY header via ouroboros and haproxy.");

    // Warm-up: one pass of every load on every path, not recorded.
    for (const name of PATHS) {
      const target = targets[name];
      await peerJson(["download", HOST, String(target.httpPort), "/big.bin"]);
      await peerJson(["upload", HOST, String(target.sinkPort), bigPath]);
      await wrk(target.httpPort, RATE_CONNECTIONS, 1, ["-H", "Connection: close"]);
      await wrk(target.httpPort, LATENCY_CONNECTIONS, 1, ["--latency"]);
    }
    print("Warm-up pass done.");
    print();

    const seconds = settings.wrkSeconds;
    const measurements: readonly [string, (target: Target) => Promise<void>][] = [
      ["download", (t) => bulk("download", t, bigPath, fileBytes, clockTicks)],
      ["upload", (t) => bulk("upload", t, bigPath, fileBytes, clockTicks)],
      ["connection rate", (t) => connectionRate(t, seconds)],
      ["keep-alive latency", (t) => keepAliveLatency(t, seconds)],
    ];
    for (let round = 0; round < settings.rounds; round++) {
      const order = rotate(PATHS, round);
      for (const [, measure] of measurements) {
        for (const name of order) await measure(targets[name]);
      }
      const last = (metric: Metric, name: PathName) => figure(values(metric, name).at(-1));
      print(
        `round ${round + 1}/${settings.rounds} (order ${order.join(", ")}): ` +
          PATHS.map((name) =>
            `${name} ${last("download", name)}/${last("upload", name)} MiB/s, ${
              last("rate", name)
            } conn/s, ` +
            `p99 ${last("p99", name)} ms`
          ).join("; "),
      );
    }
    await ours.stop();
    await haproxy.stop();
    print();

    // Idle connections: fresh instances so earlier bulk transfers do not colour the baseline.
    const probe = await startOuroboros(nginxPP, sink.pp);
    const fdLimit = parseOpenFilesLimit(await readProc(`/proc/${probe.pid}/limits`));
    const baseFds = await openFds(probe.pid);
    await probe.stop();
    const feasible = Math.floor((fdLimit - baseFds - FD_RESERVE) / 2 / 100) * 100;
    const large = Math.min(settings.idleTarget, feasible);
    const small = Math.min(settings.idleSmall, large);
    print("Idle connections");
    print(
      `  fd limit ${fdLimit}; a fresh ouroboros holds ${baseFds} descriptors; each proxied connection needs 2 ` +
        `(client + backend) and ${FD_RESERVE} are kept for health checks and slack:`,
    );
    print(
      `  feasible N = floor((${fdLimit} - ${baseFds} - ${FD_RESERVE}) / 2) rounded down to 100 = ${feasible}.`,
    );
    if (settings.idleTarget > feasible) {
      print(
        `  ${settings.idleTarget.toLocaleString("en-US")} is NOT reached: it would need ` +
          `${
            2 * settings.idleTarget + baseFds
          } descriptors > ${fdLimit}. Measuring at ${small} and ${large}.`,
      );
    } else {
      print(`  ${settings.idleTarget.toLocaleString("en-US")} fits. Measuring at ${small} and ${large}.`);
    }
    print(`  HAProxy gets maxconn ${large + HAPROXY_MAXCONN_SLACK}; the idle client is a separate process.`);
    for (let round = 0; round < settings.idleRounds; round++) {
      for (const name of rotate(["ouroboros", "haproxy"] as const, round)) {
        const instance = name === "ouroboros"
          ? await startOuroboros(nginxPP, sink.pp)
          : await startHaproxyTarget(nginxPP, sink.pp, large + HAPROXY_MAXCONN_SLACK);
        try {
          const { baseKib, kib } = await idleMemory(instance, [small, large], sink.stats);
          add("idleSmall", name, (kib[0] - baseKib) / small);
          add("idleLarge", name, (kib[1] - baseKib) / large);
          if (large > small) add("idleMarginal", name, (kib[1] - kib[0]) / (large - small));
          print(
            `  round ${round + 1}/${settings.idleRounds} ${name}: VmRSS ${baseKib} KiB at start, ` +
              `${kib[0]} KiB with ${small}, ${kib[1]} KiB with ${large} idle connections`,
          );
        } finally {
          await instance.stop();
        }
      }
    }
    print();

    report(settings, small, large);
    if (problems.length > 0) {
      print();
      print("wrk reported errors (figures for these runs are suspect):");
      for (const problem of problems) print(`  ${problem}`);
    }
    print();
    print(
      `Total run time ${((performance.now() - startedAt) / 1000).toFixed(0)} s; ` +
        `loadavg at the end ${(await readProc("/proc/loadavg")).trim()}.`,
    );
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  }
}

function report(settings: Settings, small: number, large: number): void {
  print("Per-round samples (in run order)");
  const metricNames: readonly [Metric, string][] = [
    ["download", "download MiB/s"],
    ["upload", "upload MiB/s"],
    ["rate", "Connection: close req/s"],
    ["p50", "keep-alive p50 ms"],
    ["p99", "keep-alive p99 ms"],
    ["cpuDownload", "CPU s/GiB download"],
    ["cpuUpload", "CPU s/GiB upload"],
    ["idleSmall", `KiB/conn at ${small}`],
    ["idleLarge", `KiB/conn at ${large}`],
  ];
  for (const [metric, label] of metricNames) {
    const parts = PATHS.filter((name) => values(metric, name).length > 0)
      .map((name) => `${name} ${values(metric, name).map(figure).join(" ")}`);
    print(`  ${label.padEnd(26)} ${parts.join(" | ")}`);
  }
  print();

  const row = (label: string, metric: Metric | ((name: PathName) => number), withDirect = true): string[] => {
    const get = (name: PathName) => typeof metric === "function" ? metric(name) : med(metric, name);
    const ours = get("ouroboros");
    const haproxy = get("haproxy");
    const direct = withDirect ? get("direct") : Number.NaN;
    return [
      label,
      figure(ours),
      figure(haproxy),
      figure(direct),
      ratio(ours, haproxy),
      ratio(ours, direct),
      ratio(haproxy, direct),
    ];
  };
  const added = (metric: "p50" | "p99") => (name: PathName) => med(metric, name) - med(metric, "direct");
  const rows = [
    row("download throughput, MiB/s (higher is better)", "download"),
    row("upload throughput, MiB/s", "upload"),
    row(`new connections (wrk -c${RATE_CONNECTIONS}, Connection: close), req/s`, "rate"),
    row(`keep-alive p50 latency (wrk -c${LATENCY_CONNECTIONS}), ms (lower is better)`, "p50"),
    row("keep-alive p99 latency, ms", "p99"),
    row("added p50 latency vs direct, ms", added("p50"), false),
    row("added p99 latency vs direct, ms", added("p99"), false),
    row(`RSS per idle connection at ${small.toLocaleString("en-US")}, KiB`, "idleSmall", false),
    row(`RSS per idle connection at ${large.toLocaleString("en-US")}, KiB`, "idleLarge", false),
    row(`marginal RSS per idle connection ${small}->${large}, KiB`, "idleMarginal", false),
    row("CPU seconds per GiB, download", "cpuDownload", false),
    row("CPU seconds per GiB, upload", "cpuUpload", false),
  ];
  print(
    `RESULTS (medians of ${settings.rounds} interleaved rounds; idle memory: ${settings.idleRounds}; ` +
      `${navigator.hardwareConcurrency} cores shared by clients, backend and proxy)`,
  );
  print(
    renderTable(["metric", "ouroboros", "haproxy", "direct", "ours/hap", "ours/direct", "hap/direct"], rows),
  );
  print("(ratio = left figure / right figure; '-' = not applicable: direct has no proxy process)");
  print();

  const verdict = (ok: boolean) => ok ? "met    " : "NOT met";
  const r = (metric: Metric) => med(metric, "ouroboros") / med(metric, "haproxy");
  const addedOurs = med("p99", "ouroboros") - med("p99", "direct");
  const addedHaproxy = med("p99", "haproxy") - med("p99", "direct");
  print("Goals");
  print(`  ${verdict(r("download") >= 1)} download throughput >= HAProxy   (${r("download").toFixed(2)}x)`);
  print(`  ${verdict(r("upload") >= 1)} upload throughput >= HAProxy     (${r("upload").toFixed(2)}x)`);
  print(`  ${verdict(r("rate") >= 1)} connection rate >= HAProxy       (${r("rate").toFixed(2)}x)`);
  print(
    `  ${verdict(addedOurs <= addedHaproxy)} added p99 <= HAProxy's          ` +
      `(${figure(addedOurs)} ms vs ${figure(addedHaproxy)} ms)`,
  );
  print(
    `  ${verdict(r("idleLarge") <= 2)} idle memory <= 2x HAProxy's      (${
      r("idleLarge").toFixed(2)
    }x at ${large})`,
  );
}

if (import.meta.main) await main();
