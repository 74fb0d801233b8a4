/**
 * What `ouroboros kuberture --once` prints and its exit status: 0 unchanged, 3 changed (or would,
 * with `--dry-run`), 1 failed or no pass ran; the controller's `--once` codes.
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
  readonly summary: string;
}

/** Decides `--once`'s output and exit status. */
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
