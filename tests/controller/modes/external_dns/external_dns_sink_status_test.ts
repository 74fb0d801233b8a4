/**
 * The DNSEndpoint status surfacer inside `ExternalDnsSink`, against the fake API server with a
 * fake clock driving both the sink and the server's `creationTimestamp`: a DNSEndpoint
 * external-dns never processes is warned about (a WARN notice on the outcome) once the grace
 * period is over, not again inside the repeat window, and no more once its status catches up;
 * the outcome and the API calls are otherwise those of a pass without it.
 */

import assert from "node:assert/strict";
import type { RecordSettings } from "../../../../lib/controller/modes/external_dns/build_records.ts";
import type { ExternalDnsSink } from "../../../../lib/controller/modes/external_dns/external_dns_sink.ts";
import { dnsEndpointName } from "../../../../lib/controller/modes/external_dns/record_names.ts";
import type { Notice, SinkOutcome } from "../../../../lib/controller/modes/sink.ts";
import { FakeClock } from "../../../support/fake_clock.ts";
import { type FakeApiServer, startFakeApiServer } from "../../../support/fake_apiserver/mod.ts";
import { harness, NAMESPACE, noticesAt, SELECTOR, settings, summary } from "./support.ts";

const API = "externaldns.k8s.io/v1alpha1";
const HOST = "shop.example.com";
const never = new AbortController().signal;
/** 2026-01-01T00:00:00Z, on a whole second (creationTimestamp has second precision). */
const WALL0 = Date.UTC(2026, 0, 1);

type Json = Record<string, unknown>;

interface Setup extends AsyncDisposable {
  readonly server: FakeApiServer;
  readonly sink: ExternalDnsSink;
  readonly clock: FakeClock;
}

/** A server and a sink sharing one fake clock (the wall time is WALL0 plus its progress). */
async function setup(recordSettings: RecordSettings = settings()): Promise<Setup> {
  const clock = new FakeClock();
  const start = clock.now();
  const wallMs = () => WALL0 + clock.now() - start;
  const server = await startFakeApiServer({ now: wallMs });
  const h = harness(server, { settings: recordSettings, clock, wallClock: () => new Date(wallMs()) });
  return {
    server,
    sink: h.sink,
    clock,
    async [Symbol.asyncDispose]() {
      h[Symbol.dispose]();
      await server.close();
    },
  };
}

/** The status surfacer's warnings of one outcome. */
function surfacerWarnings(outcome: SinkOutcome): Notice[] {
  return noticesAt(outcome, "warn").filter((notice) => notice.message.includes("observedGeneration"));
}

Deno.test("a DNSEndpoint external-dns does not process is warned about once, and not after it catches up", async () => {
  await using s = await setup();
  const name = dnsEndpointName(HOST, 4);

  assert.deepEqual(summary(await s.sink.reconcile([HOST], never)), {
    kind: "written",
    hosts: 1,
    added: 1,
    removed: 0,
  });
  const created = s.server.get(API, "DNSEndpoint", NAMESPACE, name);
  assert.ok(created !== undefined, "the sink created the DNSEndpoint");
  assert.equal((created.metadata as Json).creationTimestamp, "2026-01-01T00:00:00Z");

  s.clock.advanceSync(59_000);
  assert.deepEqual(
    await s.sink.reconcile([HOST], never),
    { kind: "unchanged", hosts: 1 },
    "inside the grace period: nothing",
  );

  s.clock.advanceSync(2_000);
  const mark = s.server.audit.length;
  const late = await s.sink.reconcile([HOST], never);
  assert.deepEqual(
    summary(late),
    { kind: "unchanged", hosts: 1 },
    "the outcome is not changed by the surfacer",
  );
  assert.deepEqual(
    s.server.audit.slice(mark).map((entry) => [entry.method, entry.query.labelSelector]),
    [["GET", SELECTOR]],
    "the surfacer makes no API call of its own",
  );
  const warnings = surfacerWarnings(late);
  assert.equal(warnings.length, 1, JSON.stringify(late.notices));
  assert.deepEqual(late.notices, warnings, "nothing else to say");
  const [warning] = warnings;
  assert.match(
    warning!.message,
    new RegExp(`^DNSEndpoint ${NAMESPACE}/${name} has no status\\.observedGeneration`),
  );
  assert.match(warning!.message, /external-dns may not be running/);
  assert.equal(warning!.properties?.dnsEndpoint, `${NAMESPACE}/${name}`);
  assert.equal(warning!.properties?.problem, "missing");
  assert.equal(warning!.properties?.specGeneration, 1);

  s.clock.advanceSync(120_000);
  assert.deepEqual(
    await s.sink.reconcile([HOST], never),
    { kind: "unchanged", hosts: 1 },
    "a second pass inside five minutes does not repeat it",
  );

  const stored = s.server.get(API, "DNSEndpoint", NAMESPACE, name)!;
  const generation = (stored.metadata as Json).generation;
  assert.equal(generation, 1);
  s.server.update({ ...stored, status: { observedGeneration: generation } });

  s.clock.advanceSync(300_000);
  assert.deepEqual(
    await s.sink.reconcile([HOST], never),
    { kind: "unchanged", hosts: 1 },
    "caught up: no warning, even after the repeat window",
  );
});

Deno.test("Service output has no status surfacer", async () => {
  await using s = await setup(settings({ output: "service" }));
  await s.sink.reconcile([HOST], never);
  s.clock.advanceSync(600_000);
  assert.deepEqual(await s.sink.reconcile([HOST], never), { kind: "unchanged", hosts: 1 }, "no WARN either");
});
