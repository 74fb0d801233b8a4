import assert from "node:assert/strict";
import { ONCE_DEADLINE_MS, ONCE_EXIT, onceReport } from "../../lib/controller/controller_once.ts";
import { CONTROLLER_OPTIONS } from "../../lib/controller/controller_options.ts";
import type { OnceResult } from "../../lib/controller/runtime.ts";

const DIFF = "--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+a\n";

Deno.test("onceReport(): the exit status and stdout of every way a --once run ends", () => {
  const cases: { name: string; result: OnceResult; code: number; stdout: string; level: string }[] = [
    {
      name: "the target already matches",
      result: { kind: "reconciled", outcome: { kind: "unchanged", hosts: 2 } },
      code: 0,
      stdout: "",
      level: "info",
    },
    {
      name: "written (without --dry-run): the diff of the write",
      result: {
        kind: "reconciled",
        outcome: { kind: "written", hosts: 1, added: 1, removed: 0, diff: DIFF },
      },
      code: 3,
      stdout: DIFF,
      level: "info",
    },
    {
      name: "previewed (with --dry-run): the diff a write would make",
      result: {
        kind: "reconciled",
        outcome: { kind: "previewed", hosts: 1, added: 1, removed: 0, diff: DIFF },
      },
      code: 3,
      stdout: DIFF,
      level: "info",
    },
    {
      name: "a refusal of some hostnames is still an error: the target does not hold the desired set",
      result: {
        kind: "reconciled",
        outcome: { kind: "refused", problem: "foreign-object", message: "…", scope: "some-hosts" },
      },
      code: 1,
      stdout: "",
      level: "error",
    },
    {
      name: "a guard",
      result: {
        kind: "reconciled",
        outcome: { kind: "refused", problem: "mass-prune-guard", message: "…", scope: "guard" },
      },
      code: 1,
      stdout: "",
      level: "error",
    },
    {
      name: "a failure",
      result: { kind: "reconciled", outcome: { kind: "failed", message: "503" } },
      code: 1,
      stdout: "",
      level: "error",
    },
    {
      name: "no answer within the deadline",
      result: { kind: "timed-out", reason: "waiting for the first list of: Ingress (listing)" },
      code: 1,
      stdout: "",
      level: "error",
    },
    { name: "interrupted", result: { kind: "aborted" }, code: 1, stdout: "", level: "info" },
  ];
  for (const { name, result, code, stdout, level } of cases) {
    const report = onceReport(result);
    assert.deepEqual([report.code, report.stdout, report.level], [code, stdout, level], name);
  }
  assert.deepEqual(ONCE_EXIT, { matches: 0, failed: 1, changes: 3 });
  assert.equal(
    onceReport({ kind: "timed-out", reason: "waiting for the first list of: Ingress (listing)" }).properties
      .reason,
    "waiting for the first list of: Ingress (listing)",
    "the log says what was missing",
  );
});

Deno.test("--once's help states the deadline the run keeps", () => {
  assert.match(
    CONTROLLER_OPTIONS.options.once.help,
    new RegExp(`within ${ONCE_DEADLINE_MS / 60_000} minutes`),
  );
  assert.equal(CONTROLLER_OPTIONS.options.once.env, null, "flag only");
  assert.equal(CONTROLLER_OPTIONS.options.dryRun.default, "false");
});
