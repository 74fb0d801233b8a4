import assert from "node:assert/strict";
import { labelSelectorProblem } from "../../lib/kube/label_selector.ts";

Deno.test("labelSelectorProblem accepts every form the API server accepts", () => {
  for (
    const selector of [
      "",
      "  ",
      "app=cert-manager",
      "app==cert-manager",
      "app!=web",
      "app.kubernetes.io/name=cert-manager",
      "tier",
      "!tier",
      "app in (cert-manager, web)",
      "app notin (a,b),tier=backend",
      "env=",
      "a_b.c-d=X.y_z",
    ]
  ) {
    assert.equal(labelSelectorProblem(selector), undefined, selector);
  }
});

Deno.test("labelSelectorProblem names what is wrong", () => {
  const cases: readonly [string, RegExp][] = [
    ["app=cert manager", /none of key/],
    ["app=,", /empty requirement/],
    ["-app=x", /"-app": a key is/],
    ["Bad_Prefix/app=x", /prefix before "\/"/],
    ["app=-x", /"-x": a value is/],
    ["app in (a,-b)", /"-b": a value is/],
    [`app=${"x".repeat(64)}`, /a value is/],
  ];
  for (const [selector, expected] of cases) {
    const problem = labelSelectorProblem(selector);
    assert.ok(problem !== undefined && expected.test(problem), `${selector}: ${problem}`);
  }
});
