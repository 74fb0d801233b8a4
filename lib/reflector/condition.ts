/**
 * A reflector's operator-facing health as a small state machine, so an RBAC denial or an unserved
 * type is warned about once per transition, not per retry, with INFO on recovery.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Failure } from "./failure.ts";

/** How many consecutive ordinary failures pass quietly (at debug) before a WARN. */
export const FAILURES_BEFORE_WARN = 3;

/** The reflector's condition. */
export type ReflectorCondition =
  | { readonly kind: "healthy" }
  /** 403: RBAC does not allow list or watch of this type. */
  | { readonly kind: "forbidden"; readonly message: string }
  /** 404 on list: the type is not served (e.g. Gateway API CRDs are not installed). */
  | { readonly kind: "missing"; readonly message: string }
  /** Other failures in a row (dropped watches, 5xx, refused connections, throttling). */
  | { readonly kind: "failing"; readonly failures: number; readonly message: string };

/** A line the transition asks to log; `undefined` when nothing is worth more than debug. */
export type ConditionLog =
  | {
    readonly level: "warn";
    readonly condition: "forbidden" | "missing" | "failing";
    readonly message: string;
  }
  | { readonly level: "info"; readonly recoveredFrom: "forbidden" | "missing" | "failing" }
  | undefined;

/** One list or watch outcome. */
export type Outcome = { readonly ok: true } | { readonly ok: false; readonly failure: Failure };

/**
 * Folds one outcome into the condition: WARN on entering `forbidden` or `missing` or at the
 * {@linkcode FAILURES_BEFORE_WARN}th failure in a row; INFO when a warned condition ends.
 */
export function nextCondition(
  condition: ReflectorCondition,
  outcome: Outcome,
): { readonly condition: ReflectorCondition; readonly log: ConditionLog } {
  if (outcome.ok) {
    const warned = condition.kind === "forbidden" || condition.kind === "missing" ||
      (condition.kind === "failing" && condition.failures >= FAILURES_BEFORE_WARN);
    return {
      condition: { kind: "healthy" },
      log: warned ? { level: "info", recoveredFrom: condition.kind } : undefined,
    };
  }
  const { reason, message } = outcome.failure;
  if (reason === "forbidden" || reason === "not-found") {
    const kind = reason === "forbidden" ? "forbidden" : "missing";
    const next: ReflectorCondition = { kind, message };
    return {
      condition: next,
      log: condition.kind === kind ? undefined : { level: "warn", condition: kind, message },
    };
  }
  const failures = condition.kind === "failing" ? condition.failures + 1 : 1;
  return {
    condition: { kind: "failing", failures, message },
    log: failures === FAILURES_BEFORE_WARN ? { level: "warn", condition: "failing", message } : undefined,
  };
}
