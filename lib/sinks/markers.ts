/**
 * The comment lines that fence ouroboros's block in a Corefile or a hosts file, per release.
 *
 * A single installation keeps the original's marker text, so a switch from the original finds
 * its block and takes it over. Several releases in one cluster (two ingress classes, say) would
 * otherwise fight over one block, each removing the other's hosts: `--marker-id` gives each
 * release its own pair, and every editor treats another release's well-formed markers (and
 * the lines between them) as foreign content it never touches.
 *
 * | id       | BEGIN line                                           | END line                       |
 * |----------|------------------------------------------------------|--------------------------------|
 * | (empty)  | `# === BEGIN ouroboros (do not edit by hand) ===`    | `# === END ouroboros ===`      |
 * | `edge`   | `# === BEGIN ouroboros edge (do not edit by hand) ===` | `# === END ouroboros edge ===` |
 *
 * Pure: no I/O.
 *
 * @module
 */

/** One release's marker pair. */
export interface BlockMarkers {
  /** The release's id; empty for the original's markers. */
  readonly id: string;
  /** The first line of the block, compared after trimming whitespace. */
  readonly begin: string;
  /** The last line of the block, compared after trimming whitespace. */
  readonly end: string;
}

/** A marker id: a DNS label (lower-case letters, digits and '-', at most 63, alphanumeric ends). */
const ID = "[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?";

/** Any release's well-formed marker line (after trimming), with the id in group 1 or 2. */
const ANY_MARKER = new RegExp(
  `^# === (?:BEGIN ouroboros(?: (${ID}))? \\(do not edit by hand\\)|END ouroboros(?: (${ID}))?) ===$`,
);

/** Whether `id` is usable as a marker id (empty means the original's markers). */
export function isMarkerId(id: string): boolean {
  return id === "" || ID_ONLY.test(id);
}

const ID_ONLY = new RegExp(`^${ID}$`);

/**
 * A comment that reads like an ouroboros marker, whatever its spacing, case or wording: editors
 * refuse such a line unless it is exactly a marker, so a hand-edited marker is never ignored.
 */
export const MARKER_LIKE = /^#+\s*(?:=+\s*)?(?:begin|end)\s+ouroboros(?![\w-])/i;

/**
 * The marker pair for a release id (empty: the original's text).
 *
 * @example
 * ```ts
 * blockMarkers("edge").end; // "# === END ouroboros edge ==="
 * ```
 */
export function blockMarkers(id = ""): BlockMarkers {
  if (!isMarkerId(id)) {
    throw new RangeError(`marker id ${JSON.stringify(id)} is not a DNS label (a-z, 0-9, '-', at most 63)`);
  }
  const suffix = id === "" ? "" : ` ${id}`;
  return {
    id,
    begin: `# === BEGIN ouroboros${suffix} (do not edit by hand) ===`,
    end: `# === END ouroboros${suffix} ===`,
  };
}

/** The original's markers, used when no id is given. */
export const DEFAULT_MARKERS: BlockMarkers = blockMarkers("");

/**
 * Whether a trimmed comment line is a well-formed marker of a release other than `markers`'s:
 * editors leave such lines (and the block they fence) alone instead of refusing them as a
 * damaged marker of their own.
 */
export function isOtherReleaseMarker(trimmed: string, markers: BlockMarkers): boolean {
  const match = ANY_MARKER.exec(trimmed);
  if (match === null) return false;
  return (match[1] ?? match[2] ?? "") !== markers.id;
}
