/**
 * etc-hosts mode's edit: puts ouroboros's block into a hosts file, replaces it, or removes it,
 * touching no byte outside the markers.
 *
 * Pure: no I/O.
 *
 * Without a marker pair the block is appended; the marker lines themselves are kept byte for byte.
 * glibc uses the first matching line, so names someone listed above the block are reported as
 * `shadowed` and left alone. New lines follow the file's line endings; for a file without a final
 * newline the block keeps it that way, so insert then remove gives the original text back.
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
  readonly previousHosts: readonly string[];
  /** Desired hosts that an earlier entry outside our block answers first. */
  readonly shadowed: readonly string[];
}

/** What an edit decided. */
export type HostsEdit =
  | HostsEditFindings & { readonly kind: "unchanged" }
  | HostsEditFindings & { readonly kind: "changed"; readonly text: string }
  | HostsRefusal;

/** What {@linkcode applyHostsBlock} should make the block hold. */
export interface HostsBlockOptions {
  /** `--proxy-ip`, IPv4 or IPv6. */
  readonly ip: string;
  readonly hosts: readonly string[];
  /** Default: the original's markers. */
  readonly markers?: BlockMarkers;
}

/**
 * Makes the ouroboros block of `text` hold exactly `hosts` at `ip`; no hosts removes the block.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { applyHostsBlock } from "./hosts_block.ts";
 *
 * const edit = applyHostsBlock("127.0.0.1 localhost\n", { ip: "10.96.0.10", hosts: ["app.example.com"] });
 * assert.ok(edit.kind === "changed");
 * assert.equal(
 *   edit.text,
 *   "127.0.0.1 localhost\n# === BEGIN ouroboros (do not edit by hand) ===\n" +
 *     "10.96.0.10 app.example.com\n# === END ouroboros ===\n",
 * );
 * ```
 */
export function applyHostsBlock(text: string, options: HostsBlockOptions): HostsEdit {
  const { ip, hosts, markers = DEFAULT_MARKERS } = options;
  if (hosts.length === 0) return removeHostsBlock(text, markers);
  const plan = planEntries(ip, hosts);
  if (plan.kind === "refused") return plan;
  return splice(text, plan, markers);
}

/** Removes the ouroboros block, if any (what `--cleanup` writes). */
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
        // The break before BEGIN is the one we added when appending to a file without one.
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
