import assert from "node:assert/strict";
import { logLineProblems } from "../../lib/util/log_schema.ts";

const HEAD = '"time":"2026-12-04T10:00:00.000Z","level":"INFO","logger":"ouroboros.controller","msg":"m"';

Deno.test("log schema: a line that obeys every rule has no problem", () => {
  assert.deepEqual(
    logLineProblems(
      `{${HEAD},"durationSeconds":0.25,"resyncSeconds":600,"error":"refused","errorName":"Error",` +
        `"errorCode":"ECONNREFUSED","addedHosts":["a.example.com"],"addedHostsMore":3,"value":"Not_Valid!"}`,
    ),
    [],
  );
});

Deno.test("log schema: each broken rule is named", async (t) => {
  const cases: readonly [name: string, fields: string, problem: RegExp][] = [
    ["snake_case key", '"elapsed_time":1', /"elapsed_time" is not camelCase/],
    ["kebab-case key", '"dry-run":true', /"dry-run" is not camelCase/],
    ["milliseconds key", '"elapsedMs":12', /"elapsedMs" is a duration not in seconds/],
    ["nested milliseconds key", '"outcome":{"retryInMs":12}', /"retryInMs" is a duration/],
    ["seconds as text", '"drainSeconds":"5"', /"drainSeconds" is not a number/],
    ["Go duration text", '"drainDelay":"5.006s"', /duration as text \(5\.006s\)/],
    ["Go duration text with minutes", '"resync":"10m0s"', /duration as text \(10m0s\)/],
    ["error object", '"error":{"name":"Error","message":"x"}', /"error" is not a string/],
    ["quoted value", '"value":"\\"Not_Valid!\\""', /"value" is quoted inside the JSON/],
    ["(none)", '"markerId":"(none)"', /"markerId" says \(none\)/],
    ["empty string", '"leader":""', /"leader" is empty/],
  ];
  for (const [name, fields, problem] of cases) {
    await t.step(name, () => {
      const problems = logLineProblems(`{${HEAD},${fields}}`);
      assert.ok(problems.some((text) => problem.test(text)), `${problem} not in ${JSON.stringify(problems)}`);
    });
  }
});

Deno.test("log schema: a line that is not JSON, or lacks the fixed fields in order, is a problem", () => {
  assert.match(logLineProblems("level=INFO msg=hi")[0] ?? "", /not JSON/);
  assert.ok(logLineProblems('{"msg":"m","level":"INFO"}').some((text) => /does not start with/.test(text)));
  assert.ok(
    logLineProblems('{"time":"t","level":"LOUD","logger":"l","msg":"m"}').some((text) =>
      /not a known level/.test(text)
    ),
  );
});
