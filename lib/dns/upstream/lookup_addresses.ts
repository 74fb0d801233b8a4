/**
 * Asks one DNS server for the A or AAAA records of one absolute host name, as a stub resolver
 * does (the doctor's resolution check). It reuses `Forwarder` with one upstream, so the reply
 * checks and the TC→TCP retry are those of `ouroboros dns`. A timeout is told apart from other
 * failures: the doctor reads it as "not reachable from here".
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

/** DNS Flag Day 2020's size, the forwarder's default. */
const MAX_UDP_PAYLOAD = 1232;

/**
 * Asks `server` for the `options.type` records of `name`. Throws a `TypeError` when `name` is not a
 * host name or `server.host` not an IP address; every network outcome is a value.
 */
export async function lookupAddresses(
  server: UpstreamEndpoint,
  name: string,
  options: LookupAddressesOptions,
): Promise<AddressLookupResult> {
  const verdict = classifyQuery(addressQuery(name, { type: options.type, maxUdpPayload: MAX_UDP_PAYLOAD }), {
    // Any reply size is welcome, so a truncated UDP reply goes to TCP.
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
