/**
 * What our own code costs per local DNS answer, for `bench:dns`: the server's query handler
 * (parse, decide, build the response, count it) run in-process over the benchmark's local names,
 * beside the floor of issue 32's "prebuilt answers" lever (copy a finished response of the same
 * size and patch its ID and question). The difference is the most that lever could save per
 * query; the server's whole CPU per answer, sockets included, is in `bench:dns`'s own table.
 *
 * Effects: none but time (a CPU-bound loop in this process).
 *
 * @module
 */

import { createDnsMetrics } from "../../lib/dns/dns_metrics.ts";
import { QueryHandler } from "../../lib/dns/server/query_handler.ts";
import { systemClock } from "../../lib/util/clock.ts";
import { logger } from "../../lib/util/logging.ts";
import { encodeQuery } from "../support/dns_tools.ts";
import { median } from "./bench_report.ts";

/** Microseconds per query, medians over the rounds. */
export interface AnswerCost {
  readonly handlerUs: number;
  readonly patchedUs: number;
}

/** Times `queries` local answers per round through the handler and as patched copies. */
export function measureAnswerCost(
  options: { names: readonly string[]; address: string; client: string; queries: number; rounds: number },
): AnswerCost {
  const answers = new Map(options.names.map((name) => [name, [options.address]]));
  const handler = new QueryHandler({
    answerer: (question) => {
      const addresses = answers.get(question.name);
      return addresses === undefined
        ? { kind: "forward" }
        : { kind: "local", source: "hairpin", ttl: 30, addresses };
    },
    forwarder: { forward: () => Promise.resolve({ kind: "failed", reason: "not used" }) },
    maxUdpPayload: 1232,
    clock: systemClock,
    log: logger("bench"),
    metrics: createDnsMetrics({ rss: () => 0, version: "bench" }),
  });
  const packets = options.names.map((name, i) => encodeQuery(name, { id: i + 1 }));
  const context = { transport: "udp", client: options.client } as const;
  const respond = (packet: Uint8Array) => {
    const response = handler.handle(packet, context);
    if (!(response instanceof Uint8Array)) throw new Error("a local name was not answered locally");
    return response;
  };
  const prebuilt = packets.map(respond);
  const handlerUs: number[] = [];
  const patchedUs: number[] = [];
  let sink = 0;
  for (let round = 0; round < options.rounds; round++) {
    let started = performance.now();
    for (let i = 0; i < options.queries; i++) sink += respond(packets[i % packets.length]!).length;
    handlerUs.push((performance.now() - started) * 1000 / options.queries);
    started = performance.now();
    for (let i = 0; i < options.queries; i++) {
      const packet = packets[i % packets.length]!;
      const out = prebuilt[i % prebuilt.length]!.slice();
      out[0] = packet[0]!;
      out[1] = packet[1]!;
      out.set(packet.subarray(12), 12);
      sink += out.length;
    }
    patchedUs.push((performance.now() - started) * 1000 / options.queries);
  }
  if (sink === 0) throw new Error("no response was built");
  return { handlerUs: median(handlerUs), patchedUs: median(patchedUs) };
}
