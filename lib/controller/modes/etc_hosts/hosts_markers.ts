/**
 * Finds ouroboros's marker pair in a hosts file and decides whether it is intact.
 *
 * Pure: no I/O.
 *
 * Fails closed on any hand edit instead of repairing it (the original's "last marker wins" could
 * splice across other entries): unpaired or repeated markers, near-miss marker comments, and any
 * line between the markers that is not an `<ip> <host>` entry we write (blank lines excepted).
 *
 * @module
 */

import {
  type BlockMarkers,
  DEFAULT_MARKERS,
  isOtherReleaseMarker,
  MARKER_LIKE,
  markerPair,
} from "../markers.ts";
import { parseOwnEntry } from "./hosts_entries.ts";
import { type TextLine, trimAsciiWhitespace } from "../text_lines.ts";
import { type HostsMarkerProblem, type HostsRefusal, hostsRefusal } from "./hosts_problems.ts";

const FIX = "Fix it by hand: delete the ouroboros marker lines and the lines between them; " +
  "ouroboros then appends one fresh block at the end of the file. ouroboros writes nothing until then.";

/** Which release's markers (`--marker-id`) to work with; default: the original's. */
export interface MarkersOption {
  readonly markers?: BlockMarkers;
}

/** One of our entries as found in the file. */
export interface FoundEntry {
  readonly ip: string;
  readonly host: string;
}

/** The outcome of {@linkcode scanHostsMarkers}. */
export type HostsMarkerScan =
  | { readonly kind: "absent" }
  /** An intact pair: 0-based indexes of the BEGIN and END lines and the entries between them. */
  | {
    readonly kind: "present";
    readonly beginLine: number;
    readonly endLine: number;
    readonly entries: readonly FoundEntry[];
  }
  | HostsRefusal;

/**
 * Finds and validates the marker pair.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitLines } from "../text_lines.ts";
 * import { scanHostsMarkers } from "./hosts_markers.ts";
 *
 * const text = "127.0.0.1 localhost\n# === BEGIN ouroboros (do not edit by hand) ===\n" +
 *   "10.96.0.10 app.example.com\n# === END ouroboros ===\n";
 * assert.deepEqual(scanHostsMarkers(text, splitLines(text)), {
 *   kind: "present",
 *   beginLine: 1,
 *   endLine: 3,
 *   entries: [{ ip: "10.96.0.10", host: "app.example.com" }],
 * });
 * ```
 */
export function scanHostsMarkers(
  text: string,
  lines: readonly TextLine[],
  options: MarkersOption = {},
): HostsMarkerScan {
  const { markers = DEFAULT_MARKERS } = options;
  const begins: number[] = [];
  const ends: number[] = [];
  for (const [index, line] of lines.entries()) {
    const content = text.slice(line.start, line.contentEnd);
    const trimmed = trimAsciiWhitespace(content);
    if (trimmed === markers.begin) {
      begins.push(index);
      continue;
    }
    if (trimmed === markers.end) {
      ends.push(index);
      continue;
    }
    const hash = content.indexOf("#");
    if (isOtherReleaseMarker(trimmed, markers)) continue;
    if (hash >= 0 && MARKER_LIKE.test(content.slice(hash))) {
      return markerRefusal(
        "altered-marker",
        `line ${index + 1} looks like an ouroboros marker but is not exactly "${markers.begin}" or ` +
          `"${markers.end}" on a line of its own: ${JSON.stringify(content)}.`,
      );
    }
  }

  const pair = markerPair(begins, ends);
  if (pair.kind === "absent") return { kind: "absent" };
  if (pair.kind === "damaged") return markerRefusal(pair.problem, pair.detail);
  const { begin, end } = pair;

  const entries: FoundEntry[] = [];
  for (let index = begin + 1; index < end; index++) {
    const line = lines[index] as TextLine;
    const content = text.slice(line.start, line.contentEnd);
    if (trimAsciiWhitespace(content) === "") continue;
    const entry = parseOwnEntry(content);
    if (entry === undefined) {
      return hostsRefusal(
        "foreign-content-in-block",
        `line ${index + 1}, between the ouroboros markers on lines ${begin + 1} and ${end + 1}, is not an ` +
          `"<ip> <host>" entry ouroboros wrote: ${
            JSON.stringify(content)
          }. ouroboros will not delete a line ` +
          "someone added: move it above the BEGIN marker or below the END marker (or delete it); ouroboros " +
          "writes nothing until then.",
      );
    }
    entries.push(entry);
  }
  return { kind: "present", beginLine: begin, endLine: end, entries };
}

function markerRefusal(problem: HostsMarkerProblem, detail: string): HostsRefusal {
  return hostsRefusal(problem, `the ouroboros markers are damaged: ${detail} ${FIX}`);
}
