import assert from "node:assert/strict";
import type { DialCause } from "../../lib/proxy/dial_cause.ts";
import {
  nextReadiness,
  type ProbeResult,
  type ReadinessLog,
  type ReadinessState,
  unreachableText,
} from "../../lib/proxy/readiness.ts";

const OK: ProbeResult = { ok: true };
function fail(cause: DialCause, error = `${cause} error`): ProbeResult {
  return { ok: false, cause, error };
}
const WARN = (cause: DialCause, error = `${cause} error`): ReadinessLog => ({ level: "warn", cause, error });
const INFO: ReadinessLog = { level: "info" };

/** Feeds probe results in order from the unprobed state and collects the logs and states. */
function walk(results: readonly ProbeResult[]): { logs: ReadinessLog[]; states: ReadinessState[] } {
  let state: ReadinessState = { kind: "unprobed" };
  const logs: ReadinessLog[] = [];
  const states: ReadinessState[] = [];
  for (const result of results) {
    const step = nextReadiness(state, result);
    state = step.state;
    logs.push(step.log);
    states.push(state);
  }
  return { logs, states };
}

Deno.test("readiness logs once per transition, never while a state holds", async (t) => {
  const cases: readonly { name: string; results: ProbeResult[]; logs: ReadinessLog[] }[] = [
    { name: "healthy first probe is silent", results: [OK], logs: [undefined] },
    { name: "failing first probe warns", results: [fail("dns-nxdomain")], logs: [WARN("dns-nxdomain")] },
    {
      name: "repeated failures with the same cause warn once",
      results: [fail("connection-refused"), fail("connection-refused"), fail("connection-refused")],
      logs: [WARN("connection-refused"), undefined, undefined],
    },
    {
      name: "a change of cause while failing is not re-logged",
      results: [fail("dns-timeout"), fail("dns-nxdomain"), fail("timeout")],
      logs: [WARN("dns-timeout"), undefined, undefined],
    },
    {
      name: "recovery logs one INFO, then silence",
      results: [fail("timeout"), OK, OK, OK],
      logs: [WARN("timeout"), INFO, undefined, undefined],
    },
    {
      name: "healthy then failing warns with the new cause",
      results: [OK, OK, fail("unreachable", "No route to host")],
      logs: [undefined, undefined, WARN("unreachable", "No route to host")],
    },
    {
      name: "flapping logs every transition and nothing else",
      results: [OK, fail("connection-refused"), fail("connection-refused"), OK, fail("timeout"), OK],
      logs: [undefined, WARN("connection-refused"), undefined, INFO, WARN("timeout"), INFO],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      assert.deepEqual(walk(c.results).logs, c.logs);
    });
  }
});

Deno.test("the failing state keeps the latest cause and error for /readyz", () => {
  const { states } = walk([fail("dns-timeout", "first"), fail("dns-nxdomain", "second"), OK]);
  assert.deepEqual(states, [
    { kind: "failing", cause: "dns-timeout", error: "first" },
    { kind: "failing", cause: "dns-nxdomain", error: "second" },
    { kind: "ready" },
  ]);
});

Deno.test("the /readyz text of a failed probe names the cause and the error on one line", async (t) => {
  const cases: readonly [DialCause, string, string][] = [
    [
      "connection-refused",
      "Connection refused (os error 111)",
      "backend unreachable (connection-refused): Connection refused (os error 111)",
    ],
    [
      "dns-nxdomain",
      "failed to lookup address information: Name or service not known",
      "backend unreachable (dns-nxdomain): failed to lookup address information: Name or service not known",
    ],
    ["timeout", "dial timed out after 2s", "backend unreachable (timeout): dial timed out after 2s"],
  ];
  for (const [cause, error, body] of cases) {
    await t.step(cause, () => {
      assert.equal(unreachableText(cause, error), body);
    });
  }
});
