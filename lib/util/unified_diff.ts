/**
 * Line-based unified diffs (`diff -u`, `git diff`): what `--dry-run` logs and `--once` prints
 * for every target, in a format an operator knows and can feed to `patch`.
 *
 * Decisions:
 * - lines keep their terminators, so CRLF and a missing last newline show (GNU's `\ No newline`);
 * - Myers' linear-space algorithm after trimming the common ends: large files cost little;
 * - hunk ranges and merging as GNU diff; equal texts give `""`.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** Options for {@linkcode unifiedDiff}. */
export interface UnifiedDiffOptions {
  /** Names both texts in the `--- a/<label>` and `+++ b/<label>` lines. @default "text" */
  readonly label?: string;
  /** Unchanged lines shown around each change. @default 3 */
  readonly context?: number;
}

/** One line of an edit script: kept, removed from the old text, or added from the new one. */
export interface DiffLine {
  readonly kind: " " | "-" | "+";
  /** The line with its terminator, if it has one. */
  readonly text: string;
}

/** The lines of `text`, each with its terminator (the last may have none). */
export function splitKeepingNewlines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** A shortest edit script from the lines `before` to the lines `after`, removals first. */
export function diffLines(before: readonly string[], after: readonly string[]): DiffLine[] {
  const raw: DiffLine[] = [];
  script(before, after, { aLo: 0, aHi: before.length, bLo: 0, bHi: after.length }, raw);
  // Within a run of changes, removals first, as diff and git print them.
  const out: DiffLine[] = [];
  let added: DiffLine[] = [];
  for (const line of raw) {
    if (line.kind === "+") added.push(line);
    else if (line.kind === "-") out.push(line);
    else {
      for (const insert of added) out.push(insert);
      added = [];
      out.push(line);
    }
  }
  for (const insert of added) out.push(insert);
  return out;
}

/**
 * The unified diff from `before` to `after`; `""` when they are equal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unifiedDiff } from "./unified_diff.ts";
 *
 * assert.equal(
 *   unifiedDiff("a\nb\n", "a\nc\n", { label: "kube-system/coredns[Corefile]" }),
 *   "--- a/kube-system/coredns[Corefile]\n+++ b/kube-system/coredns[Corefile]\n" +
 *     "@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
 * );
 * ```
 */
export function unifiedDiff(before: string, after: string, options: UnifiedDiffOptions = {}): string {
  if (before === after) return "";
  const label = options.label ?? "text";
  const context = Math.max(0, options.context ?? 3);
  const a = splitKeepingNewlines(before);
  const b = splitKeepingNewlines(after);
  // Shared leading and trailing lines can only be context: only `context` of them enter the script.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) {
    tail++;
  }
  const skip = Math.max(0, head - context);
  const drop = Math.max(0, tail - context);
  const lines = diffLines(a.slice(skip, a.length - drop), b.slice(skip, b.length - drop));
  let out = `--- a/${label}\n+++ b/${label}\n`;
  for (const hunk of hunks(lines, context, skip)) out += hunk;
  return out;
}

/** A line of the script with the old and new line index it stands at. */
interface Placed extends DiffLine {
  readonly oldIndex: number;
  readonly newIndex: number;
}

/** The hunks of `lines`, whose first line is line `first` (0-based) of both sides. */
function hunks(lines: readonly DiffLine[], context: number, first: number): string[] {
  const placed: Placed[] = [];
  const changes: number[] = [];
  let oldIndex = first;
  let newIndex = first;
  for (const line of lines) {
    if (line.kind !== " ") changes.push(placed.length);
    placed.push({ kind: line.kind, text: line.text, oldIndex, newIndex });
    if (line.kind !== "+") oldIndex++;
    if (line.kind !== "-") newIndex++;
  }
  const out: string[] = [];
  let next = 0;
  while (next < changes.length) {
    let last = next;
    while (last + 1 < changes.length && changes[last + 1]! - changes[last]! - 1 <= 2 * context) last++;
    const start = Math.max(0, changes[next]! - context);
    const end = Math.min(placed.length, changes[last]! + context + 1);
    out.push(renderHunk(placed.slice(start, end)));
    next = last + 1;
  }
  return out;
}

function renderHunk(lines: readonly Placed[]): string {
  const first = lines[0]!;
  const oldCount = lines.filter((line) => line.kind !== "+").length;
  const newCount = lines.filter((line) => line.kind !== "-").length;
  let out = `@@ -${range(first.oldIndex, oldCount)} +${range(first.newIndex, newCount)} @@\n`;
  for (const line of lines) {
    out += line.text.endsWith("\n")
      ? `${line.kind}${line.text.slice(0, -1)}\n`
      : `${line.kind}${line.text}\n\\ No newline at end of file\n`;
  }
  return out;
}

/** `start,count` (1-based), GNU style: `,1` left out; an empty range names the line before. */
function range(index: number, count: number): string {
  if (count === 0) return `${index},0`;
  return count === 1 ? `${index + 1}` : `${index + 1},${count}`;
}

/** Half-open line ranges of both sides still to compare. */
interface Box {
  readonly aLo: number;
  readonly aHi: number;
  readonly bLo: number;
  readonly bHi: number;
}

/** Appends the edit script of `box` to `out` (Myers, linear space). */
function script(a: readonly string[], b: readonly string[], box: Box, out: DiffLine[]): void {
  let { aLo, aHi, bLo, bHi } = box;
  while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) {
    out.push({ kind: " ", text: a[aLo]! });
    aLo++;
    bLo++;
  }
  const suffix: DiffLine[] = [];
  while (aLo < aHi && bLo < bHi && a[aHi - 1] === b[bHi - 1]) {
    suffix.push({ kind: " ", text: a[aHi - 1]! });
    aHi--;
    bHi--;
  }
  if (aLo === aHi) {
    for (let j = bLo; j < bHi; j++) out.push({ kind: "+", text: b[j]! });
  } else if (bLo === bHi) {
    for (let i = aLo; i < aHi; i++) out.push({ kind: "-", text: a[i]! });
  } else {
    const snake = middleSnake(a, b, { aLo, aHi, bLo, bHi });
    script(a, b, { aLo, aHi: snake.x0, bLo, bHi: snake.y0 }, out);
    for (let i = snake.x0; i < snake.x1; i++) out.push({ kind: " ", text: a[i]! });
    script(a, b, { aLo: snake.x1, aHi, bLo: snake.y1, bHi }, out);
  }
  for (let i = suffix.length - 1; i >= 0; i--) out.push(suffix[i]!);
}

/** The middle snake of a shortest edit script of `box`, in absolute indices (x in a, y in b). */
function middleSnake(
  a: readonly string[],
  b: readonly string[],
  box: Box,
): { readonly x0: number; readonly y0: number; readonly x1: number; readonly y1: number } {
  const { aLo, bLo } = box;
  const n = box.aHi - aLo;
  const m = box.bHi - bLo;
  const delta = n - m;
  const odd = (delta & 1) !== 0;
  const max = Math.ceil((n + m) / 2);
  const offset = max + 1;
  // forward[k]: the furthest x on diagonal k (x - y) from the top left; backward likewise from
  // the bottom right, in reversed coordinates.
  const forward = new Int32Array(2 * offset + 1);
  const backward = new Int32Array(2 * offset + 1);
  for (let d = 0; d <= max; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && forward[offset + k - 1]! < forward[offset + k + 1]!)
        ? forward[offset + k + 1]!
        : forward[offset + k - 1]! + 1;
      let y = x - k;
      const x0 = x;
      const y0 = y;
      while (x < n && y < m && a[aLo + x] === b[bLo + y]) {
        x++;
        y++;
      }
      forward[offset + k] = x;
      const reverse = delta - k;
      if (odd && reverse >= -(d - 1) && reverse <= d - 1 && x + backward[offset + reverse]! >= n) {
        return { x0: aLo + x0, y0: bLo + y0, x1: aLo + x, y1: bLo + y };
      }
    }
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && backward[offset + k - 1]! < backward[offset + k + 1]!)
        ? backward[offset + k + 1]!
        : backward[offset + k - 1]! + 1;
      let y = x - k;
      const x0 = x;
      const y0 = y;
      while (x < n && y < m && a[aLo + n - 1 - x] === b[bLo + m - 1 - y]) {
        x++;
        y++;
      }
      backward[offset + k] = x;
      const ahead = delta - k;
      if (!odd && ahead >= -d && ahead <= d && x + forward[offset + ahead]! >= n) {
        return { x0: aLo + n - x, y0: bLo + m - y, x1: aLo + n - x0, y1: bLo + m - y0 };
      }
    }
  }
  // Unreachable: a path of at most n + m edits always exists.
  throw new Error("unified diff: no middle snake found");
}
