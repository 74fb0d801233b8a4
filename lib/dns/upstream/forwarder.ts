/**
 * Forwards a question the cluster state does not answer to the upstreams: UDP, then TCP when the
 * reply is truncated and the client can take more. With no reply the caller answers SERVFAIL,
 * never an empty NOERROR (which clients would cache as "no address").
 * Attempts: one per upstream and at least two (one lost packet), starting with the upstream that
 * answered last, so a dead first upstream costs one timeout, not one per query. With a cache, a
 * question answered before is answered from it until its TTL runs out (`answer_cache.ts`).
 *
 * Effects: UDP and TCP exchanges with the upstreams; time through the injected clock.
 *
 * @module
 */

import type { UpstreamErrorReason } from "../dns_metrics.ts";
import type { ParsedQuery } from "../wire/classify_query.ts";
import { relayReply, type ReplyVerdict } from "../wire/relay_reply.ts";
import { rootProbeQuery, upstreamQuery, upstreamUdpLimit } from "../wire/upstream_query.ts";
import type { Clock } from "../../util/clock.ts";
import { formatDuration } from "../../util/duration.ts";
import { parseIp } from "../../util/ip.ts";
import { formatHostPort } from "../../util/listen_address.ts";
import type { AnswerCache } from "./answer_cache.ts";
import { tcpExchange } from "./tcp_exchange.ts";
import { type UpstreamEndpoint, UpstreamSocketPool } from "./upstream_socket_pool.ts";

/** What forwarding one query came to. */
export type ForwardResult =
  | {
    readonly kind: "answer";
    readonly bytes: Uint8Array;
    /** Truncated by us to the client's limit. */
    readonly truncated: boolean;
    readonly rcode: number;
  }
  | { readonly kind: "failed"; readonly reason: string };

/** Options for {@linkcode Forwarder}. */
export interface ForwarderOptions {
  /** At least one; IP addresses only. */
  readonly upstreams: readonly UpstreamEndpoint[];
  /** Our UDP receive size, sent in forwarded OPT records and advertised to clients. */
  readonly maxUdpPayload: number;
  /** Per attempt, UDP or TCP. */
  readonly timeoutMs: number;
  readonly clock: Clock;
  /** Numbers in [0, 1) for query IDs. */
  readonly random: () => number;
  /** Told about every failed exchange (metrics, throttled logs). */
  readonly onError?: (reason: UpstreamErrorReason, upstream: UpstreamEndpoint, detail: string) => void;
  /** UDP sockets per upstream at once (default 1). */
  readonly socketsPerUpstream?: number;
  /** Queries per socket before it is replaced by one on a new port (default 1,024). */
  readonly rotateAfter?: number;
  /** Answers questions asked before; none: every question goes upstream. */
  readonly cache?: AnswerCache;
  /** Told about every cache lookup and store, with the cache after it (metrics). */
  readonly onCache?: (event: "hit" | "miss" | "stored", cache: AnswerCache) => void;
}

/** Whether an upstream answers at all, for readiness. */
export type ProbeResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** Forwards queries to a list of upstreams. */
export class Forwarder {
  readonly #options: ForwarderOptions;
  readonly #pools: readonly UpstreamSocketPool[];
  #preferred = 0;

  /** Sockets open on first use. Throws a `TypeError` on no upstream or one not an IP address. */
  constructor(options: ForwarderOptions) {
    if (options.upstreams.length === 0) throw new TypeError("Forwarder needs at least one upstream");
    // A name would be resolved on every send, and replies from its address would never match.
    const named = options.upstreams.find((upstream) => parseIp(upstream.host) === undefined);
    if (named !== undefined) throw new TypeError(`upstream "${named.host}" is not an IP address`);
    this.#options = options;
    this.#pools = options.upstreams.map((upstream) =>
      new UpstreamSocketPool(upstream, {
        clock: options.clock,
        random: options.random,
        timeoutMs: options.timeoutMs,
        ...(options.socketsPerUpstream === undefined ? {} : { size: options.socketsPerUpstream }),
        ...(options.rotateAfter === undefined ? {} : { rotateAfter: options.rotateAfter }),
      })
    );
  }

  /** UDP sockets open towards the upstreams now. */
  openSockets(): number {
    return this.#pools.reduce((sum, pool) => sum + pool.openSockets(), 0);
  }

  /** Forwards `query` until an upstream answers or every attempt failed. */
  async forward(query: ParsedQuery): Promise<ForwardResult> {
    const { cache, onCache } = this.#options;
    if (cache !== undefined) {
      const found = cache.lookup(query);
      onCache?.(found.kind, cache);
      if (found.kind === "hit") {
        return { kind: "answer", bytes: found.bytes, truncated: found.truncated, rcode: found.rcode };
      }
    }
    const result = await this.#forwardUpstream(query);
    if (cache !== undefined && result.kind === "answer" && !result.truncated) {
      cache.store(query, result.bytes, result.rcode);
      onCache?.("stored", cache);
    }
    return result;
  }

  async #forwardUpstream(query: ParsedQuery): Promise<ForwardResult> {
    const count = this.#pools.length;
    const attempts = Math.max(2, count);
    const start = this.#preferred;
    const reasons: string[] = [];
    for (let attempt = 0; attempt < attempts; attempt++) {
      const index = (start + attempt) % count;
      const result = await this.#attempt(this.#pools[index]!, query);
      if (result.kind === "answer") {
        this.#preferred = index;
        return result;
      }
      reasons.push(result.reason);
    }
    return { kind: "failed", reason: reasons.join("; ") };
  }

  #fail(reason: UpstreamErrorReason, pool: UpstreamSocketPool, detail: string): ForwardResult {
    this.#options.onError?.(reason, pool.endpoint, detail);
    const { host, port } = pool.endpoint;
    return { kind: "failed", reason: `${formatHostPort(host, port)}: ${detail}` };
  }

  async #attempt(pool: UpstreamSocketPool, query: ParsedQuery): Promise<ForwardResult> {
    const { maxUdpPayload, timeoutMs, clock } = this.#options;
    let verdict: ReplyVerdict | undefined;
    let sentId = 0;
    const result = await pool.exchange({
      build: (id) => {
        sentId = id;
        return upstreamQuery(query, { id, maxUdpPayload });
      },
      accept: (reply) => {
        const checked = relayReply(reply, { query, sentId, maxUdpPayload });
        if (checked.kind === "reject") {
          this.#options.onError?.(checked.reason, pool.endpoint, checked.detail);
          return false;
        }
        verdict = checked;
        return true;
      },
    });
    if (result.kind === "timeout") {
      return this.#fail("timeout", pool, `no reply within ${formatDuration(timeoutMs)}`);
    }
    if (result.kind === "failed" || verdict === undefined || verdict.kind !== "relay") {
      return this.#fail("send", pool, result.kind === "failed" ? result.message : "no reply");
    }
    if (!verdict.upstreamTruncated || upstreamUdpLimit(query, maxUdpPayload) >= query.limit) {
      return { kind: "answer", bytes: verdict.bytes, truncated: verdict.truncated, rcode: verdict.rcode };
    }
    const id = Math.floor(this.#options.random() * 0x10000) & 0xffff;
    const tcp = await tcpExchange(pool.endpoint, upstreamQuery(query, { id, maxUdpPayload }), {
      clock,
      timeoutMs,
    });
    if (tcp.kind !== "reply") {
      return this.#fail("tcp", pool, tcp.kind === "timeout" ? "no TCP reply in time" : tcp.message);
    }
    const full = relayReply(tcp.bytes, { query, sentId: id, maxUdpPayload });
    if (full.kind === "reject") return this.#fail(full.reason, pool, `over TCP: ${full.detail}`);
    return { kind: "answer", bytes: full.bytes, truncated: full.truncated, rcode: full.rcode };
  }

  /** Asks each upstream for the root's NS records; any reply, whatever its RCODE, counts. */
  async probe(signal: AbortSignal): Promise<ProbeResult> {
    const reasons: string[] = [];
    for (const pool of this.#pools) {
      if (signal.aborted) break;
      let sentId = 0;
      const result = await pool.exchange({
        build: (id) => {
          sentId = id;
          return rootProbeQuery(id);
        },
        accept: (reply) =>
          reply.length >= 12 && ((reply[0]! << 8) | reply[1]!) === sentId && (reply[2]! & 0x80) !== 0,
        signal,
      });
      if (result.kind === "reply") return { ok: true };
      const { host, port } = pool.endpoint;
      const detail = result.kind === "timeout"
        ? `no reply within ${formatDuration(this.#options.timeoutMs)}`
        : result.message;
      reasons.push(`${formatHostPort(host, port)}: ${detail}`);
    }
    return { ok: false, reason: reasons.length === 0 ? "aborted" : reasons.join("; ") };
  }

  /** Closes every upstream socket; queries still waiting fail. */
  close(): void {
    for (const pool of this.#pools) pool.close();
  }
}
