import assert from "node:assert/strict";
import { shareUnchanged } from "../../lib/reflector/structural_share.ts";

const cached = {
  metadata: { name: "web", namespace: "shop", uid: "7c1f", resourceVersion: "1", labels: {} },
  spec: { rules: [{ host: "a.example.com" }, {}], tls: [{ hosts: ["a.example.com", "b.example.com"] }] },
  status: { loadBalancer: { ingress: [{ ip: "192.0.2.1" }] } },
};

/** The same object as decoded again from the wire: equal in value, no part shared. */
function fresh<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

Deno.test("a status-only update keeps the cached spec and metadata strings, and only the status is new", () => {
  const next = fresh({
    ...cached,
    metadata: { ...cached.metadata, resourceVersion: "2" },
    status: { loadBalancer: { ingress: [{ ip: "192.0.2.9" }] } },
  });
  const shared = shareUnchanged(cached, next);
  assert.deepEqual(shared, next, "equal in value to the new version");
  assert.equal(shared.spec, cached.spec);
  assert.equal(shared.metadata.labels, cached.metadata.labels);
  assert.notEqual(shared.metadata, cached.metadata);
  assert.equal(shared.metadata.resourceVersion, "2");
  assert.notEqual(shared.status, cached.status);
  assert.equal(shared.status.loadBalancer.ingress[0]?.ip, "192.0.2.9");
});

Deno.test("an equal object is the cached one; a changed host keeps its unchanged neighbours", () => {
  assert.equal(shareUnchanged(cached, fresh(cached)), cached);
  const next = fresh(cached);
  next.spec.tls = [{ hosts: ["c.example.com", "b.example.com"] }];
  const shared = shareUnchanged(cached, next);
  assert.deepEqual(shared, next);
  assert.equal(shared.spec.rules, cached.spec.rules);
  assert.deepEqual(shared.spec.tls[0]?.hosts, ["c.example.com", "b.example.com"]);
  assert.notEqual(shared.spec.tls, cached.spec.tls);
});

Deno.test("added, removed and retyped parts are taken from the new version", () => {
  const previous: Record<string, unknown> = { a: [1, 2], b: { c: "x" }, d: "y", e: [] };
  const next: Record<string, unknown> = { a: [1, 2, 3], b: ["c"], f: null, e: {} };
  const shared = shareUnchanged(previous, next);
  assert.deepEqual(shared, next);
  assert.equal("d" in shared, false);
  assert.deepEqual(shareUnchanged({ a: 1 }, { a: 1, b: 2 }), { a: 1, b: 2 });
  assert.deepEqual(shareUnchanged({ a: 1, b: 2 }, { a: 1 }), { a: 1 });
});
