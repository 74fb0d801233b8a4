import assert from "node:assert/strict";
import { matchGlob } from "../../../../../lib/controller/modes/coredns/corefile/match_glob.ts";

// Expected answers follow Go's path.Match, which CoreDNS's import uses.
const CASES: [string, string, boolean][] = [
  ["*.override", "ouroboros.override", true],
  ["*.override", "ouroboros.override.bak", false],
  ["*.override", ".override", true],
  ["*", "ouroboros.override", true],
  ["*", "", true],
  ["", "", true],
  ["", "a", false],
  ["ouroboros.*", "ouroboros.override", true],
  ["*boros*", "ouroboros.override", true],
  ["o*o*o*.override", "ouroboros.override", true],
  ["?uroboros.override", "ouroboros.override", true],
  ["??uroboros.override", "ouroboros.override", false],
  ["ouroboros.overrid?", "ouroboros.override", true],
  ["[o]uroboros.override", "ouroboros.override", true],
  ["[a-n]uroboros.override", "ouroboros.override", false],
  ["[a-z]*.override", "ouroboros.override", true],
  ["[^a-n]*.override", "ouroboros.override", true],
  ["[^o]*.override", "ouroboros.override", false],
  ["[abco]uroboros.override", "ouroboros.override", true],
  ["[\\o]uroboros.override", "ouroboros.override", true],
  ["[\\]]x", "]x", true],
  ["[\\-]x", "-x", true],
  ["\\*.override", "*.override", true],
  ["\\*.override", "a.override", false],
  ["*.OVERRIDE", "ouroboros.override", false],
  ["*", "a/b", false],
  ["?", "/", false],
  // Malformed patterns match nothing, as Go returns ErrBadPattern.
  ["[", "[", false],
  ["[]a]", "]", false],
  ["[a", "a", false],
  ["[-a]", "-", false],
  ["[a-]", "a", false],
  ["x\\", "x", false],
  ["[^]", "x", false],
];

Deno.test("matchGlob follows Go's path.Match", async (t) => {
  for (const [pattern, name, expected] of CASES) {
    await t.step(`${JSON.stringify(pattern)} ~ ${JSON.stringify(name)}`, () => {
      assert.equal(matchGlob(pattern, name), expected);
    });
  }
});

Deno.test("matchGlob handles characters outside the basic plane as one character", () => {
  assert.equal(matchGlob("?.override", "😀.override"), true);
  assert.equal(matchGlob("[😀]x", "😀x"), true);
});
