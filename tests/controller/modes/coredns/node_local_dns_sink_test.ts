/**
 * `--node-local-dns=manage`'s sink against the fake API server: it writes the block with the
 * resourceVersion it read, refuses damaged markers with a Warning Event and no write, warns once
 * about zones another block serves, spaces out rewrites when a GitOps tool keeps reverting it,
 * and stops before the write in a dry run.
 */

import assert from "node:assert/strict";
import { KubeClient } from "../../../../lib/kube/client.ts";
import { EventRecorder } from "../../../../lib/kube/event_recorder.ts";
import { nodeLocalDnsMarkers } from "../../../../lib/controller/modes/coredns/corefile/node_local_dns_markers.ts";
import { nodeLocalDnsSink } from "../../../../lib/controller/modes/coredns/node_local_dns_sink.ts";
import type { Notice, SinkOutcome } from "../../../../lib/controller/modes/sink.ts";
import { type FakeApiServer, startFakeApiServer } from "../../../support/fake_apiserver/mod.ts";
import { FakeClock } from "../../../support/fake_clock.ts";
import { prng } from "../../../support/random.ts";
import { NODE_LOCAL_INSTALLED, PROXY } from "./fixtures/node_local_dns_corefiles.ts";

const NAMESPACE = "kube-system";
const NAME = "node-local-dns";
const BEGIN = "# === BEGIN ouroboros-node-local-dns (do not edit by hand) ===";

interface Fixture extends AsyncDisposable {
  readonly server: FakeApiServer;
  readonly clock: FakeClock;
  corefile(): string;
  edit(corefile: string): void;
  patches(): string[];
  events(): Record<string, unknown>[];
  reconcile(hosts: readonly string[]): Promise<SinkOutcome>;
}

async function fixture(corefile: string, dryRun = false): Promise<Fixture> {
  const server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: NAME, namespace: NAMESPACE },
    data: { Corefile: corefile },
  });
  const client = new KubeClient({ server: server.url });
  const clock = new FakeClock({ autoAdvance: true });
  const recorder = new EventRecorder({
    client,
    instance: "ouroboros-0",
    clock,
    wallClock: () => new Date(0),
  });
  const sink = nodeLocalDnsSink({
    client,
    target: { namespace: NAMESPACE, configmap: NAME, key: "Corefile" },
    proxyFqdn: PROXY,
    recorder,
    clock,
    random: prng(3),
    markers: nodeLocalDnsMarkers(),
    dryRun,
  });
  const stored = () => server.get("v1", "ConfigMap", NAMESPACE, NAME);
  return {
    server,
    clock,
    corefile: () => ((stored()?.data ?? {}) as Record<string, string>).Corefile ?? "",
    edit(text) {
      const current = stored();
      assert.ok(current !== undefined);
      server.update({ ...current, data: { Corefile: text } });
    },
    patches: () => server.audit.filter((entry) => entry.method === "PATCH").map((entry) => entry.path),
    events: () => server.list("v1", "Event", NAMESPACE),
    reconcile: (hosts) => sink.reconcile(hosts, new AbortController().signal),
    async [Symbol.asyncDispose]() {
      client.close();
      await server.close();
    },
  };
}

function at(outcome: SinkOutcome, level: Notice["level"]): Notice[] {
  return (outcome.notices ?? []).filter((notice) => notice.level === level);
}

Deno.test("writes the block once, with a diff; a resync writes nothing; removal restores the ConfigMap", async () => {
  await using f = await fixture(NODE_LOCAL_INSTALLED);
  const written = await f.reconcile(["shop.example.com"]);
  assert.equal(written.kind, "written");
  assert.ok(written.kind === "written");
  assert.match(written.diff ?? "", /^--- a\/kube-system\/node-local-dns\[Corefile\]/);
  assert.match(written.diff ?? "", /^\+shop\.example\.com:53 \{$/m);
  assert.ok(f.corefile().startsWith(`${BEGIN}\nshop.example.com:53 {\n`));
  assert.equal(f.patches().length, 1);
  assert.equal((await f.reconcile(["shop.example.com"])).kind, "unchanged");
  assert.equal(f.patches().length, 1);
  assert.equal((await f.reconcile([])).kind, "written");
  assert.equal(f.corefile(), NODE_LOCAL_INSTALLED);
});

Deno.test("damaged markers: refused, nothing written, one Warning Event on the node-local-dns ConfigMap", async () => {
  const damaged = `${BEGIN}\n${BEGIN}\n${NODE_LOCAL_INSTALLED}`;
  await using f = await fixture(damaged);
  const outcome = await f.reconcile(["shop.example.com"]);
  assert.ok(outcome.kind === "refused");
  assert.equal(outcome.problem, "duplicate-begin");
  assert.match(outcome.message, /ConfigMap kube-system\/node-local-dns/);
  assert.match(outcome.message, /ouroboros-node-local-dns marker lines/);
  assert.equal(f.patches().length, 0);
  assert.equal(f.corefile(), damaged);
  assert.deepEqual(f.events().map((event) => event.reason), ["CorefileMarkersDamaged"]);
});

Deno.test("a zone another block serves: WARN once naming it, DEBUG while it lasts", async () => {
  const corefile = `corp.example.com:53 {\n    forward . 10.1.1.1\n}\n${NODE_LOCAL_INSTALLED}`;
  await using f = await fixture(corefile);
  const first = await f.reconcile(["corp.example.com", "shop.example.com"]);
  assert.equal(first.kind, "written");
  assert.equal(at(first, "warn").length, 1);
  assert.deepEqual(at(first, "warn")[0]!.properties?.zones, ["corp.example.com"]);
  const again = await f.reconcile(["corp.example.com", "shop.example.com"]);
  assert.equal(again.kind, "unchanged");
  assert.equal(at(again, "warn").length, 0);
  assert.equal(at(again, "debug").length, 1);
  assert.doesNotMatch(f.corefile(), /^corp\.example\.com:53 shop/m);
});

Deno.test("a GitOps tool re-applying the ConfigMap: hold-off after the third revert, WARN and Event name node-local-dns", async () => {
  await using f = await fixture(NODE_LOCAL_INSTALLED);
  const kinds: string[] = [];
  const warns: Notice[] = [];
  for (let pass = 0; pass < 6; pass++) {
    const outcome = await f.reconcile(["shop.example.com"]);
    kinds.push(outcome.kind === "refused" ? outcome.problem : outcome.kind);
    warns.push(...at(outcome, "warn"));
    f.clock.advanceSync(2_000);
    f.edit(NODE_LOCAL_INSTALLED);
  }
  assert.deepEqual(kinds, ["written", "written", "written", "reverted", "reverted", "reverted"]);
  assert.equal(warns.length, 1);
  assert.match(warns[0]!.message, /--node-local-dns=warn/);
  assert.deepEqual(f.events().map((event) => event.reason), ["CorefileReverted"]);
});

Deno.test("dry run: previewed with the diff, no write, no Event", async () => {
  await using f = await fixture(NODE_LOCAL_INSTALLED, true);
  const outcome = await f.reconcile(["shop.example.com"]);
  assert.equal(outcome.kind, "previewed");
  assert.equal(f.patches().length, 0);
  assert.equal(f.corefile(), NODE_LOCAL_INSTALLED);
});
