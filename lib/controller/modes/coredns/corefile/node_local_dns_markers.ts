/**
 * The comment lines that fence ouroboros's server block in the node-local-dns Corefile
 * (`--node-local-dns=manage`), per release, e.g. `# === END ouroboros-node-local-dns edge ===`.
 *
 * Pure: no I/O.
 *
 * The hyphenated word keeps the CoreDNS and node-local-dns look-alike checks from taking each
 * other's markers for damaged ones of their own.
 *
 * @module
 */

import { type BlockMarkers, isMarkerId } from "../../markers.ts";

const WORD = "ouroboros-node-local-dns";

/** A marker id (a DNS label), as in `../../markers.ts`. */
const ID = "[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?";

/** Any release's exact node-local-dns marker (after trimming), id in group 1 or 2. */
const ANY_MARKER = new RegExp(
  `^# === (?:BEGIN ${WORD}(?: (${ID}))? \\(do not edit by hand\\)|END ${WORD}(?: (${ID}))?) ===$`,
);

/** A comment that reads like a node-local-dns marker; refused unless exact (no edit is missed). */
export const NODE_LOCAL_DNS_MARKER_LIKE =
  /^#+\s*(?:=+\s*)?(?:begin|end)\s+ouroboros-node-local-dns(?![\w-])/i;

/**
 * The node-local-dns marker pair for a release id (empty: no id).
 *
 * @throws {RangeError} when `id` is not a DNS label.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nodeLocalDnsMarkers } from "./node_local_dns_markers.ts";
 *
 * assert.equal(nodeLocalDnsMarkers("edge").end, "# === END ouroboros-node-local-dns edge ===");
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

/** Whether a trimmed comment is another release's exact marker: its block, left alone. */
export function isOtherNodeLocalDnsMarker(trimmed: string, markers: BlockMarkers): boolean {
  const match = ANY_MARKER.exec(trimmed);
  if (match === null) return false;
  return (match[1] ?? match[2] ?? "") !== markers.id;
}
