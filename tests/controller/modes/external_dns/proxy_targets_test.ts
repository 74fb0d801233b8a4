/**
 * Where the records point, read from the proxy Service cache at the start of every pass, and what
 * a pass says about it: the Service found, headless, missing or not listed yet, the fixed
 * `--external-dns-proxy-ip`, and one INFO per change of addresses.
 */

import assert from "node:assert/strict";
import { Store } from "../../../../lib/reflector/store.ts";
import type { Service } from "../../../../lib/resources/service.ts";
import {
  currentTargets,
  targetNotices,
  type TargetOrigin,
} from "../../../../lib/controller/modes/external_dns/proxy_targets.ts";
import { PROXY, proxyService } from "./support.ts";

function fromCache(services: readonly Service[] | undefined): TargetOrigin {
  const store = new Store<Service>();
  if (services !== undefined) store.replace(services);
  return { kind: "service", ref: PROXY, store };
}

Deno.test("currentTargets reads the proxy Service from the cache, and says why when it cannot", async (t) => {
  await t.step("not listed yet: nothing may be decided", () => {
    assert.equal(currentTargets(fromCache(undefined)), undefined);
  });
  await t.step("the Service's cluster IPs, by family", () => {
    assert.deepEqual(currentTargets(fromCache([proxyService(["10.96.0.7", "fd00::7"])])), {
      kind: "resolved",
      targets: { ipv4: ["10.96.0.7"], ipv6: ["fd00::7"] },
      origin: "Service ouroboros/ouroboros-proxy",
    });
  });
  await t.step("missing", () => {
    const missing = currentTargets(fromCache([]));
    assert.ok(missing?.kind === "unusable", JSON.stringify(missing));
    assert.equal(missing.problem, "service-not-found");
    assert.match(
      missing.message,
      /ouroboros\/ouroboros-proxy does not exist; check --external-dns-proxy-service/,
    );
  });
  await t.step("headless", () => {
    const headless = currentTargets(fromCache([proxyService(["None"])]));
    assert.equal(headless?.kind === "unusable" && headless.problem, "headless");
  });
  await t.step("an explicit --external-dns-proxy-ip needs no Service", () => {
    assert.deepEqual(currentTargets({ kind: "address", address: "192.0.2.1" }), {
      kind: "resolved",
      targets: { ipv4: ["192.0.2.1"], ipv6: [] },
      origin: "--external-dns-proxy-ip",
    });
  });
});

Deno.test("targetNotices: one INFO when the targets first resolve and one per change; unusable states are remembered, not said", () => {
  const at = (ips: readonly string[]) => currentTargets(fromCache([proxyService(ips)]));
  const first = targetNotices(undefined, at(["10.96.0.7"]));
  assert.deepEqual(first.notices, [{
    level: "info",
    message: "external-dns: records point at the proxy's addresses",
    properties: {
      targets: "10.96.0.7 (Service ouroboros/ouroboros-proxy)",
      ipv4: ["10.96.0.7"],
      ipv6: [],
    },
  }]);
  const same = targetNotices(first.key, at(["10.96.0.7"]));
  assert.deepEqual(same, { key: first.key, notices: [] });
  const unsynced = targetNotices(first.key, undefined);
  assert.deepEqual(unsynced, { key: first.key, notices: [] }, "not listed yet changes nothing");
  const headless = targetNotices(first.key, at(["None"]));
  assert.deepEqual(headless.notices, [], "the refused pass says it");
  assert.notEqual(headless.key, first.key);
  const back = targetNotices(headless.key, at(["10.96.0.7"]));
  assert.deepEqual(back.notices.map((notice) => notice.message), [
    "external-dns: the proxy's addresses changed; re-targeting the records",
  ]);
});
