/**
 * `ouroboros controller --once`: exit 0 when the target already matched; 3 with the unified diff
 * on stdout when it was written (or would be, with `--dry-run`); 1 on a refusal, a failure, the
 * deadline or an interruption. A refusal of some hostnames exits 1 though the rest were written:
 * the target does not hold the desired set, and a preview must not say "fine".
 *
 * Pure: the report is a value; the command prints and logs it.
 *
 * @module
 */

import type { OnceResult } from "./runtime.ts";

/** How long `--once` waits for its caches and its one reconcile before it gives up (exit 1). */
export const ONCE_DEADLINE_MS = 120_000;

/** The exit statuses of `--once` (2, bad flags, is the skeleton's). */
export const ONCE_EXIT = { matches: 0, failed: 1, changes: 3 } as const;

/** What a `--once` run reports. */
export interface OnceReport {
  readonly code: number;
  /** For stdout: the diff, or `""`. */
  readonly stdout: string;
  /** One line for the log, at `level`. */
  readonly level: "info" | "error";
  readonly message: string;
  readonly properties: Readonly<Record<string, unknown>>;
}

/**
 * The report of a `--once` run (see the module doc).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { onceReport } from "./controller_once.ts";
 *
 * assert.equal(onceReport({ kind: "reconciled", outcome: { kind: "unchanged", hosts: 3 } }).code, 0);
 * const timedOut = { kind: "timed-out", reason: "waiting for the first list of: Ingress (listing)" } as const;
 * assert.equal(onceReport(timedOut).code, 1);
 * ```
 */
export function onceReport(result: OnceResult): OnceReport {
  switch (result.kind) {
    case "aborted":
      return report(ONCE_EXIT.failed, "info", "--once interrupted before its reconcile finished");
    case "timed-out":
      return report(ONCE_EXIT.failed, "error", `--once gave up after ${ONCE_DEADLINE_MS / 1000} s`, {
        reason: result.reason,
      });
  }
  const { outcome } = result;
  switch (outcome.kind) {
    case "unchanged":
      return report(ONCE_EXIT.matches, "info", "--once: the target already matches", {
        total: outcome.hosts,
      });
    case "written":
    case "previewed": {
      const counts = { added: outcome.added, removed: outcome.removed, total: outcome.hosts };
      const message = outcome.kind === "written"
        ? "--once: the target was changed"
        : "--once: the target would change (dry run; nothing written)";
      return { ...report(ONCE_EXIT.changes, "info", message, counts), stdout: outcome.diff ?? "" };
    }
    case "refused":
      return report(ONCE_EXIT.failed, "error", "--once: the write was refused", { problem: outcome.problem });
    case "failed":
      return report(ONCE_EXIT.failed, "error", "--once: the reconcile failed", { error: outcome.message });
  }
}

function report(
  code: number,
  level: OnceReport["level"],
  message: string,
  properties: Readonly<Record<string, unknown>> = {},
): OnceReport {
  return { code, stdout: "", level, message, properties };
}
