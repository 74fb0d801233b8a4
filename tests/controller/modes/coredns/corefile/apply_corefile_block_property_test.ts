import assert from "node:assert/strict";
import { applyCorefileBlock } from "../../../../../lib/controller/modes/coredns/corefile/apply_corefile_block.ts";
import { tokenizeCorefile } from "../../../../../lib/controller/modes/coredns/corefile/tokenize_corefile.ts";
import { prng } from "../../../../support/random.ts";
import { FIXTURES, toCrlf, toTabs, withoutFinalNewline } from "../fixtures/corefiles.ts";
import { BEGIN, blockLines, END, expectedBlock, FQDN, rawLines, withoutBlock } from "../support.ts";

type Random = () => number;

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function label(random: Random): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  const length = 1 + Math.floor(random() * 12);
  let text = "";
  for (let index = 0; index < length; index++) text += pick(random, [...alphabet]);
  return random() < 0.2 && length > 2 ? `${text.slice(0, 1)}-${text.slice(2)}` : text;
}

/** A sorted, de-duplicated set of 0–12 valid hostnames, as the controller hands them over. */
function hostSet(random: Random): string[] {
  const count = random() < 0.2 ? 0 : Math.floor(random() * 13);
  const hosts = new Set<string>();
  for (let index = 0; index < count; index++) {
    const labels = Array.from({ length: 1 + Math.floor(random() * 3) }, () => label(random));
    hosts.add(`${labels.join(".")}.${pick(random, ["com", "org", "example", "io"])}`);
  }
  return [...hosts].sort();
}

/** Comment lines with braces and quotes, which must never be mistaken for structure. */
const NOISE = ["# { not a block", "    # } nor this", '# "unbalanced quote', "\t# {{ }} ]]", "#", ""];

/** A fixture in a random dress: CRLF, tabs, no final newline, comment lines sprinkled in. */
function randomCorefile(random: Random): { text: string; indent: string; newline: string } {
  const fixture = pick(random, FIXTURES);
  let text = fixture.text;
  let indent = fixture.indent;
  if (random() < 0.3) {
    text = toTabs(text);
    indent = "\t";
  }
  const all = rawLines(text);
  const insertions = Math.floor(random() * 4);
  for (let index = 0; index < insertions; index++) {
    // Never after the last line: the test below expects the original final-newline state.
    all.splice(Math.floor(random() * all.length), 0, `${pick(random, NOISE)}\n`);
  }
  text = all.join("");
  const crlf = random() < 0.3;
  if (crlf) text = toCrlf(text);
  if (random() < 0.3) text = withoutFinalNewline(text);
  return { text, indent, newline: crlf ? "\r\n" : "\n" };
}

Deno.test("property: random host sets over random Corefiles keep the file intact (T-2.4, T-2.13)", () => {
  for (let seed = 1; seed <= 300; seed++) {
    const random = prng(seed);
    const { text: original, indent, newline } = randomCorefile(random);
    let current = original;
    for (let step = 0; step < 6; step++) {
      const hosts = hostSet(random);
      const where = `seed ${seed}, step ${step}, ${hosts.length} hosts`;
      const edit = applyCorefileBlock(current, { hosts, fqdn: FQDN });
      assert.notEqual(edit.kind, "refused", `${where}: ${edit.kind === "refused" ? edit.message : ""}`);
      const next = edit.kind === "changed" ? edit.corefile : current;

      assert.ok(tokenizeCorefile(next).ok, `${where}: output must tokenize with balanced braces`);
      assert.equal(withoutBlock(next), original, `${where}: bytes outside the markers changed`);
      assert.deepEqual(blockLines(next), expectedBlock(hosts, indent, newline), `${where}: block content`);
      if (hosts.length > 0) {
        const all = rawLines(next);
        const end = all.findIndex((line) => line.trim() === END);
        assert.equal(all[end + 1]?.trim(), "}", `${where}: the block must close the root block`);
        assert.equal(next.split(BEGIN).length, 2, `${where}: exactly one block`);
      }
      assert.deepEqual(
        applyCorefileBlock(next, { hosts, fqdn: FQDN }),
        { kind: "unchanged" },
        `${where}: not idempotent`,
      );
      current = next;
    }
    const removed = applyCorefileBlock(current, { hosts: [], fqdn: FQDN });
    const final = removed.kind === "changed" ? removed.corefile : current;
    assert.notEqual(removed.kind, "refused", `seed ${seed}: removal refused`);
    assert.equal(final, original, `seed ${seed}: removing every host must give the original back`);
  }
});

/** Fragments that make Corefile-like text; the last ones are the traps. */
const FRAGMENTS = [
  "\n",
  "\r\n",
  "\n    ",
  "\t",
  " ",
  "errors",
  "cache 30",
  "reload",
  "example.org {\n}\n",
  "health {\n  lameduck 5s\n}\n",
  "(snip) {\n  log\n}\n",
  "import snip",
  "# { comment\n",
  '"}"',
  "x{",
  "#",
  "{",
  "}",
  '"',
  "\\",
  "# === BEGIN ouroboros (do not edit by hand) ===",
  "# === END ouroboros ===",
  `rewrite name a.example.com ${FQDN}`,
];

function fragments(random: Random, count: number): string {
  let text = "";
  for (let index = 0; index < count; index++) {
    // Favour the harmless fragments so that a fair share of texts is editable at all.
    const traps = random() < 0.05;
    // Mostly whitespace between fragments, sometimes none, so words also glue together.
    text += pick(random, [" ", "\n", "\t", "\r\n", " ", "\n", ""]);
    text += traps ? pick(random, FRAGMENTS.slice(14)) : pick(random, FRAGMENTS.slice(0, 14));
  }
  return text;
}

Deno.test("property: arbitrary Corefile-like text never throws, and every accepted edit is clean (T-2.13)", () => {
  let changedCount = 0;
  const problems = new Set<string>();
  const runs = 2_000;
  for (let seed = 1; seed <= runs; seed++) {
    const random = prng(seed * 7919);
    const key = pick(random, [".:53", ".", "dns://.:53", ".:8053", "example.org"]);
    const text = fragments(random, Math.floor(random() * 6)) + `${key} {` +
      fragments(random, Math.floor(random() * 20)) + "\n}" + fragments(random, Math.floor(random() * 6));
    const hosts = random() < 0.3 ? [] : ["a.example.com", "b.example.com"];
    const edit = applyCorefileBlock(text, { hosts, fqdn: FQDN });
    if (edit.kind === "refused") {
      assert.ok(edit.message.length > 0);
      assert.notEqual(edit.problem, "self-check-failed", `seed ${seed}: ${edit.message}`);
      problems.add(edit.problem);
      continue;
    }
    if (edit.kind === "changed") changedCount++;
    const next = edit.kind === "changed" ? edit.corefile : text;
    assert.ok(tokenizeCorefile(next).ok, `seed ${seed}: accepted output must tokenize`);
    assert.equal(withoutBlock(next), withoutBlock(text), `seed ${seed}: bytes outside the markers changed`);
    assert.deepEqual(
      applyCorefileBlock(next, { hosts, fqdn: FQDN }),
      { kind: "unchanged" },
      `seed ${seed}: not idempotent`,
    );
  }
  // The generator must reach both the editing path and the refusals often enough to mean something.
  assert.ok(changedCount >= 300, `only ${changedCount} of ${runs} generated Corefiles were edited`);
  assert.ok(problems.size >= 6, `only these refusals were reached: ${[...problems].join(", ")}`);
});
