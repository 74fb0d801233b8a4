/**
 * The desired-set memo: with it, a recompute reuses the results of objects it has seen and
 * checks only new ones, and must give exactly the answer a fresh computation gives.
 */

import assert from "node:assert/strict";
import {
  createDesiredSetMemo,
  desiredHostnames,
  type DesiredSetOptions,
} from "../../lib/hostnames/desired_set.ts";
import type { Gateway } from "../../lib/resources/gateway.ts";
import type { HttpRoute } from "../../lib/resources/http_route.ts";
import type { Ingress } from "../../lib/resources/ingress.ts";
import { prng } from "../support/random.ts";
import { gateway, ingress, meta, route } from "./factories.ts";

const OPTIONS: DesiredSetOptions = { clusterDomain: "cluster.local", ingressHosts: "all" };

/** A small pool of values, some shared between objects, some refused. */
const VALUES = [
  "a.example.com",
  "b.example.com",
  "B.Example.com",
  "c.example.com",
  "*.example.com",
  "10.0.0.1",
  "svc.cluster.local",
  "bad host.example.com",
  "d.example.org",
];

Deno.test("desiredHostnames with a memo equals a fresh computation through 300 random replacements", () => {
  for (const seed of [1, 2, 3]) {
    const random = prng(seed);
    const pick = () => VALUES[Math.floor(random() * VALUES.length)] as string;
    const picks = (n: number) => Array.from({ length: 1 + Math.floor(random() * n) }, pick);
    const ingresses = new Map<string, Ingress>();
    const gateways = new Map<string, Gateway>();
    const routes = new Map<string, HttpRoute>();
    const memo = createDesiredSetMemo();
    let version = 1;
    for (let step = 0; step < 300; step++) {
      const slot = `ns/o${Math.floor(random() * 8)}`;
      const kind = random();
      version++;
      // Each change is a new object, as the caches hand them out; deletes too.
      if (random() < 0.15) {
        ingresses.delete(slot);
        gateways.delete(slot);
        routes.delete(slot);
      } else if (kind < 0.5) {
        ingresses.set(
          slot,
          ingress(slot, { tls: picks(3), rules: picks(2), resourceVersion: String(version) }),
        );
      } else if (kind < 0.75) {
        gateways.set(slot, { ...gateway(slot, "cilium", picks(3)), metadata: meta(slot, String(version)) });
      } else {
        routes.set(slot, route(slot, picks(3), [], String(version)));
      }
      const sources = {
        ingresses: [...ingresses.values()],
        gateways: [...gateways.values()],
        routes: [...routes.values()],
      };
      assert.deepEqual(
        desiredHostnames(sources, { ...OPTIONS, memo }),
        desiredHostnames(sources, OPTIONS),
        `seed ${seed}, step ${step}`,
      );
    }
  }
});

Deno.test("desiredHostnames with a memo reports each refused value once per object, like a fresh one", () => {
  const memo = createDesiredSetMemo();
  const shared = ingress("shop/web", { tls: ["10.0.0.1", "10.0.0.1", "ok.example.com"] });
  const first = desiredHostnames({ ingresses: [shared], gateways: [], routes: [] }, { ...OPTIONS, memo });
  const again = desiredHostnames({ ingresses: [shared], gateways: [], routes: [] }, { ...OPTIONS, memo });
  assert.deepEqual(first, again);
  assert.equal(first.rejected.length, 1);
  assert.deepEqual(first.hosts, ["ok.example.com"]);
});
