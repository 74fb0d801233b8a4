/**
 * Starting a {@linkcode DnsServer} for a test: loopback, port 0, a recorded log, fresh metrics,
 * every query event kept, and one call to stop it and wait for the shutdown to finish.
 *
 * @module
 */

import { createDnsMetrics, type DnsMetrics } from "../../../lib/dns/dns_metrics.ts";
import type { LocalDecision, LocalQuestion } from "../../../lib/dns/local_answer.ts";
import { DnsServer, type DnsServerOptions } from "../../../lib/dns/server/dns_server.ts";
import type { DnsQueryEvent } from "../../../lib/dns/server/query_handler.ts";
import { systemClock } from "../../../lib/util/clock.ts";
import type { DnsEndpoint } from "../../support/dns_tools.ts";
import { LogRecorder } from "../../support/log_recorder.ts";

/** A running server and what it recorded. */
export interface TestServer extends AsyncDisposable {
  readonly server: DnsServer;
  readonly endpoint: DnsEndpoint;
  readonly events: DnsQueryEvent[];
  readonly metrics: DnsMetrics;
  readonly log: LogRecorder;
  /** Aborts `run` and waits for it to finish. */
  stop(): Promise<void>;
  /** The value of one sample line, such as `ouroboros_dns_queries_total{transport="udp",outcome="local"}`. */
  sample(series: string): number | undefined;
}

/** Answers `*.local.test` A questions with 10.0.0.1 (or, for `many.local.test`, 100 addresses); forwards the rest. */
export function testAnswerer(question: LocalQuestion): LocalDecision {
  if (!question.name.endsWith(".local.test")) return { kind: "forward" };
  const many = question.name === "many.local.test";
  const addresses = question.type !== "A"
    ? []
    : many
    ? Array.from({ length: 100 }, (_, i) => `10.0.${i >> 8}.${i & 0xff}`)
    : ["10.0.0.1"];
  return { kind: "local", source: "hairpin", ttl: 30, addresses };
}

/** Starts a server with `testAnswerer`, `upstreams` and any other option overridden. */
export async function startTestServer(
  options: Partial<DnsServerOptions> & Pick<DnsServerOptions, "upstreams">,
): Promise<TestServer> {
  const events: DnsQueryEvent[] = [];
  const metrics = createDnsMetrics({ rss: () => 0, version: "test" });
  const log = new LogRecorder();
  const server = await DnsServer.start({
    listen: { host: "127.0.0.1", port: 0 },
    answer: testAnswerer,
    maxUdpPayload: 1232,
    upstreamTimeoutMs: 2_000,
    tcpIdleTimeoutMs: 10_000,
    clock: systemClock,
    log,
    metrics,
    observe: (event) => events.push(event),
    ...options,
  });
  const abort = new AbortController();
  const running = server.run(abort.signal);
  const stop = async () => {
    abort.abort();
    await running;
  };
  return {
    server,
    endpoint: { host: "127.0.0.1", port: server.port },
    events,
    metrics,
    log,
    stop,
    [Symbol.asyncDispose]: stop,
    sample: (series) => {
      const line = metrics.registry.render().split("\n").find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    },
  };
}
