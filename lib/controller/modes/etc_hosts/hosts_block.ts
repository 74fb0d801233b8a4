/**
 * etc-hosts mode's edit: puts ouroboros's block into a hosts file, replaces it, or removes it,
 * touching no byte outside the markers.
 *
 * The block is
 *
 * ```
 * # === BEGIN ouroboros (do not edit by hand) ===
 * <ip> <host>
 * # === END ouroboros ===
 * ```
 *
 * with one line per host in the order given. Decisions:
 *
 * - Where: an intact marker pair has the lines between its markers replaced; the marker lines
 *   themselves are kept byte for byte (whatever whitespace surrounds the marker text). Without a
 *   pair the block is appended at the end of the file.
 * - Precedence: glibc's `files` source returns the first matching line, so an entry someone
 *   else wrote for one of our names above the block wins, and we leave it alone; the edit reports
 *   those names as `shadowed` so the sink can say so. Entries below the block lose to ours.
 * - Line endings: added lines use the file's style (that of its first line break; LF for a file
 *   without one), and lines inside an existing block follow its BEGIN line. Every other line
 *   keeps its own terminator, tabs and spacing.
 * - Missing final newline: the block goes after a line break we add, and its END line gets no
 *   line break, so the file still lacks a final newline. Removing the block removes that added
 *   line break too, so insert followed by removal gives the original text back exactly.
 * - Zero hosts: the marker lines and everything between them are deleted with their line breaks;
 *   with no block present nothing changes.
 * - Failing closed: damaged markers (see `hosts_markers.ts`), an invalid address or an unsafe
 *   host are refused, also when removing the block.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { entryNames, type EntryPlan, planEntries, renderEntry } from "./hosts_entries.ts";
import { newlineStyle, splitLines, type TextLine } from "../text_lines.ts";
import { type BlockMarkers, DEFAULT_MARKERS } from "../markers.ts";
import { scanHostsMarkers } from "./hosts_markers.ts";
import type { HostsRefusal } from "./hosts_problems.ts";

/** What an edit found in the file, whatever it decided. */
export interface HostsEditFindings {
  /** The hosts in our block (empty when there is none). */
  readonly previousHosts: readonly string[];
  /** Desired hosts that an earlier entry outside our block answers first. */
  readonly shadowed: readonly string[];
}

/** What an edit decided. */
export type HostsEdit =
  /** The file already says exactly this: write nothing. */
  | HostsEditFindings & { readonly kind: "unchanged" }
  /** Write `text`. */
  | HostsEditFindings & { readonly kind: "changed"; readonly text: string }
  | HostsRefusal;

/** What {@linkcode applyHostsBlock} should make the block hold. */
export interface HostsBlockOptions {
  /** The address every host points at (`--proxy-ip`), IPv4 or IPv6. */
  readonly ip: string;
  /** The hosts, one line each, in this order. */
  readonly hosts: readonly string[];
  /** The release's markers (`--marker-id`); default: the original's. */
  readonly markers?: BlockMarkers;
}

/**
 * Makes the ouroboros block of `text` hold exactly `hosts`, each pointing at `ip`. With no hosts
 * the block is removed (and `ip` is not checked).
 *
 * @example
 * ```ts
 * import { applyHostsBlock } from "./hosts_block.ts";
 *
 * const edit = applyHostsBlock("127.0.0.1 localhost\n", { ip: "10.96.0.10", hosts: ["app.example.com"] });
 * // edit.kind === "changed"; edit.text === "127.0.0.1 localhost\n" +
 * //   "# === BEGIN ouroboros (do not edit by hand) ===\n" +
 * //   "10.96.0.10 app.example.com\n# === END ouroboros ===\n"
 * ```
 */
export function applyHostsBlock(text: string, options: HostsBlockOptions): HostsEdit {
  const { ip, hosts, markers = DEFAULT_MARKERS } = options;
  if (hosts.length === 0) return removeHostsBlock(text, markers);
  const plan = planEntries(ip, hosts);
  if (plan.kind === "refused") return plan;
  return splice(text, plan, markers);
}

/**
 * Removes the ouroboros block, if any (what `--cleanup` writes).
 *
 * @example
 * ```ts
 * import { removeHostsBlock } from "./hosts_block.ts";
 *
 * removeHostsBlock("127.0.0.1 localhost\n").kind; // "unchanged"
 * ```
 */
export function removeHostsBlock(text: string, markers: BlockMarkers = DEFAULT_MARKERS): HostsEdit {
  return splice(text, undefined, markers);
}

function splice(text: string, plan: EntryPlan | undefined, markers: BlockMarkers): HostsEdit {
  const lines = splitLines(text);
  const scan = scanHostsMarkers(text, lines, { markers });
  if (scan.kind === "refused") return scan;
  const previousHosts = scan.kind === "present" ? scan.entries.map((entry) => entry.host) : [];
  const entries = plan === undefined ? [] : plan.hosts.map((host) => renderEntry(plan.ip, host));

  let output: string;
  let linesAbove: readonly TextLine[];
  if (scan.kind === "absent") {
    linesAbove = lines;
    if (entries.length === 0) {
      output = text;
    } else {
      const newline = newlineStyle(text);
      const block = [markers.begin, ...entries, markers.end].join(newline);
      if (text === "") output = block + newline;
      else if (text.endsWith("\n")) output = text + block + newline;
      else output = text + newline + block;
    }
  } else {
    const begin = lines[scan.beginLine] as TextLine;
    const end = lines[scan.endLine] as TextLine;
    linesAbove = lines.slice(0, scan.beginLine);
    if (entries.length === 0) {
      let from = begin.start;
      if (end.terminator === "" && from > 0) {
        // Our END line ends the file without a line break: the break before BEGIN is the one we
        // added when appending, so it goes too and the file again lacks a final newline.
        const before = text.slice(0, from);
        if (before.endsWith(begin.terminator)) from -= begin.terminator.length;
        else if (before.endsWith("\n")) from -= 1;
      }
      output = text.slice(0, from) + text.slice(end.end);
    } else {
      const newline = begin.terminator;
      output = text.slice(0, begin.end) + entries.map((entry) => entry + newline).join("") +
        text.slice(end.start);
    }
  }

  const shadowed = plan === undefined ? [] : shadowedHosts(text, linesAbove, plan.hosts);
  if (output === text) return { kind: "unchanged", previousHosts, shadowed };
  return { kind: "changed", text: output, previousHosts, shadowed };
}

function shadowedHosts(text: string, above: readonly TextLine[], hosts: readonly string[]): string[] {
  const names = new Set<string>();
  for (const line of above) {
    for (const name of entryNames(text.slice(line.start, line.contentEnd))) names.add(name);
  }
  return hosts.filter((host) => names.has(host));
}
