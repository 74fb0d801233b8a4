/**
 * One query, bytes to response bytes, for UDP and TCP alike. Errors and local answers are
 * synchronous, so the common case costs no promise; the rest is forwarded.
 *
 * Effects: calls the answerer and the forwarder, records metrics, logs failures (throttled).
 *
 * @module
 */

import { type DnsMetrics, QUERY_OUTCOMES, type QueryOutcome } from "../dns_metrics.ts";
import type { LocalAnswerer, LocalDecision, LocalSource } from "../local_answer.ts";
import type { Forwarder } from "../upstream/forwarder.ts";
import { buildAddressResponse, buildErrorResponse } from "../wire/build_response.ts";
import { classifyQuery, type ParsedQuery, RCODE, type Transport } from "../wire/classify_query.ts";
import { TYPE_A, TYPE_AAAA } from "../wire/record_type_name.ts";
import type { Clock } from "../../util/clock.ts";
import { parseIp } from "../../util/ip.ts";
import type { Log } from "../../util/logging.ts";
import type { HistogramSeries, NumberSeries } from "../../util/metrics.ts";
import { Throttle } from "../../util/throttle.ts";

/** What the observer hook hears about each query. */
export interface DnsQueryEvent {
  readonly transport: Transport;
  readonly outcome: QueryOutcome;
  /** IPv4-mapped IPv6 given as IPv4. */
  readonly client: string;
  /** Set when the query got as far as the answerer. */
  readonly name?: string;
  readonly type?: string;
  /** For local answers. */
  readonly source?: LocalSource;
  /** Why the query was dropped or rejected, or why forwarding failed. */
  readonly reason?: string;
  /** The response went out with TC set. */
  readonly truncated: boolean;
  readonly durationMs: number;
}

/** What a {@linkcode QueryHandler} needs. */
export interface QueryHandlerOptions {
  readonly answerer: LocalAnswerer;
  readonly forwarder: Pick<Forwarder, "forward">;
  readonly maxUdpPayload: number;
  readonly clock: Clock;
  readonly log: Log;
  readonly metrics: DnsMetrics;
  readonly observe?: (event: DnsQueryEvent) => void;
}

/** A response to send, or nothing (the packet is dropped). */
export type HandlerResult = Uint8Array | undefined;

/** Parsed addresses by their text: answerers hand out the same few strings again and again. */
const ADDRESS_CACHE_LIMIT = 4_096;

/** Turns query bytes into response bytes; the `answerer` can be swapped at any time. */
export class QueryHandler {
  /** The answerer consulted for every question from now on. */
  answerer: LocalAnswerer;
  readonly #options: QueryHandlerOptions;
  readonly #outcomes: Record<Transport, Record<QueryOutcome, NumberSeries>>;
  readonly #truncated: Record<Transport, NumberSeries>;
  readonly #sources: Record<LocalSource, NumberSeries>;
  readonly #durations: Record<"local" | "upstream", HistogramSeries>;
  readonly #throttle: Throttle;
  readonly #addresses = new Map<string, Uint8Array | undefined>();

  /** Resolves the metric series once, so recording a query costs no look-up. */
  constructor(options: QueryHandlerOptions) {
    this.answerer = options.answerer;
    this.#options = options;
    const { metrics } = options;
    const series = (transport: Transport) => {
      const out = {} as Record<QueryOutcome, NumberSeries>;
      for (const outcome of QUERY_OUTCOMES) out[outcome] = metrics.queries.labels({ transport, outcome });
      return out;
    };
    this.#outcomes = { udp: series("udp"), tcp: series("tcp") };
    this.#truncated = {
      udp: metrics.truncated.labels({ transport: "udp" }),
      tcp: metrics.truncated.labels({ transport: "tcp" }),
    };
    this.#sources = {
      records: metrics.localAnswers.labels({ source: "records" }),
      "par-proxy": metrics.localAnswers.labels({ source: "par-proxy" }),
      hairpin: metrics.localAnswers.labels({ source: "hairpin" }),
    };
    this.#durations = {
      local: metrics.duration.labels({ path: "local" }),
      upstream: metrics.duration.labels({ path: "upstream" }),
    };
    this.#throttle = new Throttle(options.clock, 10_000);
  }

  /** The response to `bytes`; a promise (never rejecting) only for forwarded queries. */
  handle(
    bytes: Uint8Array,
    context: { transport: Transport; client: string },
  ): HandlerResult | Promise<HandlerResult> {
    const started = this.#options.clock.now();
    const { transport, client } = context;
    const verdict = classifyQuery(bytes, { transport, maxUdpPayload: this.#options.maxUdpPayload });
    if (verdict.kind === "drop") {
      this.#record(
        { transport, client, outcome: "dropped", reason: verdict.reason, started },
        undefined,
        "local",
      );
      return undefined;
    }
    const { maxUdpPayload } = this.#options;
    if (verdict.kind === "reject") {
      const response = buildErrorResponse(verdict.query, { rcode: verdict.rcode, maxUdpPayload });
      this.#record(
        { transport, client, outcome: verdict.outcome, reason: verdict.reason, started },
        response,
        "local",
      );
      return response;
    }
    const { query, question, type } = verdict;
    let decision: LocalDecision;
    try {
      decision = this.answerer(question, client);
    } catch (error) {
      const decision = this.#throttle.check("answerer");
      if (decision.emit) this.#options.log.error("the answerer failed; answering SERVFAIL", { error });
      const response = buildErrorResponse(query, { rcode: RCODE.SERVFAIL, maxUdpPayload });
      this.#record(
        { transport, client, outcome: "servfail", reason: "answerer failed", started },
        response,
        "local",
      );
      return response;
    }
    const event = { transport, client, name: question.name, type: question.type, started };
    if (decision.kind === "local") {
      const addresses = this.#addressBytes(decision.addresses, type);
      const built = buildAddressResponse(query, { type, ttl: decision.ttl, addresses, maxUdpPayload });
      this.#sources[decision.source].value += 1;
      const outcome = addresses.length > 0 ? "local" : "nodata";
      this.#record({ ...event, outcome, source: decision.source }, built.bytes, "local");
      return built.bytes;
    }
    return this.#forward(query, event);
  }

  async #forward(
    query: ParsedQuery,
    event: { transport: Transport; client: string; name: string; type: string; started: number },
  ): Promise<HandlerResult> {
    const result = await this.#options.forwarder.forward(query);
    if (result.kind === "answer") {
      this.#record({ ...event, outcome: "forwarded" }, result.bytes, "upstream");
      return result.bytes;
    }
    const decision = this.#throttle.check("upstream");
    if (decision.emit) {
      this.#options.log.warn("no upstream answered; answering SERVFAIL", {
        reason: result.reason,
        suppressed: decision.suppressed,
      });
    }
    const response = buildErrorResponse(query, {
      rcode: RCODE.SERVFAIL,
      maxUdpPayload: this.#options.maxUdpPayload,
    });
    this.#record({ ...event, outcome: "servfail", reason: result.reason }, response, "upstream");
    return response;
  }

  #addressBytes(addresses: readonly string[], type: number): Uint8Array[] {
    const size = type === TYPE_A ? 4 : type === TYPE_AAAA ? 16 : 0;
    if (size === 0 || addresses.length === 0) return [];
    const out: Uint8Array[] = [];
    for (const text of addresses) {
      let bytes = this.#addresses.get(text);
      if (bytes === undefined && !this.#addresses.has(text)) {
        if (this.#addresses.size >= ADDRESS_CACHE_LIMIT) this.#addresses.clear();
        bytes = parseIp(text)?.bytes;
        this.#addresses.set(text, bytes);
      }
      if (bytes !== undefined && bytes.length === size) out.push(bytes);
    }
    return out;
  }

  #record(
    event: {
      transport: Transport;
      client: string;
      outcome: QueryOutcome;
      started: number;
      name?: string;
      type?: string;
      source?: LocalSource;
      reason?: string;
    },
    response: Uint8Array | undefined,
    path: "local" | "upstream",
  ): void {
    const { clock, observe } = this.#options;
    this.#outcomes[event.transport][event.outcome].value += 1;
    const truncated = response !== undefined && (response[2]! & 0x02) !== 0;
    if (truncated) this.#truncated[event.transport].value += 1;
    if (event.outcome === "dropped" && observe === undefined) return;
    const durationMs = clock.now() - event.started;
    if (event.outcome !== "dropped") this.#durations[path].observe(durationMs / 1000);
    if (observe === undefined) return;
    const { started: _, ...rest } = event;
    observe({ ...rest, truncated, durationMs });
  }
}
