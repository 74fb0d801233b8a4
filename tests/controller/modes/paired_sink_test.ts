/**
 * How a pair of sinks (a CoreDNS mode's and node-local-dns's, a mode's and the route table's)
 * answers as one: the folding table, and that both sinks run every pass even when the first refuses.
 */

import assert from "node:assert/strict";
import { foldOutcomes, pairedSink } from "../../../lib/controller/modes/paired_sink.ts";
import type { Sink, SinkOutcome } from "../../../lib/controller/modes/sink.ts";

const unchanged: SinkOutcome = { kind: "unchanged", hosts: 2 };
const written = (diff: string): SinkOutcome => ({ kind: "written", hosts: 2, added: 1, removed: 0, diff });
const refused = (problem: string): SinkOutcome => ({
  kind: "refused",
  problem,
  message: `${problem} message`,
  scope: "nothing-written",
});
const failed = (message: string): SinkOutcome => ({ kind: "failed", message });
const PAIRING = { secondPrefix: "node-local-dns-", names: ["coredns", "node-local-dns"] } as const;

Deno.test("folding two outcomes: failed beats refused beats written beats unchanged", () => {
  const cases: [string, SinkOutcome, SinkOutcome, Partial<Record<string, unknown>>][] = [
    ["both unchanged", unchanged, unchanged, { kind: "unchanged", hosts: 2 }],
    ["first written", written("A"), unchanged, { kind: "written", diff: "A", added: 1 }],
    ["second written", unchanged, written("B"), { kind: "written", diff: "B" }],
    ["both written: diffs joined", written("A"), written("B"), { kind: "written", diff: "AB" }],
    ["first refused", refused("immutable"), unchanged, {
      kind: "refused",
      problem: "immutable",
      scope: "nothing-written",
    }],
    [
      "second refused: prefixed",
      unchanged,
      refused("duplicate-begin"),
      { kind: "refused", problem: "node-local-dns-duplicate-begin", scope: "nothing-written" },
    ],
    [
      "second refused while the first wrote: some-hosts",
      written("A"),
      refused("duplicate-begin"),
      { kind: "refused", problem: "node-local-dns-duplicate-begin", scope: "some-hosts" },
    ],
    ["a failure wins over a refusal", refused("immutable"), failed("503"), {
      kind: "failed",
      message: "503",
    }],
    ["two failures: messages joined", failed("a"), failed("b"), { kind: "failed", message: "a; b" }],
  ];
  for (const [name, first, second, expected] of cases) {
    const folded = foldOutcomes([first, second], PAIRING) as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(expected)) {
      assert.deepEqual(folded[key], value, `${name}: ${key}`);
    }
  }
  const withWrite = foldOutcomes([written("A"), refused("x")], PAIRING);
  assert.deepEqual(withWrite.notices?.map((notice) => [notice.level, notice.message]), [
    ["info", "coredns was written"],
  ], "the write is still told, naming the target written");
  const routes = foldOutcomes([refused("immutable"), written("B")], {
    secondPrefix: "",
    names: ["coredns", "routes"],
  });
  assert.ok(routes.kind === "refused");
  assert.equal(routes.problem, "immutable");
  assert.deepEqual(routes.notices?.map((notice) => notice.message), ["routes was written"]);
});

Deno.test("both sinks run every pass, in order, with the same hosts; notices of both are kept", async () => {
  const calls: string[] = [];
  const sink = (name: string, outcome: SinkOutcome): Sink => ({
    description: name,
    reconcile: (hosts) => {
      calls.push(`${name}:${hosts.join(",")}`);
      return Promise.resolve({ ...outcome, notices: [{ level: "debug", message: name }] });
    },
  });
  const pair = pairedSink(
    [sink("coredns", refused("immutable")), sink("node-local-dns", unchanged)],
    "node-local-dns-",
  );
  assert.equal(pair.description, "coredns + node-local-dns");
  const outcome = await pair.reconcile(["a.example.com"], new AbortController().signal);
  assert.deepEqual(calls, ["coredns:a.example.com", "node-local-dns:a.example.com"]);
  assert.equal(outcome.kind, "refused");
  assert.deepEqual(outcome.notices?.map((notice) => notice.message), ["coredns", "node-local-dns"]);
});
