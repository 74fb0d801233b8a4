/**
 * How a reflector words a change of its health condition ({@linkcode nextCondition} decides when
 * one is worth a line).
 *
 * Pure: the lines are values; the reflector logs them.
 *
 * @module
 */

import type { ConditionLog } from "./condition.ts";
import { toSeconds } from "../util/duration.ts";

/** One line to log. */
export interface TransitionLine {
  readonly level: "info" | "warn";
  readonly message: string;
  readonly properties: Record<string, unknown>;
}

/** What the wording needs besides the transition. */
export interface TransitionLogOptions {
  readonly resource: string;
  /** The slow retry period of an unserved type, said in its warning. */
  readonly missingRetryMs: number;
}

/** The line for a condition transition. */
export function transitionLog(
  transition: Exclude<ConditionLog, undefined>,
  options: TransitionLogOptions,
): TransitionLine {
  const resource = options.resource;
  if (transition.level === "info") {
    return {
      level: "info",
      message: "list and watch recovered",
      properties: { resource, recoveredFrom: transition.recoveredFrom },
    };
  }
  switch (transition.condition) {
    case "forbidden":
      return {
        level: "warn",
        message:
          "list or watch forbidden: check the RBAC rules (get, list, watch) for this resource; retrying",
        properties: { resource, error: transition.message },
      };
    case "missing":
      return {
        level: "warn",
        message: "resource type is not served (CRD not installed?); treating it as empty, retrying slowly",
        properties: {
          resource,
          error: transition.message,
          retryInSeconds: toSeconds(options.missingRetryMs),
        },
      };
    case "failing":
      return {
        level: "warn",
        message: "list or watch keeps failing; retrying with backoff",
        properties: { resource, error: transition.message },
      };
  }
}
