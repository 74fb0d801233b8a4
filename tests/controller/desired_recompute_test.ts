/**
 * `DesiredRecompute`'s wildcard reporting: a wildcard the mode cannot write is said once per
 * object change (a new resourceVersion says it again), counted while it lasts, and forgotten
 * when it goes.
 */

import assert from "node:assert/strict";
import { DesiredRecompute } from "../../lib/controller/desired_recompute.ts";
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
