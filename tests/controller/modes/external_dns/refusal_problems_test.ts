import assert from "node:assert/strict";
import { EXTERNAL_DNS_SINK_PROBLEMS } from "../../../../lib/controller/modes/external_dns/refusal_problems.ts";

Deno.test("every code external-dns mode's sink refuses with is listed, so its series starts at zero", async () => {
  const source = await Deno.readTextFile(
    new URL("../../../../lib/controller/modes/external_dns/external_dns_sink.ts", import.meta.url),
  );
  const literals = [
    ...[...source.matchAll(/problem: [^\n]*?"([a-z-]+)"/g)].map((match) => match[1]!),
    ...[...source.matchAll(/const problem = [^\n]*/g)].flatMap((match) =>
      [...match[0].matchAll(/"([a-z-]+)"/g)].map((literal) => literal[1]!)
    ),
  ].filter((code) => code !== "empty-desired");
  assert.ok(literals.length >= 3, `the scan finds the sink's refusals: ${literals}`);
  for (const problem of literals) assert.ok(EXTERNAL_DNS_SINK_PROBLEMS.includes(problem), problem);
  for (const problem of ["service-not-found", "headless", "foreign-object", "name-clash"]) {
    assert.ok(EXTERNAL_DNS_SINK_PROBLEMS.includes(problem), problem);
  }
  assert.equal(new Set(EXTERNAL_DNS_SINK_PROBLEMS).size, EXTERNAL_DNS_SINK_PROBLEMS.length, "no code twice");
});
