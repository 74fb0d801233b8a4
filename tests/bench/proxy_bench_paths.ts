/**
 * The programs under test in the proxy benchmark and how each is started:
 *   - ours: `ouroboros proxy` as a child (`deno run -P=proxy main.ts proxy`), with
 *     `--workers=<n>` when the proxy offers that flag (detected from `proxy --help`);
 *   - HAProxy `mode tcp` with `server … send-proxy` (the hairpin-proxy set-up) at a given
 *     `nbthread`: 1 (today's comparison) and the machine's CPUs (how it ships);
 *   - the Go anchor (`go_relay/`): accept, dial, PROXY v1 header, two io.Copy goroutines,
 *     half-close; built with `go build` into a temp dir, skipped with a reason without Go.
 * Each proxy reaches nginx through its "http" listener and the sink through its "https" one.
 *
 * @module
 */

import { freePort, startHaproxy, waitForPort } from "../support/daemons.ts";
import { denoArgs, ROOT } from "../support/ouroboros_process.ts";
import { findTool } from "../support/tools.ts";
import { capture, HOST, withFdLimit } from "./proxy_bench_io.ts";
import { helpOffersWorkers, type PathInfo } from "./proxy_bench_report.ts";

/** One way to reach the backends; `pid` is the proxy process (absent for direct). */
export interface Target {
  readonly info: PathInfo;
  readonly pid?: number;
  /** Port leading to nginx (HTTP). */
  readonly httpPort: number;
  /** Port leading to the sink. */
  readonly sinkPort: number;
}

/** A started proxy process. */
export interface ProxyInstance extends Target {
  readonly pid: number;
  stop(): Promise<void>;
}

/** Where the proxies relay to: nginx's and the sink's PROXY-protocol ports. */
export interface Backends {
  readonly nginxPP: number;
  readonly sinkPP: number;
}

/** HAProxy's own descriptors on top of 2 × maxconn (listeners, pollers, stdio); measured 14 at 1 thread. */
export const HAPROXY_MAXCONN_SLACK = 32;

/** Whether this checkout's `ouroboros proxy` accepts `--workers` (another branch adds it). */
export async function proxyOffersWorkers(): Promise<boolean> {
  const { text } = await capture(Deno.execPath(), denoArgs("proxy", ["proxy", "--help"]), { cwd: ROOT });
  return helpOffersWorkers(text);
}

/** Spawns a relay child with the descriptor limit raised; resolves once both ports accept. */
async function spawnRelay(
  info: PathInfo,
  command: string,
  args: readonly string[],
  options: { ports: readonly [number, number]; cwd?: string; env?: Record<string, string> },
): Promise<ProxyInstance> {
  const [shell, shellArgs] = withFdLimit(command, args);
  const child = new Deno.Command(shell, {
    args: shellArgs,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { clearEnv: true, env: options.env }),
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
  const [http, https] = options.ports;
  try {
    await Promise.race([
      Promise.all([waitForPort(HOST, http, info.label), waitForPort(HOST, https, info.label)]),
      status.then((s) => {
        throw new Error(`${info.label} exited with ${s.code} before listening:\n${log}`);
      }),
    ]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { info, pid: child.pid, httpPort: http, sinkPort: https, stop };
}

/**
 * Starts `ouroboros proxy` with `--log-level=warn` (readiness is detected by polling the
 * listen ports) and, when `workers` is given, `--workers=<workers>`.
 */
export function startOurs(info: PathInfo, backends: Backends, workers?: number): Promise<ProxyInstance> {
  const http = freePort();
  const https = freePort();
  const health = freePort();
  const args = denoArgs("proxy", [
    "proxy",
    `--listen-http=${HOST}:${http}`,
    `--listen-https=${HOST}:${https}`,
    `--listen-health=${HOST}:${health}`,
    `--target-host=${HOST}`,
    `--target-http-port=${backends.nginxPP}`,
    `--target-https-port=${backends.sinkPP}`,
    "--log-level=warn",
    ...(workers === undefined ? [] : [`--workers=${workers}`]),
  ]);
  return spawnRelay(info, Deno.execPath(), args, {
    ports: [http, https],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
  });
}

/** The HAProxy configuration body (after startHaproxy's global/defaults), printed in the header. */
export function haproxyBody(
  ports: { http: number; https: number },
  options: Backends & { threads: number },
): string {
  return `global
  nbthread ${options.threads}
frontend fe_http
  bind ${HOST}:${ports.http}
  default_backend be_http
backend be_http
  server ingress ${HOST}:${options.nginxPP} send-proxy
frontend fe_https
  bind ${HOST}:${ports.https}
  default_backend be_https
backend be_https
  server sink ${HOST}:${options.sinkPP} send-proxy
`;
}

/** Starts HAProxy with `threads` threads and `maxconn`. */
export async function startHaproxyPath(
  info: PathInfo & { threads: number },
  backends: Backends,
  maxconn: number,
): Promise<ProxyInstance> {
  const http = freePort();
  const https = freePort();
  const daemon = await startHaproxy(
    haproxyBody({ http, https }, { ...backends, threads: info.threads }),
    [[HOST, http], [HOST, https]],
    maxconn,
  );
  return { info, pid: daemon.child.pid, httpPort: http, sinkPort: https, stop: () => daemon.stop() };
}

/** The Go anchor's binary, or why there is none. */
export type GoRelayBuild = { readonly binary: string; readonly version: string } | {
  readonly skipped: string;
};

/** Builds `go_relay/` into `dir` when `go` is on the PATH. */
export async function buildGoRelay(dir: string): Promise<GoRelayBuild> {
  const go = findTool("go");
  if (go === undefined) {
    return { skipped: "`go` is not on the PATH (Debian: apt-get install -y golang-go)" };
  }
  const source = new URL("./go_relay/", import.meta.url).pathname;
  const binary = `${dir}/go_relay`;
  const env: Record<string, string> = {};
  if (Deno.env.get("GOCACHE") === undefined && Deno.env.get("HOME") === undefined) {
    env.GOCACHE = `${dir}/gocache`;
  }
  const built = await capture(go, ["build", "-o", binary, "."], { cwd: source, env });
  if (built.code !== 0) return { skipped: `go build failed: ${built.text.trim()}` };
  const version = (await capture(go, ["version"])).text.trim();
  return { binary, version };
}

/** Starts the Go anchor relaying two fresh ports to nginx and the sink. */
export function startGoRelay(info: PathInfo, binary: string, backends: Backends): Promise<ProxyInstance> {
  const http = freePort();
  const https = freePort();
  return spawnRelay(info, binary, [
    `${HOST}:${http}=${HOST}:${backends.nginxPP}`,
    `${HOST}:${https}=${HOST}:${backends.sinkPP}`,
  ], { ports: [http, https] });
}
