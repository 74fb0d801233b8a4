/**
 * The contract between the DNS server (wire format, sockets, forwarding) and what it knows of
 * the cluster: for one question from one client address, either addresses to answer with, or
 * "forward it". The server never looks at Kubernetes objects; the answerer never sees a packet.
 *
 * Pure: types only.
 *
 * @module
 */

/** One question as an answerer sees it. */
export interface LocalQuestion {
  /**
   * The queried name, lower-cased, without the trailing dot (`shop.example.com`; the root is
   * `""`). A dot or backslash inside a label and any byte that is not printable ASCII are escaped
   * (`\.`, `\\`, `\DDD`), so a hostile label can never read as a name it is not.
   */
  readonly name: string;
  /** The record type's mnemonic: `A`, `AAAA`, `MX`, `HTTPS`; `TYPE<n>` for one without a name here. */
  readonly type: string;
}

/** Why a question was answered locally: the metrics label and the debug log say it. */
export type LocalSource = "records" | "par-proxy" | "hairpin";

/** What to do with one question. */
export type LocalDecision =
  | {
    /** Answer from cluster state. */
    readonly kind: "local";
    readonly source: LocalSource;
    /** Time to live of every record, in seconds. */
    readonly ttl: number;
    /**
     * The addresses of the question's family only (IPv4 for A, IPv6 for AAAA); empty means
     * NOERROR with no data (the name exists here, but not with this type).
     */
    readonly addresses: readonly string[];
  }
  | { readonly kind: "forward" };

/**
 * Decides one question. `client` is the source address of the query, IPv4 in dotted form
 * (an IPv4-mapped IPv6 source is given as its IPv4 address) or IPv6 in lower-case compressed
 * form. Must be fast and must not throw: it runs once per query.
 */
export type LocalAnswerer = (question: LocalQuestion, client: string) => LocalDecision;
