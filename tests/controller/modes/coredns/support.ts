/**
 * Helpers shared by the Corefile tests, written independently of the code under test so the
 * tests do not check the editor with its own logic.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { CorefileEdit } from "../../../../lib/controller/modes/coredns/corefile/apply_corefile_block.ts";

export const BEGIN = "# === BEGIN ouroboros (do not edit by hand) ===";
export const END = "# === END ouroboros ===";
export const FQDN = "ouroboros-proxy.ouroboros.svc.cluster.local.";

/** Splits text into lines that keep their terminators. */
export function rawLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * The text with our block's lines (the first line trimmed to BEGIN through the next line trimmed
 * to END, terminators included) cut out; the text itself when it has no such pair.
 */
export function withoutBlock(text: string): string {
  const all = rawLines(text);
  const begin = all.findIndex((line) => line.trim() === BEGIN);
  if (begin === -1) return text;
  const end = all.findIndex((line, index) => index > begin && line.trim() === END);
  assert.notEqual(end, -1, "BEGIN without END in an edited Corefile");
  return [...all.slice(0, begin), ...all.slice(end + 1)].join("");
}

/** The lines of our block (terminators included), or `[]`. */
export function blockLines(text: string): string[] {
  const all = rawLines(text);
  const begin = all.findIndex((line) => line.trim() === BEGIN);
  if (begin === -1) return [];
  const end = all.findIndex((line, index) => index > begin && line.trim() === END);
  return all.slice(begin, end + 1);
}

/** The block we expect, spelled out. */
export function expectedBlock(hosts: readonly string[], indent: string, newline = "\n"): string[] {
  if (hosts.length === 0) return [];
  return [
    `${indent}${BEGIN}${newline}`,
    ...hosts.map((host) => `${indent}rewrite name ${host} ${FQDN}${newline}`),
    `${indent}${END}${newline}`,
  ];
}

/** Asserts an edit changed the file and returns the new text. */
export function changed(edit: CorefileEdit): string {
  assert.equal(edit.kind, "changed", edit.kind === "refused" ? edit.message : "expected a change");
  return edit.kind === "changed" ? edit.corefile : "";
}
