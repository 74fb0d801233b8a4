/**
 * The loop's inputs besides the hostnames, and how it words what the sink held back: the
 * source kinds it passes along, prerequisite caches (the proxy Service) and refusal scopes.
 */

import assert from "node:assert/strict";
import type { KubeObject } from "../../lib/resources/kube_object.ts";
import { gateway, ingress, meta, route } from "../hostnames/factories.ts";
import { settle } from "../support/fake_clock.ts";
import { startLoop } from "./loop_harness.ts";

/** A stand-in for the proxy Service: only its key and resourceVersion matter to the loop. */
function service(resourceVersion: string): KubeObject {
  return { metadata: meta("ouroboros/ouroboros-proxy", resourceVersion) };
}

Deno.test("loop: nothing reaches the sink before a prerequisite has listed; its changes call the sink", async () => {
  const h = startLoop({ withPrerequisite: true });
  try {
    await h.syncAndSettle([ingress("shop/web", { tls: ["shop.example.com"] })]);
    await h.clock.advance(60_000);
    assert.equal(h.sink.calls.length, 0, "the Ingresses are known, the proxy Service is not");
    assert.deepEqual(h.loop.status().state, { kind: "waiting-for-sync", unsynced: ["Service"] });

    h.prerequisite.replace([service("1")]);
    await h.flush();
    assert.equal(h.sink.calls.length, 1);
    assert.deepEqual(h.sink.calls[0]?.hosts, ["shop.example.com"]);

    // The Service changed (its addresses, say), no hostname did: the sink must still be asked.
    h.prerequisite.apply(service("2"));
    await h.flush();
    assert.equal(h.sink.calls.length, 2);
    assert.deepEqual(h.sink.calls[1]?.hosts, ["shop.example.com"]);
    const reconciles = h.log.entries.filter((entry) => entry.message === "reconcile");
    assert.equal(reconciles.at(-1)?.properties.trigger, "prerequisite");

    h.prerequisite.delete(service("2"));
    await h.flush();
    assert.equal(h.sink.calls.length, 3, "a deleted Service is a change too");
  } finally {
    await h.stop();
  }
});

Deno.test("loop: the sink learns which kinds each hostname came from; a change of kinds alone calls it", async () => {
  const h = startLoop({ gatewayApi: true });
  try {
    await h.syncAndSettle([ingress("shop/web", { tls: ["shop.example.com"] })]);
    assert.deepEqual(
      Object.fromEntries(h.sink.calls[0]?.context?.sources ?? []),
      { "shop.example.com": ["ingress"] },
    );

    h.routes.apply(route("shop/r", ["shop.example.com"]));
    h.gateways.apply(gateway("infra/gw", "cilium", ["gw.example.com"]));
    await h.flush();
    assert.deepEqual(
      Object.fromEntries(h.sink.calls[1]?.context?.sources ?? []),
      { "gw.example.com": ["gateway-listener"], "shop.example.com": ["ingress", "httproute"] },
    );

    h.gateways.delete(gateway("infra/gw", "cilium", ["gw.example.com"]));
    await h.flush();
    assert.equal(h.sink.calls.length, 3);
    // Only the kinds move: the same hostnames, but the record's source annotation must follow.
    h.ingresses.delete(ingress("shop/web", { tls: ["shop.example.com"] }));
    await h.flush();
    assert.equal(h.sink.calls.length, 4, "the hostnames did not change, their sources did");
    assert.deepEqual(h.sink.calls[3]?.hosts, ["shop.example.com"]);
    assert.deepEqual(Object.fromEntries(h.sink.calls[3]?.context?.sources ?? []), {
      "shop.example.com": ["httproute"],
    });

    // A status-only change moves neither: the sink is not called.
    h.routes.apply(route("shop/r", ["shop.example.com"], [], "9"));
    await h.flush();
    assert.equal(h.sink.calls.length, 4);
  } finally {
    await h.stop();
  }
});

Deno.test("loop: a guard is a WARN, not an ERROR, and the pod is not ready on it", async () => {
  const h = startLoop();
  try {
    h.sink.script({
      kind: "refuse",
      problem: "mass-prune-guard",
      message: "no hostname is wanted, but 3 records exist; restore one or delete them",
      scope: "guard",
    });
    await h.syncAndSettle();
    assert.equal(h.log.entries.filter((entry) => entry.level === "error").length, 0);
    const warnings = h.log.find("warn", "a safety guard held back the change");
    assert.equal(warnings.length, 1);
    assert.equal(
      warnings[0]?.properties.message,
      "no hostname is wanted, but 3 records exist; restore one or delete them",
    );
    assert.equal(h.loop.status().succeeded, false);
    assert.equal(h.loop.status().last?.kind, "refused");
  } finally {
    await h.stop();
  }
});

Deno.test("loop: a refusal of some hostnames says the others were written and counts as a success", async () => {
  const h = startLoop();
  try {
    h.sink.script({
      kind: "refuse",
      problem: "foreign-object",
      message: "a.example.com is not published: DNSEndpoint x/y already exists",
      scope: "some-hosts",
    });
    await h.syncAndSettle([ingress("shop/web", { tls: ["a.example.com", "b.example.com"] })]);
    const errors = h.log.find("error", "some hostnames were not written (the others were)");
    assert.equal(errors.length, 1);
    assert.equal(
      h.log.find("error", "write refused").length,
      0,
      "it is not worded as if nothing was written",
    );
    assert.equal(h.loop.status().succeeded, true);
  } finally {
    await h.stop();
  }
});

Deno.test("loop: the notices of an outcome are logged at their level, naming the sink; the refusal is logged once beside them", async () => {
  const h = startLoop();
  try {
    h.sink.script({
      kind: "refuse",
      problem: "headless",
      message: "Service ouroboros/ouroboros-proxy is headless",
      notices: [
        { level: "warn", message: "a hostname was skipped", properties: { host: "b.example.com" } },
        { level: "debug", message: "record created", properties: { name: "x" } },
      ],
    });
    await h.syncAndSettle([ingress("shop/web", { tls: ["a.example.com"] })]);
    await settle();
    const warned = h.log.find("warn", "a hostname was skipped");
    assert.equal(warned.length, 1);
    assert.deepEqual(warned[0]?.properties, { target: h.sink.description, host: "b.example.com" });
    assert.equal(h.log.find("debug", "record created").length, 1);
    const refused = h.log.find("error", "write refused");
    assert.equal(refused.length, 1, "the refusal itself is one ERROR line, said by the loop");
    assert.equal(refused[0]?.properties.problem, "headless");
    assert.equal(h.observer.results.at(-1)?.kind, "refused", "the metrics count it");
  } finally {
    await h.stop();
  }
});

Deno.test("loop: a failed outcome is retried with backoff like a rejection, and its notices are logged", async () => {
  const h = startLoop();
  try {
    h.sink.script({
      kind: "failed",
      message: "ConfigMap kube-system/coredns: 503 Service Unavailable",
      notices: [{ level: "info", message: "said before failing" }],
    });
    await h.syncAndSettle([ingress("shop/web", { tls: ["a.example.com"] })]);
    await settle();
    assert.equal(h.loop.status().state.kind, "backing-off");
    const failed = h.log.find("warn", "reconcile failed; retrying after backoff");
    assert.equal(failed.length, 1);
    assert.equal(failed[0]?.properties.error, "ConfigMap kube-system/coredns: 503 Service Unavailable");
    assert.equal(h.log.find("info", "said before failing").length, 1);
    assert.equal(h.observer.results.at(-1)?.kind, "error", "counted as an error");
  } finally {
    await h.stop();
  }
});
