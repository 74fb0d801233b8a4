import assert from "node:assert/strict";
import {
  type ConditionLog,
  nextCondition,
  type Outcome,
  type ReflectorCondition,
} from "../../lib/reflector/condition.ts";
import type { RestartReason } from "../../lib/reflector/failure.ts";

const OK: Outcome = { ok: true };
const fail = (reason: RestartReason): Outcome => ({ ok: false, failure: { reason, message: reason } });

/** Folds outcomes from healthy and returns the logs each one asked for. */
function walk(outcomes: readonly Outcome[]): ConditionLog[] {
  let condition: ReflectorCondition = { kind: "healthy" };
  return outcomes.map((outcome) => {
    const step = nextCondition(condition, outcome);
    condition = step.condition;
    return step.log;
  });
}

const WARN = (condition: "forbidden" | "missing" | "failing", message: string): ConditionLog => ({
  level: "warn",
  condition,
  message,
});
const INFO = (recoveredFrom: "forbidden" | "missing" | "failing"): ConditionLog => ({
  level: "info",
  recoveredFrom,
});

Deno.test("condition: 403 warns once per transition and recovery is logged", () => {
  assert.deepEqual(
    walk([fail("forbidden"), fail("forbidden"), fail("forbidden"), OK, OK, fail("forbidden")]),
    [
      WARN("forbidden", "forbidden"),
      undefined,
      undefined,
      INFO("forbidden"),
      undefined,
      WARN("forbidden", "forbidden"),
    ],
  );
});

Deno.test("condition: a missing type warns once", () => {
  assert.deepEqual(walk([fail("not-found"), fail("not-found"), OK]), [
    WARN("missing", "not-found"),
    undefined,
    INFO("missing"),
  ]);
});

Deno.test("condition: ordinary failures stay quiet until the third in a row", () => {
  assert.deepEqual(walk([fail("transport"), fail("server-error"), OK, fail("transport")]), [
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
  assert.deepEqual(
    walk([fail("transport"), fail("transport"), fail("throttled"), fail("transport"), OK]),
    [undefined, undefined, WARN("failing", "throttled"), undefined, INFO("failing")],
  );
});

Deno.test("condition: moving from one warned condition to another warns again", () => {
  assert.deepEqual(walk([fail("forbidden"), fail("not-found"), fail("forbidden")]), [
    WARN("forbidden", "forbidden"),
    WARN("missing", "not-found"),
    WARN("forbidden", "forbidden"),
  ]);
});
