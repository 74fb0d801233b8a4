/**
 * The comment lines that fence ouroboros's block in a Corefile or a hosts file, per release.
 * Without `--marker-id` they are the original's, so a switch from it takes its block over; with
 * it, each release has its own pair, and every editor leaves another release's well-formed markers
 * (and their block) alone, so releases never remove each other's hosts.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** One release's marker pair; lines are compared after trimming whitespace. */
export interface BlockMarkers {
  /** The release's id; empty for the original's markers. */
  readonly id: string;
  readonly begin: string;
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
 * import assert from "node:assert/strict";
 * import { blockMarkers } from "./markers.ts";
 *
 * assert.equal(blockMarkers("edge").end, "# === END ouroboros edge ===");
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
 * Whether a trimmed comment line is a well-formed marker of another release: editors leave it
 * (and its block) alone instead of refusing it as a damaged marker of their own.
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
 * Checks the 0-based lines of the exact BEGIN and END markers found: none, or one of each with END
 * after BEGIN. Shared, so both editors refuse the same damage in the same words.
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
