/**
 * Backends and clients of the proxy benchmarks (`proxy_bench.ts`, `proxy_tail.ts`), identical for
 * every path measured: nginx ({@linkcode startBenchNginx}: small body, large file), the Python sink
 * that counts bytes after an optional PROXY header, the Python idle-connection holder, the bulk
 * download/upload client, and the large test file.
 *
 * Decision: the sink and the clients are separate processes (`bench_peer.py`), so their
 * descriptors and CPU time never count against the proxy under test.
 *
 * @module
 */

import { freePort, startNginx } from "../support/daemons.ts";
import { capture, HOST, lineReader, withFdLimit } from "./proxy_bench_io.ts";

const PEER = new URL("./bench_peer.py", import.meta.url).pathname;
const MIB = 1024 * 1024;
/** The body nginx serves at /small. */
export const SMALL_BODY = "hello from the benchmark backend\n";

/** Runs one `bench_peer.py download|upload` and returns what it moved and how long it took. */
export async function peerJson(args: readonly string[]): Promise<{ bytes: number; seconds: number }> {
  const { code, text } = await capture("python3", [PEER, ...args]);
  if (code !== 0) throw new Error(`bench_peer.py ${args.join(" ")} failed (${code}): ${text}`);
  return JSON.parse(text) as { bytes: number; seconds: number };
}

/** Counters of the sink's control port. */
export interface SinkStats {
  readonly accepted: number;
  /** Connections open now whose PROXY header (if expected) has arrived. */
  readonly ready: number;
  readonly bytes: number;
}

/** A running sink: `pp` strips a PROXY header, `plain` does not. */
export interface Sink {
  readonly pp: number;
  readonly plain: number;
  stats(): Promise<SinkStats>;
  stop(): Promise<void>;
}

/** Starts the Python sink with the descriptor limit raised (it holds every idle connection). */
export async function startSink(): Promise<Sink> {
  const [command, args] = withFdLimit("python3", [PEER, "sink"]);
  const child = new Deno.Command(command, { args, stdin: "null", stdout: "piped", stderr: "inherit" })
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

/** A client process holding idle connections to one port. */
export interface Holder {
  /** Opens connections until `total` are open; resolves when the client has connected them all. */
  openTo(total: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts `bench_peer.py hold` against `port`, with the descriptor limit raised. */
export function startHolder(port: number): Holder {
  const [command, args] = withFdLimit("python3", [PEER, "hold", HOST, String(port)]);
  const child = new Deno.Command(command, { args, stdin: "piped", stdout: "piped", stderr: "inherit" })
    .spawn();
  const writer = child.stdin.getWriter();
  const lines = lineReader(child.stdout);
  const encoder = new TextEncoder();
  let open = 0;
  return {
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

/** Writes `mib` MiB of random bytes (each MiB slightly different, so nothing can dedupe it). */
export async function writeBigFile(path: string, mib: number): Promise<void> {
  const chunk = new Uint8Array(MIB);
  for (let offset = 0; offset < chunk.length; offset += 65_536) {
    crypto.getRandomValues(chunk.subarray(offset, offset + 65_536));
  }
  using file = await Deno.open(path, { write: true, create: true, truncate: true });
  for (let i = 0; i < mib; i++) {
    chunk[0] = i & 0xff;
    chunk[1] = (i >> 8) & 0xff;
    let offset = 0;
    while (offset < chunk.length) offset += await file.write(chunk.subarray(offset));
  }
}

/** nginx's `http {}` body: a PROXY-protocol listener and a plain one, /small, /whoami, files. */
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

/** The benchmarks' nginx: its PROXY-protocol and plain ports on {@linkcode HOST}. */
export interface BenchNginx {
  /** Takes a PROXY header first. */
  readonly pp: number;
  readonly plain: number;
  /** Stops nginx and removes its configuration folder. */
  stop(): Promise<void>;
}

/**
 * Starts nginx (one process, sendfile) serving {@linkcode SMALL_BODY} at /small, the PROXY
 * header's source at /whoami and the files under `root`, on two fresh ports; returns once both
 * accept connections.
 */
export async function startBenchNginx(root: string): Promise<BenchNginx> {
  const pp = freePort(HOST);
  const plain = freePort(HOST);
  const daemon = await startNginx(nginxHttpBlock(root, pp, plain), [[HOST, pp], [HOST, plain]]);
  return { pp, plain, stop: () => daemon.stop() };
}
