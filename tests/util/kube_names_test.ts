import assert from "node:assert/strict";
import { isDns1035Label, isDnsLabel, isDnsSubdomain } from "../../lib/util/kube_names.ts";

Deno.test("kube names: labels, Service names and subdomains as the API server judges them", () => {
  const cases: readonly [string, boolean, boolean, boolean][] = [
    // name, RFC 1123 label, RFC 1035 label, subdomain
    ["coredns", true, true, true],
    ["0-zero", true, false, true],
    ["a", true, true, true],
    ["a".repeat(63), true, true, true],
    ["a".repeat(64), false, false, false],
    ["-edge", false, false, false],
    ["edge-", false, false, false],
    ["Upper", false, false, false],
    ["kube-system.svc", false, false, true],
    ["a..b", false, false, false],
    ["", false, false, false],
    [`${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`, false, false, true],
    [`${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(62)}`, false, false, false],
  ];
  const wrong = cases.filter(([name, label, label1035, subdomain]) =>
    isDnsLabel(name) !== label || isDns1035Label(name) !== label1035 || isDnsSubdomain(name) !== subdomain
  );
  assert.deepEqual(wrong, []);
});
