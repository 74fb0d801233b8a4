import assert from "node:assert/strict";
import { kubertureOnceReport } from "../../lib/kuberture/once_report.ts";
import type { PassReport } from "../../lib/kuberture/run_pass.ts";

Deno.test("kuberture --once: exit status and stdout from the pass's report", async (t) => {
  const cases: [string, PassReport | undefined, number, RegExp | undefined][] = [
    ["no pass ran", undefined, 1, undefined],
    ["the list failed", { outputs: [], prune: [], listFailed: "503" }, 1, undefined],
    [
      "nothing to do",
      {
        outputs: [{ kind: "written", output: "api", name: "kuberture-api", changed: false, addresses: 1 }],
        prune: [],
      },
      0,
      undefined,
    ],
    [
      "a write that changed the Service",
      {
        outputs: [{ kind: "written", output: "api", name: "kuberture-api", changed: true, addresses: 2 }],
        prune: [],
      },
      3,
      /output api: kuberture-api written \(2 addresses\)/,
    ],
    [
      "a preview with a diff",
      {
        outputs: [{ kind: "previewed", output: "api", name: "kuberture-api", diff: "+a\n", addresses: 1 }],
        prune: [],
      },
      3,
      /^\+a$/m,
    ],
    [
      "a preview without a diff",
      {
        outputs: [{ kind: "previewed", output: "api", name: "kuberture-api", diff: "", addresses: 1 }],
        prune: [],
      },
      0,
      undefined,
    ],
    [
      "a held-back output alone changes nothing",
      {
        outputs: [{ kind: "kept", output: "api", name: "kuberture-api" }],
        prune: [],
      },
      0,
      /no address resolved/,
    ],
    [
      "a stale object deleted",
      { outputs: [], prune: [{ kind: "deleted", objectKind: "Service", name: "old" }] },
      3,
      /Service old: deleted/,
    ],
    [
      "a failed output wins over changes",
      {
        outputs: [
          { kind: "written", output: "a", name: "a", changed: true, addresses: 1 },
          { kind: "failed", output: "b", name: "b", message: "500" },
        ],
        prune: [],
      },
      1,
      undefined,
    ],
  ];
  for (const [name, report, code, stdout] of cases) {
    await t.step(name, () => {
      const result = kubertureOnceReport(report);
      assert.equal(result.code, code);
      if (stdout !== undefined) assert.match(result.stdout, stdout);
    });
  }
});
