/**
 * The soak's judges on hand-made inputs: the Corefile reader sees wrong and foreign lines, and
 * the single-writer judge names a write made without the Lease's last write.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { AuditEntry } from "../support/fake_apiserver/mod.ts";
import { readCorefile, setDifference, writesOutsideLeadership } from "./soak_checks.ts";

const FQDN = "proxy.ouroboros.svc.cluster.local.";
const COREFILE = [
  ".:53 {",
  "    # === BEGIN ouroboros (do not edit by hand) ===",
  `    rewrite name a.example.com ${FQDN}`,
  `    rewrite name regex ^[^.]+\\.w\\.example\\.com\\.$ ${FQDN} answer auto`,
  "    rewrite name b.example.com elsewhere.",
  "    # === END ouroboros ===",
  "    forward . /etc/resolv.conf",
  "}",
].join("\n");

Deno.test("soak checks: the Corefile block's hosts, its foreign lines and the text around it", () => {
  const read = readCorefile(COREFILE, FQDN);
  assert.deepEqual(read.hosts, ["a.example.com", "*.w.example.com"]);
  assert.deepEqual(read.foreign, [`    rewrite name b.example.com elsewhere.`]);
  assert.equal(read.outside, ".:53 {\n    forward . /etc/resolv.conf\n}");
  assert.equal(readCorefile(".:53 {\n}", FQDN).hosts, undefined);
  assert.deepEqual(setDifference("the block", ["a", "b"], ["b", "c"]), [
    "the block lacks a",
    "the block holds c, which it should not",
  ]);
  assert.deepEqual(setDifference("the block", ["a"], ["a"]), []);
});

function entry(user: string, method: string, path: string): AuditEntry {
  return { method, path, query: {}, status: 200, watch: false, at: 0, userAgent: "", user };
}

Deno.test("soak checks: a guarded write counts only after the writer's own Lease write (a create is a POST)", () => {
  const lease = "/apis/coordination.k8s.io/v1/namespaces/ns/leases/l";
  const rules = {
    name: "pair",
    users: ["a", "b"],
    leasePath: lease,
    guarded: (e: AuditEntry) => e.path.startsWith("/api/v1/namespaces/ns/services"),
  };
  const service = "/api/v1/namespaces/ns/services/s";
  const audit = [
    entry("a", "PATCH", service),
    entry("a", "POST", "/apis/coordination.k8s.io/v1/namespaces/ns/leases"),
    entry("a", "PATCH", service),
    entry("b", "PUT", lease),
    entry("a", "PATCH", service),
    entry("b", "PATCH", service),
    entry("b", "GET", service),
  ];
  const problems = writesOutsideLeadership(audit, rules);
  assert.equal(problems.length, 2);
  assert.match(problems[0]!, /a wrote .* while the Lease's last write was nobody's/);
  assert.match(problems[1]!, /a wrote .* while the Lease's last write was b's/);
  assert.deepEqual(writesOutsideLeadership(audit, rules, 5), []);
});
