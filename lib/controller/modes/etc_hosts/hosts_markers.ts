/**
 * Finds ouroboros's marker pair in a hosts file and decides whether it is intact, failing closed
 * on any sign of a hand edit.
 *
 * The markers are the CoreDNS modes' strings (one vocabulary for operators to grep for). A
 * marker is a line whose content, trimmed of ASCII whitespace, is exactly the marker text. A
 * valid pair is one BEGIN followed later by one END with nothing between them but `<ip> <host>`
 * lines of the form we write (and blank lines, which carry nothing and may be dropped).
 *
 * Anything else is refused rather than repaired, because every repair guesses: the original
 * takes the last occurrence of each marker, so END before BEGIN or a copied block makes it splice
 * across other people's entries and delete them. Refused:
 *
 * - END before BEGIN, BEGIN without END, END without BEGIN, two BEGINs, two ENDs;
 * - a comment that reads like one of our markers but is not exact (changed case or spacing,
 *   `# BEGIN ouroboros`, or marker text after an entry on the same line): otherwise a hand-edited
 *   marker is ignored and a second block appended;
 * - any other line between the markers (a comment, an entry with a tab or two names): the
 *   operator put it there, and rewriting the block would delete it.
 *
 * Pure: no I/O.
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

/** How to recover from any marker problem; ends every marker message. */
const FIX = "Fix it by hand: delete the ouroboros marker lines and the lines between them; " +
  "ouroboros then appends one fresh block at the end of the file. ouroboros writes nothing until then.";

/** Which release's markers a function of this room works with. */
export interface MarkersOption {
  /** The release's markers (`--marker-id`); default: the original's. */
  readonly markers?: BlockMarkers;
}

/** One of our entries as found in the file. */
export interface FoundEntry {
  readonly ip: string;
  readonly host: string;
}

/** The outcome of {@linkcode scanHostsMarkers}. */
export type HostsMarkerScan =
  /** No marker and nothing that looks like one. */
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
 * import { splitLines } from "../text_lines.ts";
 * import { scanHostsMarkers } from "./hosts_markers.ts";
 *
 * const text = "127.0.0.1 localhost\n# === BEGIN ouroboros (do not edit by hand) ===\n" +
 *   "10.96.0.10 app.example.com\n# === END ouroboros ===\n";
 * scanHostsMarkers(text, splitLines(text));
 * // { kind: "present", beginLine: 1, endLine: 3, entries: [{ ip: "10.96.0.10", host: "app.example.com" }] }
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
    // Another release's marker fences that release's block: foreign lines, left alone.
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
