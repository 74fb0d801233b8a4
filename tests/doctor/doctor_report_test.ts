import assert from "node:assert/strict";
import { exitStatus, type Finding } from "../../lib/doctor/doctor_check.ts";
import { renderJsonReport, renderTextReport } from "../../lib/doctor/doctor_report.ts";

const FINDINGS: readonly Finding[] = [
  { check: "need", subject: "Service a/b", verdict: "ok", saw: "fine" },
  { check: "need", subject: "Service c/d", verdict: "warning", saw: "hmm", todo: "look" },
  {
    check: "dns",
    subject: "ConfigMap kube-system/coredns",
    verdict: "problem",
    saw: "no block",
    todo: "fix",
  },
  { check: "dns", subject: "Deployment kube-system/coredns", verdict: "could-not-check", saw: "403" },
];
const REPORTS = [
  { id: "need", title: "Need?", findings: FINDINGS.slice(0, 2) },
  { id: "dns", title: "DNS wiring", findings: FINDINGS.slice(2) },
];

Deno.test("exitStatus: 1 with a problem; else 4 when a check could not be made, unless that is allowed; else 0", () => {
  const noProblem = FINDINGS.filter((finding) => finding.verdict !== "problem");
  const allChecked = noProblem.filter((finding) => finding.verdict !== "could-not-check");
  assert.equal(exitStatus(FINDINGS), 1);
  assert.equal(exitStatus(FINDINGS, { allowUnchecked: true }), 1, "a problem is 1 whatever is allowed");
  assert.equal(exitStatus(noProblem), 4);
  assert.equal(exitStatus(noProblem, { allowUnchecked: true }), 0);
  assert.equal(exitStatus(allChecked), 0);
  assert.equal(exitStatus([]), 0);
});

Deno.test("renderTextReport: a line per finding under its check, what to do below, a summary", () => {
  assert.equal(
    renderTextReport(REPORTS),
    [
      "Need?",
      "  ok      Service a/b: fine",
      "  WARNING Service c/d: hmm",
      "          → look",
      "",
      "DNS wiring",
      "  PROBLEM ConfigMap kube-system/coredns: no block",
      "          → fix",
      "  UNKNOWN Deployment kube-system/coredns: 403",
      "",
      "1 ok, 1 warning, 1 could not be checked, 1 problem",
      "",
    ].join("\n"),
  );
});

Deno.test("renderJsonReport: every finding, the exit status and the counts", () => {
  const report = JSON.parse(renderJsonReport(REPORTS));
  assert.equal(report.exitStatus, 1);
  assert.deepEqual(report.summary, { "ok": 1, "warning": 1, "could-not-check": 1, "problem": 1 });
  assert.deepEqual(report.checks.map((check: { id: string }) => check.id), ["need", "dns"]);
  assert.deepEqual(report.checks[1].findings[0], FINDINGS[2]);
});
