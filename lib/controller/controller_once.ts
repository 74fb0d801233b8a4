/**
 * `ouroboros controller --once`: what a one-shot run prints and the status it exits with, for CI
 * and GitOps previews and for comparing with the original (`--once --dry-run` next to it).
 *
 * | the one reconcile                    | stdout                       | exit |
 * |--------------------------------------|------------------------------|------|
 * | `unchanged`: the target matches      | nothing                      | 0    |
 * | `written` (without `--dry-run`)      | the unified diff of the write| 3    |
 * | `previewed` (with `--dry-run`)       | the diff a write would make  | 3    |
 * | `refused`, of any scope              | nothing (the reason: stderr) | 1    |
 * | `failed`, or no answer in time       | nothing (the reason: stderr) | 1    |
 * | interrupted (SIGTERM/SIGINT)         | nothing                      | 1    |
 *
 * Bad flags exit 2 before any of this (the skeleton). A refusal or failure is already logged by
 * the loop at its level; only what the loop cannot know (the deadline, an interruption) is worded
 * here. A refusal of some hostnames exits 1 even though the others were written: the target does
 * not hold the desired set, and a preview that says "fine" then would hide it.
 *
 * Pure: the report is a value; `controller.ts` prints and logs it.
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
 * The report of a `--once` run (see the module's table).
 *
 * @example
 * ```ts
 * import { onceReport } from "./controller_once.ts";
 *
 * onceReport({ kind: "reconciled", outcome: { kind: "unchanged", hosts: 3 } }).code; // 0
 * onceReport({ kind: "timed-out", reason: "waiting for the first list of: Ingress (listing)" }).code; // 1
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
