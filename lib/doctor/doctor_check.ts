/**
 * The shape every `ouroboros doctor` check shares: a read-only look that yields, per thing seen,
 * a verdict and the one thing to do.
 *
 * Pure: types and one pure helper.
 *
 * @module
 */

/** How one finding ended. `could-not-check` names what was missing (a permission, time). */
export type Verdict = "ok" | "warning" | "problem" | "could-not-check";

/** Every verdict, from best to worst. */
export const VERDICTS: readonly Verdict[] = ["ok", "warning", "could-not-check", "problem"];

/** One line of the report. */
export interface Finding {
  /** The check's id, such as `need` or `dns-wiring`. */
  readonly check: string;
  /** What was looked at, such as `Service ingress-nginx/ingress-nginx-controller`. */
  readonly subject: string;
  readonly verdict: Verdict;
  /** One sentence. */
  readonly saw: string;
  /** Absent when there is nothing to do. */
  readonly todo?: string;
}

/** One check of the report. */
export interface DoctorCheck<C> {
  readonly id: string;
  readonly title: string;
  /** Looks and returns its findings; never writes. Rejects only on a bug: failures are findings. */
  run(context: C, signal: AbortSignal): Promise<readonly Finding[]>;
}

/**
 * The doctor's exit codes. 2 is taken by bad flags and 3 by the controller's `--once` (changes), so a
 * run that could not make a check is 4: `helm test` must not pass having checked nothing.
 */
export const DOCTOR_EXIT = { ok: 0, problem: 1, unchecked: 4 } as const;

/**
 * The exit status of a report: 1 when any finding is a problem, else 4 when a check could not be
 * made (0 with `allowUnchecked`, the verdict before the code existed), else 0.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { exitStatus } from "./doctor_check.ts";
 *
 * const unchecked = { check: "need", subject: "cluster", verdict: "could-not-check", saw: "403" } as const;
 * assert.equal(exitStatus([{ check: "need", subject: "cluster", verdict: "warning", saw: "…" }]), 0);
 * assert.equal(exitStatus([unchecked]), 4);
 * assert.equal(exitStatus([unchecked], { allowUnchecked: true }), 0);
 * ```
 */
export function exitStatus(
  findings: readonly Finding[],
  options: { readonly allowUnchecked?: boolean } = {},
): 0 | 1 | 4 {
  if (findings.some((finding) => finding.verdict === "problem")) return DOCTOR_EXIT.problem;
  const unchecked = findings.some((finding) => finding.verdict === "could-not-check");
  return unchecked && options.allowUnchecked !== true ? DOCTOR_EXIT.unchecked : DOCTOR_EXIT.ok;
}
