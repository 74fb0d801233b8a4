/**
 * Applies a unified diff the way `patch` does, checking every context and removed line against
 * the old text, so a test can say "this diff takes the old text to the new one" without trusting
 * the diff's own code.
 *
 * @module
 */

import assert from "node:assert/strict";
import { splitKeepingNewlines } from "../../lib/util/unified_diff.ts";

/**
 * `before` with `diff` (one file's: one header, then its hunks) applied, hunk by hunk. Fails the
 * test when a context or removed line is not what `before` holds.
 */
export function applyPatch(before: string, diff: string): string {
  if (diff === "") return before;
  const old = splitKeepingNewlines(before);
  const lines = diff.split("\n");
  assert.ok(lines[0]?.startsWith("--- a/") && lines[1]?.startsWith("+++ b/"), "header");
  const out: string[] = [];
  let at = 0; // next old line to copy
  let i = 2;
  while (i < lines.length && lines[i] !== "") {
    const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$/.exec(lines[i]!);
    assert.ok(header, `hunk header: ${lines[i]}`);
    const oldCount = header[2] === undefined ? 1 : Number(header[2]);
    const oldStart = Number(header[1]) - (oldCount === 0 ? 0 : 1);
    assert.ok(oldStart >= at, "hunks in order, not overlapping");
    while (at < oldStart) out.push(old[at++]!);
    i++;
    while (i < lines.length && /^[ +\-]/.test(lines[i]!)) {
      const kind = lines[i]![0];
      let line = `${lines[i]!.slice(1)}\n`;
      if (lines[i + 1] === "\\ No newline at end of file") {
        line = line.slice(0, -1);
        i++;
      }
      if (kind === "+") out.push(line);
      else {
        assert.equal(old[at], line, `line ${at + 1} of the old text is what the diff says`);
        if (kind === " ") out.push(line);
        at++;
      }
      i++;
    }
  }
  while (at < old.length) out.push(old[at++]!);
  return out.join("");
}
