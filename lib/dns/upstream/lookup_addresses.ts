/**
 * Asks one DNS server for the A or AAAA records of one host name, as a stub resolver does: over
 * UDP, again over TCP when the reply is truncated, one retry when a UDP packet gets no reply.
 * The doctor's resolution check asks the pod's resolver and the cluster DNS Service with it.
 *
 * Decisions: it is the forwarder (`Forwarder`) with a single upstream and a query of our own
 * (`addressQuery`), so the ID randomness, the reply checks (ID, source, question: `relayReply`),
 * the UDP timeout and the TC→TCP retry are the ones `ouroboros dns` relies on, not a second
 * implementation. What the forwarder calls a failure is told apart here: a timeout (every
 * attempt had no reply in time) from any other failure (a refused send, a reply that was not an
 * answer), because the doctor reads "no reply" from a workstation as "not reachable from here".
 * The name is asked as an absolute name: no search list, no `ndots`.
 *
 * Effects: UDP (and on truncation TCP) exchanges with `server`; time through the injected clock.
 *
 * @module
 */

import { systemClock } from "../../util/clock.ts";
import type { Clock } from "../../util/clock.ts";
import { formatDuration } from "../../util/duration.ts";
import { addressQuery, type AddressType } from "../wire/address_query.ts";
import { classifyQuery } from "../wire/classify_query.ts";
import { readAnswerAddresses } from "../wire/read_answer_addresses.ts";
import { Forwarder } from "./forwarder.ts";
import type { AddressLookupResult } from "../../util/address_lookup_result.ts";
import { secureRandom } from "./secure_random.ts";
import type { UpstreamEndpoint } from "./upstream_socket_pool.ts";

export type { AddressLookupResult };

/** Options for {@linkcode lookupAddresses}. */
export interface LookupAddressesOptions {
  readonly type: AddressType;
  /** Per attempt (two over UDP, then one over TCP when truncated). @default 2_000 */
  readonly timeoutMs?: number;
  /** Ends the lookup early with a `no-answer`. */
  readonly signal?: AbortSignal;
  /** @default systemClock */
  readonly clock?: Clock;
  /** Numbers in [0, 1) for query IDs. @default secureRandom */
  readonly random?: () => number;
}

/** The UDP payload size our query advertises: the forwarder's default, DNS Flag Day 2020. */
const MAX_UDP_PAYLOAD = 1232;

/**
 * Asks `server` (an IP address and port) for the `options.type` records of `name`. Throws a
 * `TypeError` when `name` is not a host name or `server.host` is not an IP address; every
 * network outcome is a value.
 *
 * @example
 * ```ts
 * import { lookupAddresses } from "./lookup_addresses.ts";
 *
 * const result = await lookupAddresses({ host: "10.96.0.10", port: 53 }, "shop.example.com", {
 *   type: "A",
 *   signal: AbortSignal.timeout(5_000),
 * });
 * if (result.kind === "answer" && result.rcode === 0) result.addresses; // ["10.96.14.2"]
 * ```
 */
export async function lookupAddresses(
  server: UpstreamEndpoint,
  name: string,
  options: LookupAddressesOptions,
): Promise<AddressLookupResult> {
  const verdict = classifyQuery(addressQuery(name, { type: options.type, maxUdpPayload: MAX_UDP_PAYLOAD }), {
    // As a TCP client would: any size of reply is welcome, so a truncated UDP reply goes to TCP.
    transport: "tcp",
    maxUdpPayload: MAX_UDP_PAYLOAD,
  });
  if (verdict.kind !== "ask") throw new TypeError(`the query for ${name} does not classify as a question`);
  if (options.signal?.aborted) return { kind: "no-answer", timedOut: false, reason: "aborted" };
  const timeoutMs = options.timeoutMs ?? 2_000;
  let failures = 0;
  let timeouts = 0;
  const forwarder = new Forwarder({
    upstreams: [server],
    maxUdpPayload: MAX_UDP_PAYLOAD,
    timeoutMs,
    clock: options.clock ?? systemClock,
    random: options.random ?? secureRandom,
    onError: (reason) => {
      failures += 1;
      if (reason === "timeout") timeouts += 1;
    },
  });
  const abort = () => forwarder.close();
  options.signal?.addEventListener("abort", abort, { once: true });
  try {
    const result = await forwarder.forward(verdict.query);
    if (options.signal?.aborted) return { kind: "no-answer", timedOut: false, reason: "aborted" };
    if (result.kind === "failed") {
      const timedOut = failures > 0 && timeouts === failures;
      const reason = timedOut
        ? `no reply within ${formatDuration(timeoutMs)}, asked ${timeouts} times`
        : result.reason;
      return { kind: "no-answer", timedOut, reason };
    }
    const read = readAnswerAddresses(result.bytes);
    if ("unreadable" in read) return { kind: "no-answer", timedOut: false, reason: read.unreadable };
    return {
      kind: "answer",
      rcode: read.rcode,
      addresses: read.addresses,
      ...(read.ttl === undefined ? {} : { ttl: read.ttl }),
    };
  } finally {
    options.signal?.removeEventListener("abort", abort);
    forwarder.close();
  }
}
