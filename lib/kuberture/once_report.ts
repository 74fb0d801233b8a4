/**
 * What `ouroboros kuberture --once` prints and its exit status, from the one pass's report: 0
 * when nothing had to change, 3 when something changed (or, with `--dry-run`, would change), 1
 * when an output or a deletion failed or was refused, or no pass ran. Same codes as the
 * controller's `--once`.
 *
 * Pure: a report in, text and a number out.
 *
 * @module
 */

import type { PassReport } from "./run_pass.ts";

/** The exit statuses. */
export const KUBERTURE_ONCE_EXIT = { unchanged: 0, failed: 1, changes: 3 } as const;

/** What to print and return. */
export interface KubertureOnceReport {
  readonly code: number;
  /** For stdout: one section per output that changed or would change, then the deletions. */
  readonly stdout: string;
  /** One line for the log. */
  readonly summary: string;
}

/**
 * Decides `--once`'s output and exit status.
 *
 * @example
 * ```ts
 * import { kubertureOnceReport } from "./once_report.ts";
 *
 * kubertureOnceReport(undefined).code; // 1: no pass ran (the deadline passed, or SIGTERM)
 * kubertureOnceReport({ outputs: [], prune: [] }).code; // 0
 * ```
 */
export function kubertureOnceReport(report: PassReport | undefined): KubertureOnceReport {
  if (report === undefined) {
    return {
      code: KUBERTURE_ONCE_EXIT.failed,
      stdout: "",
      summary: "no pass ran (stopped before the caches synced)",
    };
  }
  if (report.listFailed !== undefined) {
    return {
      code: KUBERTURE_ONCE_EXIT.failed,
      stdout: "",
      summary: `cannot list this instance's objects: ${report.listFailed}`,
    };
  }
  const sections: string[] = [];
  let changes = 0;
  const failures: string[] = [];
  for (const result of report.outputs) {
    switch (result.kind) {
      case "written":
        if (result.changed) {
          changes++;
          sections.push(`output ${result.output}: ${result.name} written (${result.addresses} addresses)\n`);
        }
        break;
      case "previewed":
        if (result.diff !== "") {
          changes++;
          sections.push(result.diff);
        }
        break;
      case "kept":
        sections.push(`output ${result.output}: no address resolved; ${result.name} left as it is\n`);
        break;
      case "refused":
      case "failed":
        failures.push(`output ${result.output}: ${result.message}`);
        break;
    }
  }
  for (const result of report.prune) {
    if (result.kind === "failed") failures.push(`${result.objectKind} ${result.name}: ${result.message}`);
    else {
      changes++;
      sections.push(
        `${result.objectKind} ${result.name}: ${
          result.kind === "deleted" ? "deleted" : "would be deleted"
        }\n`,
      );
    }
  }
  const stdout = sections.join("");
  if (failures.length > 0) return { code: KUBERTURE_ONCE_EXIT.failed, stdout, summary: failures.join("; ") };
  if (changes > 0) return { code: KUBERTURE_ONCE_EXIT.changes, stdout, summary: `${changes} change(s)` };
  return { code: KUBERTURE_ONCE_EXIT.unchanged, stdout, summary: "everything already as desired" };
}
