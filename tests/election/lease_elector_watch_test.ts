/**
 * The elector's Lease watch against the fake API server (a real watch stream): a leader whose
 * Lease is deleted, or written by someone else, stops writing the moment the event arrives, not at
 * its next renewal; the clock is not advanced while it does.
 *
 * @module
 */

import assert from "node:assert/strict";
import { DEFAULT_ELECTION_TIMING } from "../../lib/election/election_timing.ts";
import { LeaseElector } from "../../lib/election/lease_elector.ts";
import { KubeClient } from "../../lib/kube/client.ts";
import { WriteFencedError } from "../../lib/kube/errors.ts";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { FakeClock } from "../support/fake_clock.ts";
import { LogRecorder } from "../support/log_recorder.ts";
import { waitFor } from "../support/wait.ts";

Deno.test("a leader whose Lease is deleted or taken by hand closes its fence at once, then decides at its next attempt", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  using client = new KubeClient({ server: server.url });
  const clock = new FakeClock();
  const log = new LogRecorder();
  const elector = new LeaseElector({
    api: client,
    lease: { namespace: "ns", name: "lease" },
    identity: "a",
    timing: DEFAULT_ELECTION_TIMING,
    log,
    clock,
    wallClock: () => new Date(Date.UTC(2026, 11, 5, 12, 0, 0) + clock.now()),
    random: () => 0.5,
  });
  const stop = new AbortController();
  const running = elector.run(stop.signal);
  const lost = () => log.find("info", "leadership lost; this replica stops writing and stands by");
  try {
    await waitFor("a leads", async () => {
      await clock.advance(0);
      return elector.isLeader();
    });
    await waitFor(
      "its Lease watch is open",
      () => server.audit.some((entry) => entry.watch && /leases/.test(entry.path)),
    );

    server.remove("coordination.k8s.io/v1", "Lease", "ns", "lease");
    await waitFor("the fence closed on the deletion", () => !elector.isLeader());
    assert.throws(
      () => elector.fence("PUT /api/v1/namespaces/kube-system/configmaps/coredns"),
      WriteFencedError,
    );
    assert.equal(lost()[0]?.properties.reason, "the lease was deleted");
    // Nothing else could hold it: at its next attempt it re-creates its own Lease and leads again.
    await waitFor("a leads again", async () => {
      await clock.advance(DEFAULT_ELECTION_TIMING.retryPeriodMs);
      return elector.isLeader();
    });

    const current = server.get("coordination.k8s.io/v1", "Lease", "ns", "lease")!;
    server.update({ ...current, spec: { ...(current.spec as object), holderIdentity: "intruder" } });
    await waitFor("the fence closed on another holder's write", () => !elector.isLeader());
    assert.equal(lost()[1]?.properties.reason, "another replica wrote the lease");
    assert.deepEqual(elector.state, { kind: "candidate", holder: "intruder" });
  } finally {
    stop.abort();
    await running;
  }
});
