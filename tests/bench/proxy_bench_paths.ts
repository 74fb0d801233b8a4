/**
 * The programs under test in the proxy benchmark and how each is started:
 *   - ours: `ouroboros proxy` as a child (`deno run -P=proxy main.ts proxy`), with
 *     `--workers=<n>` when the proxy offers that flag (detected from `proxy --help`); once more at
 *     one worker with `--routes-file` (a 200-route table whose backends are the same targets, and
 *     wrk's `Host` one of its names), to price routing against the same proxy without it;
 *   - HAProxy `mode tcp` with `server … send-proxy` (the hairpin-proxy set-up) at a given
 *     `nbthread`: 1 (today's comparison) and the machine's CPUs (how it ships);
 *   - the Go anchor (`go_relay/`): accept, dial, PROXY v1 header, two io.Copy goroutines,
 *     half-close; built with `go build` into a temp dir, skipped with a reason without Go.
 * Each proxy reaches nginx through its "http" listener and the sink through its "https" one.
 *
 * @module
 */

import { freePort, startHaproxy, waitForPort } from "../support/daemons.ts";
import { denoArgs, permissionFlags, ROOT } from "../support/ouroboros_process.ts";
import { renderRouteTable, type RouteBackend, type RouteTable } from "../../lib/routes/route_table.ts";
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
export async function startOurs(
  info: PathInfo,
  backends: Backends,
  options: { workers?: number; routesDir?: string } = {},
): Promise<ProxyInstance> {
  const { workers, routesDir } = options;
  const http = freePort();
  const https = freePort();
  const health = freePort();
  const routesFile = routesDir === undefined ? undefined : await writeBenchRoutes(routesDir, backends);
  const permissions = routesDir === undefined ? "proxy" : permissionFlags("proxy", routesDir);
  const args = denoArgs(permissions, [
    "proxy",
    `--listen-http=${HOST}:${http}`,
    `--listen-https=${HOST}:${https}`,
    `--listen-health=${HOST}:${health}`,
    `--target-host=${HOST}`,
    `--target-http-port=${backends.nginxPP}`,
    `--target-https-port=${backends.sinkPP}`,
    "--log-level=warn",
    ...(workers === undefined ? [] : [`--workers=${workers}`]),
    ...(routesFile === undefined ? [] : [`--routes-file=${routesFile}`]),
  ]);
  return await spawnRelay(info, Deno.execPath(), args, {
    ports: [http, https],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
  });
}

/** The Host every wrk request sends: an exact route of the bench table. */
export const BENCH_HOST = "app.bench.example.com";

/**
 * A route table of 100 exact names and 100 wildcards, every backend the same nginx and sink as
 * the default target, so a routed path relays to the same places: `BENCH_HOST` is one of them.
 */
async function writeBenchRoutes(dir: string, backends: Backends): Promise<string> {
  const routes: RouteTable["routes"][number][] = [];
  const names = new Map<string, RouteBackend>();
  for (let i = 0; i < 100; i++) {
    const backend = `bench/ingress-${i % 4}`;
    names.set(backend, {
      address: HOST,
      httpPort: backends.nginxPP,
      httpsPort: backends.sinkPP,
      proxyProtocol: "v1",
    });
    routes.push({ host: i === 0 ? BENCH_HOST : `app${i}.bench.example.com`, backend });
    routes.push({ host: `*.zone${i}.example.com`, backend });
  }
  const path = `${dir}/routes.json`;
  await Deno.writeTextFile(path, renderRouteTable({ routes, backends: names }));
  return path;
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
