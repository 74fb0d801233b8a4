import assert from "node:assert/strict";
import { NO_TRIGGER, type Trigger } from "../../lib/controller/trigger.ts";
import { type DesiredInput, sinkCallNeeded } from "../../lib/controller/sink_call_needed.ts";
import type { HostSource } from "../../lib/hostnames/sources.ts";

function desired(entries: Record<string, readonly HostSource[]>): DesiredInput {
  const hosts = Object.keys(entries).sort();
  return { hosts, sources: new Map(hosts.map((host) => [host, entries[host] ?? []])) };
}

const SHOP = desired({ "shop.example.com": ["ingress"] });
const SOURCES: Trigger = { ...NO_TRIGGER, sources: true };

Deno.test("sinkCallNeeded() calls the sink when its input moved, or when something besides hostnames asks", async (t) => {
  const rows: readonly [string, Trigger, DesiredInput | undefined, DesiredInput, boolean][] = [
    [
      "status-only churn: the same set is dropped",
      SOURCES,
      SHOP,
      desired({ "shop.example.com": ["ingress"] }),
      false,
    ],
    ["nothing accepted yet (first call, or after a failure)", SOURCES, undefined, SHOP, true],
    [
      "a hostname added",
      SOURCES,
      SHOP,
      desired({ "shop.example.com": ["ingress"], "b.example.com": ["ingress"] }),
      true,
    ],
    ["a hostname removed", SOURCES, SHOP, desired({}), true],
    [
      "the same hostnames from other kinds",
      SOURCES,
      SHOP,
      desired({ "shop.example.com": ["httproute"] }),
      true,
    ],
    [
      "one more kind for a hostname",
      SOURCES,
      SHOP,
      desired({ "shop.example.com": ["ingress", "httproute"] }),
      true,
    ],
    ["the target changed", { ...NO_TRIGGER, target: true }, SHOP, SHOP, true],
    ["a prerequisite changed", { ...NO_TRIGGER, prerequisite: true }, SHOP, SHOP, true],
    ["the resync", { ...NO_TRIGGER, resync: true }, SHOP, SHOP, true],
    ["a retry after a failure", { ...NO_TRIGGER, retry: true }, SHOP, SHOP, true],
  ];
  for (const [name, trigger, accepted, next, needed] of rows) {
    await t.step(name, () => {
      assert.equal(sinkCallNeeded({ trigger, accepted, desired: next }), needed);
    });
  }
});
