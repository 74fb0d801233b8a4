/**
 * What one DNS server said to one A or AAAA question: `lib/dns`'s result, judged by the doctor.
 * Lives here so both sibling folders, which may not import each other, share it.
 *
 * Pure: a type.
 *
 * @module
 */

/** What one server said, or why it said nothing usable. */
export type AddressLookupResult =
  | {
    readonly kind: "answer";
    /** The full RCODE: 0 NOERROR, 2 SERVFAIL, 3 NXDOMAIN, 5 REFUSED … */
    readonly rcode: number;
    /** Address records of the type asked, in `formatIp` spelling. */
    readonly addresses: readonly string[];
    /** The smallest TTL among them, in seconds. */
    readonly ttl?: number;
  }
  | {
    readonly kind: "no-answer";
    /** Every attempt ran out of time (rather than failing otherwise). */
    readonly timedOut: boolean;
    readonly reason: string;
  };
