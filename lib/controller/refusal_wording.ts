/**
 * How the loop words a refusal, and when it says it again. A refusal that held back hostnames is
 * an ERROR; a safety guard that kept published records is a WARN (nothing is broken). Each
 * distinct refusal (scope, `problem`, `message`) is said once; repeats are DEBUG until a success.
 *
 * Pure: the lines are values; the loop logs them.
 *
 * @module
 */

import type { RefusalScope, SinkOutcome } from "./modes/sink.ts";

/** A refused outcome, as a sink returns it. */
export type Refusal = Extract<SinkOutcome, { kind: "refused" }>;

/** How the loop words a refusal of each scope, and at which level when it is news. */
export const REFUSAL_WORDING: Readonly<
  Record<RefusalScope, { level: "warn" | "error"; message: string; repeat: string }>
> = {
  "nothing-written": {
    level: "error",
    message: "write refused; nothing was written, retrying on the next change or resync",
    repeat: "write still refused; waiting for a change",
  },
  "some-hosts": {
    level: "error",
    message: "some hostnames were not written (the others were); retrying on the next change or resync",
    repeat: "some hostnames still not written; waiting for a change",
  },
  guard: {
    level: "warn",
    message: "a safety guard held back the change; nothing was written or deleted, published records stay",
    repeat: "the safety guard still holds; waiting for a change",
  },
};

/** One refusal line, and the identity to remember as the last refusal logged. */
export interface RefusalLine {
  readonly level: "debug" | "warn" | "error";
  readonly message: string;
  readonly properties: Readonly<Record<string, unknown>>;
  /** Pass it back as `lastLogged` next time, until a success clears it. */
  readonly identity: string;
}

/**
 * The line for `refusal`; `lastLogged` is the identity logged last (`undefined`: none, or a
 * success came since).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Refusal, refusalLine } from "./refusal_wording.ts";
 *
 * const refusal: Refusal = {
 *   kind: "refused",
 *   problem: "immutable",
 *   message: "ConfigMap kube-system/coredns is immutable",
 *   scope: "nothing-written",
 * };
 * const first = refusalLine(refusal, undefined);
 * assert.equal(first.level, "error");
 * assert.equal(first.message, "write refused; nothing was written, retrying on the next change or resync");
 * assert.equal(refusalLine(refusal, first.identity).level, "debug"); // the same refusal again
 * ```
 */
export function refusalLine(refusal: Refusal, lastLogged: string | undefined): RefusalLine {
  const { scope, problem, message } = refusal;
  const identity = `${scope}\n${problem}\n${message}`;
  const wording = REFUSAL_WORDING[scope];
  const properties = { problem, message };
  if (identity === lastLogged) return { level: "debug", message: wording.repeat, properties, identity };
  return { level: wording.level, message: wording.message, properties, identity };
}
