/**
 * The contract between the DNS server and what it knows of the cluster: per question and client,
 * addresses to answer with, or "forward". The server never sees Kubernetes; the answerer no packet.
 *
 * Pure: types only.
 *
 * @module
 */

/** One question as an answerer sees it. */
export interface LocalQuestion {
  /**
   * Lower-cased, no trailing dot (the root is `""`); `.`, `\` and non-printable bytes inside a
   * label are escaped (`\.`, `\\`, `\DDD`), so a hostile label cannot read as another name.
   */
  readonly name: string;
  /** `A`, `AAAA`, `MX`, …; `TYPE<n>` for one without a name here. */
  readonly type: string;
}

/** Why a question was answered locally: the metrics label and the debug log say it. */
export type LocalSource = "records" | "par-proxy" | "hairpin";

/** What to do with one question. */
export type LocalDecision =
  | {
    readonly kind: "local";
    readonly source: LocalSource;
    /** In seconds. */
    readonly ttl: number;
    /** Of the question's family only; empty means NOERROR with no data. */
    readonly addresses: readonly string[];
  }
  | { readonly kind: "forward" };

/**
 * Decides one question; `client` is the query's source (IPv4-mapped IPv6 given as IPv4). Runs once
 * per query: must be fast and must not throw.
 */
export type LocalAnswerer = (question: LocalQuestion, client: string) => LocalDecision;
