import assert from "node:assert/strict";
import { type Change, changeWording, PREVIEW_MESSAGE } from "../../lib/controller/change_wording.ts";

const DIFF = "--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+rewrite name a.example.com proxy.\n";

Deno.test("changeWording(): what the loop says for each change, and what it remembers", () => {
  const cases: { name: string; change: Change; last?: string; expected: ReturnType<typeof changeWording> }[] =
    [
      {
        name: "unchanged says nothing",
        change: { kind: "unchanged", hosts: 3 },
        expected: { lines: [], preview: undefined },
      },
      {
        name: "a write: the counts at INFO, its diff at DEBUG",
        change: { kind: "written", hosts: 1, added: 1, removed: 0, diff: DIFF },
        expected: {
          lines: [
            { level: "info", message: "hostnames updated", properties: { added: 1, removed: 0, total: 1 } },
            { level: "debug", message: "the write's diff", properties: { diff: DIFF } },
          ],
          preview: undefined,
        },
      },
      {
        name: "a write without a diff (a stand-in sink): the counts only",
        change: { kind: "written", hosts: 1, added: 1, removed: 0 },
        expected: {
          lines: [{
            level: "info",
            message: "hostnames updated",
            properties: { added: 1, removed: 0, total: 1 },
          }],
          preview: undefined,
        },
      },
      {
        name: "a new preview: INFO with the whole diff, remembered",
        change: { kind: "previewed", hosts: 1, added: 1, removed: 0, diff: DIFF },
        expected: {
          lines: [{
            level: "info",
            message: PREVIEW_MESSAGE,
            properties: { added: 1, removed: 0, total: 1, diff: DIFF },
          }],
          preview: DIFF,
        },
      },
      {
        name: "the same preview again: DEBUG, marked repeated",
        change: { kind: "previewed", hosts: 1, added: 1, removed: 0, diff: DIFF },
        last: DIFF,
        expected: {
          lines: [{
            level: "debug",
            message: PREVIEW_MESSAGE,
            properties: { added: 1, removed: 0, total: 1, diff: DIFF, repeated: true },
          }],
          preview: DIFF,
        },
      },
      {
        name: "another preview after one: news again",
        change: { kind: "previewed", hosts: 0, added: 0, removed: 1, diff: `${DIFF} ` },
        last: DIFF,
        expected: {
          lines: [{
            level: "info",
            message: PREVIEW_MESSAGE,
            properties: { added: 0, removed: 1, total: 0, diff: `${DIFF} ` },
          }],
          preview: `${DIFF} `,
        },
      },
      {
        name: "a write forgets the last preview",
        change: { kind: "unchanged", hosts: 1 },
        last: DIFF,
        expected: { lines: [], preview: undefined },
      },
    ];
  for (const { name, change, last, expected } of cases) {
    assert.deepEqual(changeWording(change, last), expected, name);
  }
});

Deno.test("changeWording(): the INFO line names the hostnames added and removed, ten of each, counting the rest", () => {
  const many = Array.from({ length: 13 }, (_, i) => `h${String(i).padStart(2, "0")}.example.com`);
  const written = changeWording({
    kind: "written",
    hosts: 13,
    added: 13,
    removed: 1,
    names: { added: many, removed: ["old.example.com"] },
  }, undefined);
  assert.deepEqual(written.lines[0]?.properties, {
    added: 13,
    removed: 1,
    total: 13,
    addedHosts: many.slice(0, 10),
    addedHostsMore: 3,
    removedHosts: ["old.example.com"],
  });
  const previewed = changeWording({
    kind: "previewed",
    hosts: 1,
    added: 1,
    removed: 0,
    names: { added: ["a.example.com"], removed: [] },
    diff: DIFF,
  }, undefined);
  assert.deepEqual(previewed.lines[0]?.properties, {
    added: 1,
    removed: 0,
    total: 1,
    addedHosts: ["a.example.com"],
    diff: DIFF,
  });
});
