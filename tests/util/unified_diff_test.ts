import assert from "node:assert/strict";
import { diffLines, splitKeepingNewlines, unifiedDiff } from "../../lib/util/unified_diff.ts";
import { applyPatch } from "../support/apply_patch.ts";
import { prng } from "../support/random.ts";

/** `lines` joined with LF line breaks, each line terminated. */
function text(...lines: string[]): string {
  return lines.map((line) => `${line}\n`).join("");
}

const HEADER = "--- a/t\n+++ b/t\n";

Deno.test("unified diff: table of edits, in the shape GNU diff -u prints them", () => {
  const ten = Array.from({ length: 10 }, (_, i) => `l${i + 1}`);
  const cases: { name: string; before: string; after: string; expected: string }[] = [
    { name: "equal texts give nothing", before: text("a", "b"), after: text("a", "b"), expected: "" },
    { name: "both empty", before: "", after: "", expected: "" },
    {
      name: "into an empty text",
      before: "",
      after: text("x", "y"),
      expected: `${HEADER}@@ -0,0 +1,2 @@\n+x\n+y\n`,
    },
    { name: "to an empty text", before: text("x"), after: "", expected: `${HEADER}@@ -1 +0,0 @@\n-x\n` },
    {
      name: "one line replaced, context on both sides",
      before: text("a", "b", "c"),
      after: text("a", "B", "c"),
      expected: `${HEADER}@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n`,
    },
    {
      name: "changes far apart make two hunks",
      before: text(...ten),
      after: text("L1", ...ten.slice(1, 9), "L10"),
      expected: `${HEADER}@@ -1,4 +1,4 @@\n-l1\n+L1\n l2\n l3\n l4\n` +
        `@@ -7,4 +7,4 @@\n l7\n l8\n l9\n-l10\n+L10\n`,
    },
    {
      name: "changes six lines apart share one hunk",
      before: text(...ten),
      after: text("L1", ...ten.slice(1, 7), "L8", ...ten.slice(8)),
      expected: `${HEADER}@@ -1,10 +1,10 @@\n-l1\n+L1\n l2\n l3\n l4\n l5\n l6\n l7\n-l8\n+L8\n l9\n l10\n`,
    },
    {
      name: "an insertion in the middle names the line before an empty old range",
      before: text("a"),
      after: text("a", "b"),
      expected: `${HEADER}@@ -1 +1,2 @@\n a\n+b\n`,
    },
    {
      name: "a missing final newline is its own change",
      before: text("a", "b"),
      after: "a\nb",
      expected: `${HEADER}@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n`,
    },
    {
      name: "CRLF lines differ from LF lines",
      before: "a\r\nb\r\n",
      after: "a\r\nb\n",
      expected: `${HEADER}@@ -1,2 +1,2 @@\n a\r\n-b\r\n+b\n`,
    },
  ];
  for (const { name, before, after, expected } of cases) {
    assert.equal(unifiedDiff(before, after, { label: "t" }), expected, name);
  }
});

Deno.test("unified diff: context 0 shows changed lines only; the label names both sides", () => {
  assert.equal(
    unifiedDiff(text("a", "b", "c"), text("a", "B", "c"), {
      label: "kube-system/coredns[Corefile]",
      context: 0,
    }),
    "--- a/kube-system/coredns[Corefile]\n+++ b/kube-system/coredns[Corefile]\n@@ -2 +2 @@\n-b\n+B\n",
  );
});

Deno.test("unified diff: splitting keeps every terminator and loses no byte", () => {
  assert.deepEqual(splitKeepingNewlines("a\r\nb\nc"), ["a\r\n", "b\n", "c"]);
  assert.deepEqual(splitKeepingNewlines("\n\n"), ["\n", "\n"]);
  assert.deepEqual(splitKeepingNewlines(""), []);
});

Deno.test("unified diff: a block of 5,000 added lines in a large text is one hunk, found fast", () => {
  const head = Array.from({ length: 5_000 }, (_, i) => `keep ${i}`);
  const block = Array.from({ length: 5_000 }, (_, i) => `rewrite name h${i}.example.com proxy.`);
  const started = performance.now();
  const diff = unifiedDiff(text(...head), text(...head.slice(0, 2_500), ...block, ...head.slice(2_500)));
  assert.ok(performance.now() - started < 2_000, "linear in the size for one block");
  assert.equal(diff.split("\n").filter((line) => line.startsWith("@@")).length, 1);
  assert.equal(
    diff.split("\n").filter((line) => line.startsWith("+") && !line.startsWith("+++")).length,
    5_000,
  );
});

/** The length of a longest common subsequence, by the textbook table (small inputs only). */
function lcsLength(a: readonly string[], b: readonly string[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    let diagonal = 0;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = x === b[j - 1] ? diagonal + 1 : Math.max(row[j]!, row[j - 1]!);
      diagonal = above;
    }
  }
  return row[b.length]!;
}

Deno.test("unified diff (property): applying the hunks to the old text gives the new text, with a shortest edit script", () => {
  const alphabet = ["a\n", "b\n", "c\n", "d\r\n", "\n", "a", "e\n"];
  for (let seed = 1; seed <= 40; seed++) {
    const random = prng(seed);
    for (let n = 0; n < 100; n++) {
      const pick = (length: number) =>
        Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]!).join("");
      const before = pick(Math.floor(random() * 25));
      const after = random() < 0.3 ? before : pick(Math.floor(random() * 25));
      const context = Math.floor(random() * 4);
      const diff = unifiedDiff(before, after, { label: "t", context });
      const where = `seed ${seed}, case ${n}: ${JSON.stringify(before)} → ${JSON.stringify(after)}`;
      assert.equal(applyPatch(before, diff), after, where);
      assert.equal(diff === "", before === after, where);
      const a = splitKeepingNewlines(before);
      const b = splitKeepingNewlines(after);
      const script = diffLines(a, b);
      const edits = script.filter((line) => line.kind !== " ").length;
      assert.equal(edits, a.length + b.length - 2 * lcsLength(a, b), `shortest: ${where}`);
      assert.deepEqual(script.filter((line) => line.kind !== "+").map((line) => line.text), a, where);
      assert.deepEqual(script.filter((line) => line.kind !== "-").map((line) => line.text), b, where);
    }
  }
});

Deno.test("unified diff: in a run of changes the removed lines come before the added ones", () => {
  assert.equal(
    unifiedDiff(text("a", "s"), text("a", "b", "n"), { label: "t" }),
    `${HEADER}@@ -1,2 +1,3 @@\n a\n-s\n+b\n+n\n`,
  );
});

Deno.test("unifiedDiff numbers hunks from the file's start however long the unchanged head and tail are", () => {
  const lines = Array.from({ length: 1000 }, (_, i) => `l${i}\n`);
  const at = (index: number, text: string) => lines.map((line, i) => i === index ? text : line).join("");
  const before = lines.join("");
  assert.equal(
    unifiedDiff(before, at(500, "x\n")),
    "--- a/text\n+++ b/text\n@@ -498,7 +498,7 @@\n l497\n l498\n l499\n-l500\n+x\n l501\n l502\n l503\n",
  );
  assert.equal(
    unifiedDiff(before, at(1, "x\n")),
    "--- a/text\n+++ b/text\n@@ -1,5 +1,5 @@\n l0\n-l1\n+x\n l2\n l3\n l4\n",
  );
  assert.equal(
    unifiedDiff(before, before + "l1000\n"),
    "--- a/text\n+++ b/text\n@@ -998,3 +998,4 @@\n l997\n l998\n l999\n+l1000\n",
  );
});
