/**
 * The comment lines that fence ouroboros's server block in the node-local-dns Corefile
 * (`--node-local-dns=manage`), per release.
 *
 * The text differs from the CoreDNS block's markers (`lib/controller/modes/markers.ts`) on purpose:
 * `ouroboros-node-local-dns` is joined by a hyphen, so the CoreDNS editors' look-alike check
 * (`ouroboros` followed by a space) never takes one of these lines for a damaged marker of their
 * own, and the other way round (`ouroboros ` with a space is not `ouroboros-node-local-dns`). A
 * release's `--marker-id` is appended the same way as for the CoreDNS block:
 *
 * | id      | BEGIN line                                                          | END line                                      |
 * |---------|---------------------------------------------------------------------|-----------------------------------------------|
 * | (empty) | `# === BEGIN ouroboros-node-local-dns (do not edit by hand) ===`    | `# === END ouroboros-node-local-dns ===`      |
 * | `edge`  | `# === BEGIN ouroboros-node-local-dns edge (do not edit by hand) ===` | `# === END ouroboros-node-local-dns edge ===` |
 *
 * Pure: no I/O.
 *
 * @module
 */

import { type BlockMarkers, isMarkerId } from "../../markers.ts";

/** The marker word that sets these markers apart from the CoreDNS block's. */
const WORD = "ouroboros-node-local-dns";

/** A marker id (a DNS label), as in `lib/controller/modes/markers.ts`. */
const ID = "[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?";

/** Any release's exact node-local-dns marker (after trimming), id in group 1 or 2. */
const ANY_MARKER = new RegExp(
  `^# === (?:BEGIN ${WORD}(?: (${ID}))? \\(do not edit by hand\\)|END ${WORD}(?: (${ID}))?) ===$`,
);

/**
 * A comment that reads like a node-local-dns marker whatever its spacing, case or wording: the
 * editor refuses such a line unless it is exactly a marker, so a hand-edited one is never ignored.
 */
export const NODE_LOCAL_DNS_MARKER_LIKE =
  /^#+\s*(?:=+\s*)?(?:begin|end)\s+ouroboros-node-local-dns(?![\w-])/i;

/**
 * The node-local-dns marker pair for a release id (empty: no id).
 *
 * @throws {RangeError} when `id` is not a DNS label.
 *
 * @example
 * ```ts
 * import { nodeLocalDnsMarkers } from "./node_local_dns_markers.ts";
 *
 * nodeLocalDnsMarkers("edge").end; // "# === END ouroboros-node-local-dns edge ==="
 * ```
 */
export function nodeLocalDnsMarkers(id = ""): BlockMarkers {
  if (!isMarkerId(id)) {
    throw new RangeError(`marker id ${JSON.stringify(id)} is not a DNS label (a-z, 0-9, '-', at most 63)`);
  }
  const suffix = id === "" ? "" : ` ${id}`;
  return {
    id,
    begin: `# === BEGIN ${WORD}${suffix} (do not edit by hand) ===`,
    end: `# === END ${WORD}${suffix} ===`,
  };
}

/**
 * Whether a trimmed comment is an exact node-local-dns marker of a release other than
 * `markers`'s: that release's block, left alone.
 *
 * @example
 * ```ts
 * import { isOtherNodeLocalDnsMarker, nodeLocalDnsMarkers } from "./node_local_dns_markers.ts";
 *
 * isOtherNodeLocalDnsMarker("# === END ouroboros-node-local-dns edge ===", nodeLocalDnsMarkers()); // true
 * ```
 */
export function isOtherNodeLocalDnsMarker(trimmed: string, markers: BlockMarkers): boolean {
  const match = ANY_MARKER.exec(trimmed);
  if (match === null) return false;
  return (match[1] ?? match[2] ?? "") !== markers.id;
}
