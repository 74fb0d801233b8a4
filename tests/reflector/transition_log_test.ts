import assert from "node:assert/strict";
import type { ConditionLog } from "../../lib/reflector/condition.ts";
import { transitionLog } from "../../lib/reflector/transition_log.ts";

const resource = "gateway.networking.k8s.io/v1 gateways";

Deno.test("transitionLog() words each condition change at its level", () => {
  const cases: [Exclude<ConditionLog, undefined>, string, RegExp, Record<string, unknown>][] = [
    [
      { level: "warn", condition: "forbidden", message: "403 Forbidden" },
      "warn",
      /^list or watch forbidden: check the RBAC rules \(get, list, watch\)/,
      { resource, error: "403 Forbidden" },
    ],
    [
      { level: "warn", condition: "missing", message: "404 NotFound" },
      "warn",
      /^resource type is not served \(CRD not installed\?\); treating it as empty, retrying slowly$/,
      { resource, error: "404 NotFound", retryInSeconds: 60 },
    ],
    [
      { level: "warn", condition: "failing", message: "503 ServiceUnavailable" },
      "warn",
      /^list or watch keeps failing; retrying with backoff$/,
      { resource, error: "503 ServiceUnavailable" },
    ],
    [
      { level: "info", recoveredFrom: "missing" },
      "info",
      /^list and watch recovered$/,
      { resource, recoveredFrom: "missing" },
    ],
  ];
  for (const [transition, level, message, properties] of cases) {
    const line = transitionLog(transition, { resource, missingRetryMs: 60_000 });
    assert.equal(line.level, level);
    assert.match(line.message, message);
    assert.deepEqual(line.properties, properties);
  }
});
