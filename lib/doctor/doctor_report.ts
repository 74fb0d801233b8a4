/**
 * Prints the doctor's findings: one line per finding under its check's title, or one JSON
 * document (`--output=json`).
 *
 * Pure: strings in, strings out.
 *
 * @module
 */

import { exitStatus, type Finding, type Verdict, VERDICTS } from "./doctor_check.ts";

/** A check's title and its findings, in the order run. */
export interface CheckReport {
  readonly id: string;
  readonly title: string;
  readonly findings: readonly Finding[];
}

const MARK: Readonly<Record<Verdict, string>> = {
  "ok": "ok      ",
  "warning": "WARNING ",
  "problem": "PROBLEM ",
  "could-not-check": "UNKNOWN ",
};

function counts(reports: readonly CheckReport[]): Record<Verdict, number> {
  const all = reports.flatMap((report) => report.findings);
  return Object.fromEntries(
    VERDICTS.map((verdict) => [verdict, all.filter((f) => f.verdict === verdict).length]),
  ) as Record<Verdict, number>;
}

/**
 * The report for a terminal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderTextReport } from "./doctor_report.ts";
 *
 * assert.equal(
 *   renderTextReport([{ id: "need", title: "Do you need ouroboros?", findings: [] }]),
 *   "Do you need ouroboros?\n  (nothing to report)\n\n0 ok, 0 warnings, 0 could not be checked, 0 problems\n",
 * );
 * ```
 */
export function renderTextReport(reports: readonly CheckReport[]): string {
  const lines: string[] = [];
  for (const report of reports) {
    lines.push(report.title);
    if (report.findings.length === 0) lines.push("  (nothing to report)");
    for (const finding of report.findings) {
      lines.push(`  ${MARK[finding.verdict]}${finding.subject}: ${finding.saw}`);
      if (finding.todo !== undefined) lines.push(`          → ${finding.todo}`);
    }
    lines.push("");
  }
  const total = counts(reports);
  const many = (count: number, word: string): string => `${count} ${word}${count === 1 ? "" : "s"}`;
  lines.push(
    `${total.ok} ok, ${many(total.warning, "warning")}, ${total["could-not-check"]} could not be checked, ` +
      many(total.problem, "problem"),
  );
  return `${lines.join("\n")}\n`;
}

/**
 * The report as JSON: `{ exitStatus, summary: { <verdict>: count }, checks: [{ id, title,
 * findings }] }`.
 */
export function renderJsonReport(
  reports: readonly CheckReport[],
  options: { readonly allowUnchecked?: boolean } = {},
): string {
  const findings = reports.flatMap((report) => report.findings);
  return `${
    JSON.stringify(
      {
        exitStatus: exitStatus(findings, options),
        summary: counts(reports),
        checks: reports.map(({ id, title, findings }) => ({ id, title, findings })),
      },
      null,
      2,
    )
  }\n`;
}
