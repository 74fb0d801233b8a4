import assert from "node:assert/strict";
import {
  COREDNS_IMPORT_SINK_PROBLEMS,
  COREDNS_SINK_PROBLEMS,
  modeRefusalProblems,
} from "../../../../lib/controller/modes/coredns/refusal_problems.ts";

/** The `problem: "<code>"` literals a sink's source refuses with. */
async function literalProblems(file: string): Promise<string[]> {
  const source = await Deno.readTextFile(
    new URL(`../../../../lib/controller/modes/coredns/${file}`, import.meta.url),
  );
  return [...source.matchAll(/problem: "([a-z-]+)"/g)].map((match) => match[1]!);
}

Deno.test("every code the CoreDNS sinks refuse with is listed, so its series starts at zero", async () => {
  const sink = await literalProblems("coredns_sink.ts");
  assert.ok(sink.length >= 5, "the scan finds the sink's refusals");
  for (const problem of sink) assert.ok(COREDNS_SINK_PROBLEMS.includes(problem), `coredns: ${problem}`);
  const imported = await literalProblems("coredns_import_sink.ts");
  assert.ok(imported.length >= 4, "the scan finds the import sink's refusals");
  for (const problem of imported) {
    assert.ok(COREDNS_IMPORT_SINK_PROBLEMS.includes(problem), `coredns-import: ${problem}`);
  }
  for (const problem of ["no-root-block", "end-before-begin", "unclosed-brace", "no-cluster-forward"]) {
    assert.ok(COREDNS_SINK_PROBLEMS.includes(problem), `the Corefile editor's ${problem}`);
  }
  assert.equal(new Set(COREDNS_SINK_PROBLEMS).size, COREDNS_SINK_PROBLEMS.length, "no code twice");
});

Deno.test("--node-local-dns=manage adds the node-local-dns sink's codes under their prefix", () => {
  assert.deepEqual(modeRefusalProblems(COREDNS_IMPORT_SINK_PROBLEMS, "warn"), COREDNS_IMPORT_SINK_PROBLEMS);
  const managed = modeRefusalProblems(COREDNS_SINK_PROBLEMS, "manage");
  assert.ok(managed.includes("no-root-block") && managed.includes("node-local-dns-no-cluster-forward"));
  assert.equal(managed.length, 2 * COREDNS_SINK_PROBLEMS.length);
});
