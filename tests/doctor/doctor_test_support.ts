/**
 * What the doctor's check tests share: a fake API server seeded with objects, and the one-finding
 * assertion.
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
