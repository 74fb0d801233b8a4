/**
 * The DNS servers `dns_bench.ts` compares, started on loopback as separate processes: ours
 * (`ouroboros dns` against a fake API server that holds the bench's cluster), and unbound with
 * a generated configuration. dnsmasq (the upstream and the peer) comes from
 * `tests/support/dns_tools.ts`.
 *
 * Effects: starts child processes and an in-process fake API server, writes configuration files
 * into a folder the caller owns; every `stop()` kills with SIGKILL and waits for the exit.
 *
 * @module
 */

import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { writeKubeconfig } from "../support/kubeconfig.ts";
import { denoArgs, ROOT } from "../support/ouroboros_process.ts";
import { type DnsEndpoint, freeDnsPort, queryDns } from "../support/dns_tools.ts";
import { freePort, waitForPort } from "../support/daemons.ts";
import { requireTool } from "../support/tools.ts";
import { waitFor } from "../support/wait.ts";

/** A DNS server under test. */
export interface BenchServer {
  readonly endpoint: DnsEndpoint;
  readonly pid: number;
  /** Kills it (SIGKILL) and waits for the exit; safe to call twice. */
  stop(): Promise<void>;
}

/** Local names, their answer, and where everything else goes: the same for every server. */
export interface BenchZone {
  /** Names answered by the server itself (A only). */
  readonly localNames: readonly string[];
  /** The address every local name resolves to (the proxy Service's ClusterIP). */
  readonly localAddress: string;
  /** TTL of the local answers, seconds. */
  readonly ttl: number;
  readonly upstream: DnsEndpoint;
}

const TOKEN = "dns-bench-token";
const NAMESPACE = "ouroboros";

/** Spawns `command`, keeps its stderr, and gives a stop that tolerates an early exit. */
function spawnKept(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string> },
) {
  const child = new Deno.Command(command, {
    args: [...args],
    cwd: options.cwd,
    clearEnv: true,
    env: { NO_COLOR: "1", ...(options.env ?? {}) },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  const drain = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (log += chunk) }),
  );
  const status = Promise.all([child.status, drain]).then(([s]) => s);
  let stopped = false;
  return {
    child,
    status,
    log: () => log,
    async stop(): Promise<void> {
      if (!stopped) {
        stopped = true;
        try {
          child.kill("SIGKILL");
        } catch { /* exited already */ }
      }
      await status;
    },
  };
}

/** Races `ready` against the process's exit, stopping the process when start-up fails. */
async function started(
  process: ReturnType<typeof spawnKept>,
  name: string,
  ready: Promise<unknown>,
): Promise<void> {
  try {
    await Promise.race([
      ready,
      process.status.then((s) => {
        throw new Error(`${name} exited with ${s.code} during start-up:\n${process.log()}`);
      }),
    ]);
  } catch (error) {
    await process.stop();
    throw error;
  }
}

/** Options for {@linkcode startOurs}. */
export interface StartOursOptions {
  /** The client address the load comes from: a Running Pod gets it, so the load is in scope. */
  readonly client: string;
  /** `--cache-size` (default 0: every forwarded query is forwarded, as the peers do). */
  readonly cacheSize?: number;
}

/**
 * The fake cluster and `ouroboros dns` on a free port (`--log-level=warn`, no drain delay),
 * ready when /readyz is 200 and the last local name is answered locally for `options.client`.
 * `stop()` stops the process, the fake API server, and removes its kubeconfig folder.
 */
export async function startOurs(
  zone: BenchZone,
  options: StartOursOptions,
): Promise<BenchServer & { readonly args: readonly string[] }> {
  const server = await startFakeApiServer({ token: TOKEN, bookmarkIntervalMs: 0 });
  const dir = await Deno.makeTempDir({ prefix: "ouroboros-dns-bench-" });
  const cleanupCluster = async () => {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  };
  let process: ReturnType<typeof spawnKept> | undefined;
  try {
    const kubeconfig = await writeKubeconfig(`${dir}/kubeconfig`, { server: server.url, token: TOKEN });
    server.create({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { namespace: "bench", name: "load-client", labels: { app: "load" } },
      spec: { containers: [{ name: "main", image: "dnsperf" }] },
      status: { phase: "Running", podIP: options.client, podIPs: [{ ip: options.client }] },
    });
    server.create({
      apiVersion: "v1",
      kind: "Service",
      metadata: { namespace: NAMESPACE, name: "ouroboros-proxy" },
      spec: {
        type: "ClusterIP",
        clusterIP: zone.localAddress,
        clusterIPs: [zone.localAddress],
        ports: [{ port: 443 }],
      },
    });
    for (const [index, name] of zone.localNames.entries()) {
      server.create({
        apiVersion: "networking.k8s.io/v1",
        kind: "Ingress",
        metadata: { namespace: "bench", name: `site-${index}` },
        spec: { tls: [{ hosts: [name] }], rules: [{ host: name }] },
      });
    }
    const port = await freeDnsPort();
    const health = freePort();
    const args = [
      "dns",
      `--listen-dns=127.0.0.1:${port}`,
      `--listen-health=127.0.0.1:${health}`,
      `--upstream=${zone.upstream.host}:${zone.upstream.port}`,
      `--kubeconfig=${kubeconfig}`,
      `--ttl=${zone.ttl}s`,
      "--drain-delay=0s",
      // 0 unless asked: every forwarded query must really be forwarded, as for the peers.
      `--cache-size=${options.cacheSize ?? 0}`,
      "--log-level=warn",
    ];
    const command = denoArgs("dns", args);
    // POD_NAMESPACE and HOSTNAME as the chart sets them; spawnKept clears the rest.
    process = spawnKept(Deno.execPath(), command, {
      cwd: ROOT,
      env: { POD_NAMESPACE: NAMESPACE, HOSTNAME: "ouroboros-dns-bench" },
    });
    await started(
      process,
      "ouroboros dns",
      waitFor("ouroboros dns /readyz to answer 200", async () => {
        try {
          const response = await fetch(`http://127.0.0.1:${health}/readyz`);
          await response.body?.cancel();
          return response.status === 200;
        } catch {
          return false;
        }
      }, { timeoutMs: 30_000, intervalMs: 50 }),
    );
    const endpoint = { host: "127.0.0.1", port };
    const last = zone.localNames.at(-1) ?? "";
    await waitFor(`ours to answer ${last} locally`, async () => {
      const [reply] = await queryDns(endpoint, [{ name: last }], { source: options.client });
      return reply?.answers.some((record) => record.data === zone.localAddress) ?? false;
    }, { timeoutMs: 20_000, intervalMs: 100 });
    const running = process;
    return {
      endpoint,
      pid: running.child.pid,
      args: ["deno", ...command.map((arg) => arg.replace(ROOT, ""))],
      async stop() {
        await running.stop();
        await cleanupCluster().catch(() => {});
      },
    };
  } catch (error) {
    await process?.stop();
    await cleanupCluster().catch(() => {});
    throw error;
  }
}

/** What {@linkcode unboundConfig} needs besides the zone. */
export interface UnboundSettings {
  readonly port: number;
  /** unbound's working directory (its `directory:`). */
  readonly dir: string;
}

/**
 * unbound's configuration for the bench: one thread, foreground, no chroot/user/pidfile/syslog,
 * iterator only (no validator: there is no trust anchor and the others do not validate), the
 * local names as `static` zones, everything else forwarded to the upstream, and the caches
 * shrunk to nothing with a maximum TTL of 0 so forwarded answers are forwarded (the bench
 * verifies this with the upstream's counters).
 *
 * Pure.
 */
export function unboundConfig(zone: BenchZone, settings: UnboundSettings): string {
  const lines = [
    "server:",
    `  interface: 127.0.0.1@${settings.port}`,
    `  port: ${settings.port}`,
    "  do-ip6: no",
    "  do-daemonize: no",
    '  chroot: ""',
    '  username: ""',
    '  pidfile: ""',
    `  directory: "${settings.dir}"`,
    "  use-syslog: no",
    '  logfile: ""',
    "  verbosity: 0",
    "  num-threads: 1",
    '  module-config: "iterator"',
    "  qname-minimisation: no",
    "  do-not-query-localhost: no",
    "  access-control: 127.0.0.0/8 allow",
    "  msg-cache-size: 0",
    "  rrset-cache-size: 0",
    "  key-cache-size: 0",
    "  neg-cache-size: 0",
    "  cache-max-ttl: 0",
    "  cache-max-negative-ttl: 0",
    "  prefetch: no",
    "  serve-expired: no",
  ];
  for (const name of zone.localNames) {
    lines.push(`  local-zone: "${name}." static`);
    lines.push(`  local-data: "${name}. ${zone.ttl} IN A ${zone.localAddress}"`);
  }
  lines.push(
    "forward-zone:",
    '  name: "."',
    `  forward-addr: ${zone.upstream.host}@${zone.upstream.port}`,
    "",
  );
  return lines.join("\n");
}

/** Starts `unbound -d -c <dir>/unbound.conf` on a free port; ready when it accepts TCP. */
export async function startUnbound(zone: BenchZone, dir: string): Promise<BenchServer & { config: string }> {
  const unbound = requireTool("unbound");
  const port = await freeDnsPort();
  const config = unboundConfig(zone, { port, dir });
  const path = `${dir}/unbound.conf`;
  await Deno.writeTextFile(path, config);
  const process = spawnKept(unbound, ["-d", "-c", path], { cwd: dir });
  await started(process, "unbound", waitForPort("127.0.0.1", port, "unbound", 15_000));
  return { endpoint: { host: "127.0.0.1", port }, pid: process.child.pid, config, stop: process.stop };
}
