/**
 * `DesiredRecompute`'s wildcard reporting: a wildcard the mode cannot write is said once per
 * object change (a new resourceVersion says it again), counted while it lasts, and forgotten
 * when it goes. And which cache changes wake the recompute at all: a status-only update does
 * not.
 */

import assert from "node:assert/strict";
import { DesiredRecompute } from "../../lib/controller/desired_recompute.ts";
import { subscribeCaches } from "../../lib/controller/loop_caches.ts";
import { NO_TRIGGER, type Trigger } from "../../lib/controller/trigger.ts";
import { addReasons } from "../../lib/daemon/control_loop.ts";
import { Store } from "../../lib/reflector/store.ts";
import type { Ingress } from "../../lib/resources/ingress.ts";
import type { HostnameSources } from "../../lib/hostnames/desired_set.ts";
import { LogRecorder } from "../support/log_recorder.ts";
import { ingress } from "../hostnames/factories.ts";

const none: HostnameSources = { ingresses: [], gateways: [], routes: [] };
const WARN = "wildcard hostname not written";

Deno.test("DesiredRecompute warns once per object change about each wildcard left out, and counts them", () => {
  const log = new LogRecorder();
  const recompute = new DesiredRecompute({ clusterDomain: "cluster.local", wildcards: "exclude" }, log);
  const first = ingress("shop/web", { tls: ["shop.example.com", "*.example.com", "*.apps.example.com"] });
  const desired = recompute.run({ ...none, ingresses: [first] });
  assert.deepEqual(desired.hosts, ["shop.example.com"]);
  assert.equal(recompute.skippedWildcards, 2);
  assert.deepEqual(log.find("warn", WARN).map((entry) => entry.properties["value"]), [
    "*.apps.example.com",
    "*.example.com",
  ]);

  recompute.run({ ...none, ingresses: [first] });
  assert.equal(log.find("warn", WARN).length, 2, "an unchanged object stays quiet");

  const changed = { ...first, metadata: { ...first.metadata, resourceVersion: "next" } };
  recompute.run({ ...none, ingresses: [changed] });
  assert.equal(log.find("warn", WARN).length, 4, "a new resourceVersion warns again");

  recompute.run(none);
  assert.equal(recompute.skippedWildcards, 0);
});

Deno.test("DesiredRecompute without exclude never warns about wildcards", () => {
  for (const wildcards of ["include", undefined] as const) {
    const log = new LogRecorder();
    const options = { clusterDomain: "cluster.local", ...(wildcards === undefined ? {} : { wildcards }) };
    const recompute = new DesiredRecompute(options, log);
    const desired = recompute.run({ ...none, ingresses: [ingress("shop/web", { tls: ["*.example.com"] })] });
    assert.deepEqual(desired.hosts, wildcards === "include" ? ["*.example.com"] : []);
    assert.equal(recompute.skippedWildcards, 0);
    assert.deepEqual(log.find("warn", WARN), []);
  }
});

Deno.test("a status-only Ingress update does not wake the loop; a spec change, an add and a delete do", () => {
  const store = new Store<Ingress>();
  let pending: Trigger = NO_TRIGGER;
  const inbox = {
    take() {
      const taken = pending;
      pending = NO_TRIGGER;
      return taken;
    },
  };
  const unsubscribe = subscribeCaches(
    { sources: { ingresses: store }, targets: [], prerequisites: [] },
    (reasons) => pending = addReasons(pending, reasons),
  );
  const first = ingress("shop/web", { tls: ["shop.example.com"], resourceVersion: "1" });
  store.replace([first]);
  assert.equal(inbox.take().sources, true, "the first list wakes the loop");

  // A fresh copy, as the watch decodes it: equal in value, not the same objects.
  const restatused: Ingress = {
    ...ingress("shop/web", { tls: ["shop.example.com"], resourceVersion: "2" }),
    status: { loadBalancer: { ingress: [{ ip: "192.0.2.7" }] } },
  };
  assert.equal(store.apply(restatused), true, "the cache takes the new status");
  assert.deepEqual(store.get("shop/web")?.status.loadBalancer.ingress, [{ ip: "192.0.2.7" }]);
  assert.equal(inbox.take().sources, false, "a status-only update is no reason to recompute");

  store.apply(ingress("shop/web", { tls: ["shop.example.com", "api.example.com"], resourceVersion: "3" }));
  assert.equal(inbox.take().sources, true, "a new TLS host wakes the loop");
  store.apply(
    ingress("shop/web", {
      tls: ["shop.example.com", "api.example.com"],
      className: "x",
      resourceVersion: "4",
    }),
  );
  assert.equal(inbox.take().sources, true, "a new class wakes the loop");
  store.apply(ingress("shop/other", { tls: ["other.example.com"], resourceVersion: "5" }));
  assert.equal(inbox.take().sources, true, "a new Ingress wakes the loop");
  store.delete(ingress("shop/other", { resourceVersion: "6" }));
  assert.equal(inbox.take().sources, true, "a deleted Ingress wakes the loop");
  unsubscribe();
});

Deno.test("DesiredRecompute after status-only updates: the same hosts, and a refusal is said again for the new version", () => {
  const log = new LogRecorder();
  const recompute = new DesiredRecompute({ clusterDomain: "cluster.local" }, log);
  const REFUSED = "hostname refused; it is not written";
  const clean = ingress("shop/web", { tls: ["shop.example.com"], resourceVersion: "1" });
  const refusing = ingress("shop/bad", {
    tls: ["api.example.com", "shöp.example.com"],
    resourceVersion: "1",
  });
  assert.deepEqual(recompute.run({ ...none, ingresses: [clean, refusing] }).hosts, [
    "api.example.com",
    "shop.example.com",
  ]);
  assert.equal(log.find("warn", REFUSED).length, 1);

  // Status-only updates, as the cache keeps them: the spec is the cached one.
  const restatus = (object: Ingress, resourceVersion: string): Ingress => ({
    ...object,
    metadata: { ...object.metadata, resourceVersion },
    status: { loadBalancer: { ingress: [{ ip: "192.0.2.7" }] } },
  });
  const desired = recompute.run({ ...none, ingresses: [restatus(clean, "2"), restatus(refusing, "2")] });
  assert.deepEqual(desired.hosts, ["api.example.com", "shop.example.com"]);
  assert.deepEqual(log.find("warn", REFUSED).map((entry) => entry.properties["resourceVersion"]), ["1", "2"]);
  assert.equal(recompute.rejected, 1);
});
