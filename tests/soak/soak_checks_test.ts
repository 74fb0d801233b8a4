/**
 * The soak's judges on hand-made inputs: the Corefile reader sees wrong and foreign lines, the
 * fake's audit entries map to the real audit log's shape in the order applied, and the one
 * single-writer judge, fed from them with the soak's rules, names a write made without the
 * Lease's last write.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { AuditEntry } from "../support/fake_apiserver/mod.ts";
import { writesOutsideLeadership } from "../real/single_writer.ts";
import { auditedFromFake, readCorefile, setDifference, soakWriterRules } from "./soak_checks.ts";

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

function entry(user: string, method: string, path: string, at = 0): AuditEntry {
  return { method, path, query: {}, status: 200, watch: false, at, userAgent: "", user };
}

Deno.test("soak checks: the fake's audit entries in the real audit log's shape, in the order applied", () => {
  const requests = auditedFromFake([
    entry("a", "POST", "/apis/coordination.k8s.io/v1/namespaces/ns/leases", 1_000),
    entry("a", "PATCH", "/api/v1/namespaces/kube-system/configmaps/coredns", 1_000),
    entry("b", "GET", "/api/v1/pods", 999),
    entry("b", "PUT", "/api/v1/namespaces/shop/pods/web/status", 2_000),
    entry("b", "GET", "/version", 2_000),
  ]);
  assert.deepEqual(
    requests.map((
      r,
    ) => [r.uid, r.verb, r.apiGroup, r.resource, r.namespace, r.name, r.subresource, r.received]),
    [
      [
        "a",
        "create",
        "coordination.k8s.io",
        "leases",
        "ns",
        undefined,
        undefined,
        "1970-01-01T00:00:01.000000Z",
      ],
      ["a", "patch", "", "configmaps", "kube-system", "coredns", undefined, "1970-01-01T00:00:01.000001Z"],
      ["b", "list", "", "pods", undefined, undefined, undefined, "1970-01-01T00:00:01.000002Z"],
      ["b", "update", "", "pods", "shop", "web", "status", "1970-01-01T00:00:02.000000Z"],
    ],
  );
});

Deno.test("soak checks: a guarded write counts only after the writer's own Lease write (a create is a POST), fed from the fake's log", () => {
  const lease = "/apis/coordination.k8s.io/v1/namespaces/ns/leases/l";
  const rules = soakWriterRules({
    name: "pair",
    uids: new Map([["a", "a"], ["b", "b"]]),
    lease: { namespace: "ns", name: "l" },
    guarded: { resource: "services", namespace: "ns" },
  });
  const service = "/api/v1/namespaces/ns/services/s";
  const audit = [
    entry("a", "PATCH", service),
    entry("a", "POST", "/apis/coordination.k8s.io/v1/namespaces/ns/leases"),
    entry("a", "PATCH", service),
    entry("b", "PUT", lease),
    entry("a", "PATCH", service),
    entry("b", "PATCH", service),
    entry("b", "GET", service),
    entry("c", "PATCH", service),
    entry("b", "PUT", "/apis/coordination.k8s.io/v1/namespaces/ns/leases/other"),
    entry("b", "DELETE", service),
  ];
  const violations = writesOutsideLeadership(auditedFromFake(audit), rules);
  assert.deepEqual(violations.map(({ write, leaseHolder }) => [write.uid, write.verb, leaseHolder]), [
    ["a", "patch", undefined],
    ["a", "patch", "b"],
  ]);
});
