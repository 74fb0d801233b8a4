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
 * import { blockMarkers } from "./markers.ts";
 *
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

/** What can be wrong with the marker lines found, as both editors word it. */
export const MARKER_PAIR_PROBLEMS = [
  "duplicate-begin",
  "duplicate-end",
  "begin-without-end",
  "end-without-begin",
  "end-before-begin",
] as const;

/** One of {@linkcode MARKER_PAIR_PROBLEMS}. */
export type MarkerPairProblem = typeof MARKER_PAIR_PROBLEMS[number];

/** The outcome of {@linkcode markerPair}: no markers, one intact pair, or what is wrong. */
export type MarkerPair =
  | { readonly kind: "absent" }
  | { readonly kind: "pair"; readonly begin: number; readonly end: number }
  | { readonly kind: "damaged"; readonly problem: MarkerPairProblem; readonly detail: string };

/**
 * Checks the 0-based lines on which exact BEGIN and END markers were found: none, or exactly one
 * of each with END after BEGIN. Shared by the Corefile and hosts-file editors, so both refuse
 * the same damage with the same words.
 *
 * @example
 * ```ts
 * import { markerPair } from "./markers.ts";
 *
 * markerPair([4], [2]); // 0-based lines of the BEGIN and END markers found
 * // { kind: "damaged", problem: "end-before-begin", detail: "the END marker on line 3 comes before …" }
 * ```
 */
export function markerPair(begins: readonly number[], ends: readonly number[]): MarkerPair {
  const shown = (list: readonly number[]): string => list.map((line) => line + 1).join(", ");
  const damaged = (problem: MarkerPairProblem, detail: string): MarkerPair => ({
    kind: "damaged",
    problem,
    detail,
  });
  if (begins.length > 1) {
    return damaged("duplicate-begin", `there are ${begins.length} BEGIN markers (lines ${shown(begins)}).`);
  }
  if (ends.length > 1) {
    return damaged("duplicate-end", `there are ${ends.length} END markers (lines ${shown(ends)}).`);
  }
  const [begin] = begins;
  const [end] = ends;
  if (begin === undefined && end === undefined) return { kind: "absent" };
  if (end === undefined) {
    return damaged("begin-without-end", `the BEGIN marker on line ${shown(begins)} has no END marker.`);
  }
  if (begin === undefined) {
    return damaged("end-without-begin", `the END marker on line ${shown(ends)} has no BEGIN marker.`);
  }
  if (end < begin) {
    return damaged(
      "end-before-begin",
      `the END marker on line ${end + 1} comes before the BEGIN marker on line ${begin + 1}.`,
    );
  }
  return { kind: "pair", begin, end };
}
