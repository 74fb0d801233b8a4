/**
 * What the doctor's check tests (and the demo's last part) share: a fake API server seeded with
 * objects, one of our running pods as the API server holds it, and the one-finding assertion.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { Finding } from "../../lib/doctor/doctor_check.ts";
import { type FakeApiServer, startFakeApiServer } from "../support/fake_apiserver/mod.ts";

/** A fake API server (no bookmarks) holding `seed`. */
export async function cluster(seed: readonly Record<string, unknown>[]): Promise<FakeApiServer> {
  const server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  for (const object of seed) server.create(object);
  return server;
}

/** The single finding of `findings`; fails, printing them all, when there is not exactly one. */
export function only(findings: readonly Finding[]): Finding {
  assert.equal(findings.length, 1, JSON.stringify(findings, null, 2));
  return findings[0] as Finding;
}

/**
 * One of our pods as the API server holds it: Running and Ready, at `health.hostname` (a loopback
 * address standing in for the pod IP), its health port named `health` when given.
 */
export function runningPod(
  key: string,
  options: { readonly labels: Record<string, string>; readonly health?: { hostname: string; port: number } },
): Record<string, unknown> {
  const [namespace, name] = key.split("/");
  const { labels, health } = options;
  const podIP = health?.hostname ?? "127.0.0.1";
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace, name, labels },
    spec: {
      containers: [{
        name: "ouroboros",
        image: "ouroboros",
        ...(health === undefined ? {} : { ports: [{ name: "health", containerPort: health.port }] }),
      }],
    },
    status: {
      phase: "Running",
      podIP,
      podIPs: [{ ip: podIP }],
      conditions: [{ type: "Ready", status: "True" }],
      containerStatuses: [{ name: "ouroboros", ready: true, restartCount: 0 }],
    },
  };
}
