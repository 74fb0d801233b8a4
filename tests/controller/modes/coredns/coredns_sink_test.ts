/**
 * coredns mode's sink against the fake API server (real HTTP, real KubeClient): distribution
 * Corefiles seeded as ConfigMaps, then what a cluster operator would check with kubectl — the
 * block, every other byte, the other keys and metadata, the number of writes in the audit log,
 * the Events on the ConfigMap — through inserts, no-op resyncs, removals, concurrent writers,
 * 409 storms, damaged markers, the size limit, a GitOps tool reverting the block, and missing
 * objects (reliability matrix T-1.28, T-2.1 … T-2.11, T-2.18). What the sink wants said is read
 * from the notices on its outcomes, which the controller logs as they are.
 */

import assert from "node:assert/strict";
import { KubeClient } from "../../../../lib/kube/client.ts";
import { isConflict, KubeApiError } from "../../../../lib/kube/errors.ts";
import { EventRecorder } from "../../../../lib/kube/event_recorder.ts";
import type { Notice, SinkOutcome } from "../../../../lib/controller/modes/sink.ts";
import {
  CorednsSink,
  type CorednsSinkOptions,
} from "../../../../lib/controller/modes/coredns/coredns_sink.ts";
import type { ConfigMapApi } from "../../../../lib/controller/modes/coredns/corefile_location.ts";
import { type FakeApiServer, startFakeApiServer } from "../../../support/fake_apiserver/mod.ts";
import { FakeClock } from "../../../support/fake_clock.ts";
import { applyPatch } from "../../../support/apply_patch.ts";
import { prng } from "../../../support/random.ts";
import { FIXTURES, K3S, K3S_WITHOUT_RELOAD, KUBEADM, lines, toCrlf } from "./fixtures/corefiles.ts";
import { BEGIN, blockLines, END, expectedBlock, FQDN, withoutBlock } from "./support.ts";

const NAMESPACE = "kube-system";
const NAME = "coredns";
const HOSTS = ["app.example.com", "shop.example.org"];
const LABELS = { "k8s-app": "kube-dns", "addonmanager.kubernetes.io/mode": "EnsureExists" };
const ANNOTATIONS = { "argocd.argoproj.io/tracking-id": "dns:/ConfigMap:kube-system/coredns" };

/** An outcome with its diff checked and left out. */
type WithoutDiff = Readonly<Record<string, unknown>> & {
  readonly kind: SinkOutcome["kind"];
  readonly notices?: readonly Notice[];
};

/**
 * The outcome without its diff, which must take `read` (the Corefile the sink last read) to
 * `written` (the Corefile stored now) when the outcome is a write or a preview.
 */
function checkDiff(outcome: SinkOutcome, corefiles: { read: string; written: string }): WithoutDiff {
  if (outcome.kind !== "written" && outcome.kind !== "previewed") return outcome;
  const { diff, names, ...rest } = outcome;
  assert.ok(diff !== undefined && diff.startsWith(`--- a/${NAMESPACE}/${NAME}[Corefile]\n`), diff);
  assert.deepEqual(
    [names?.added.length, names?.removed.length],
    [outcome.added, outcome.removed],
    "the names added and removed are as many as counted",
  );
  assert.equal(
    applyPatch(corefiles.read, diff),
    corefiles.written,
    "the diff takes the read Corefile to the written one",
  );
  return rest;
}

/** The notices of an outcome at one level. */
function noticesAt(outcome: SinkOutcome, level: Notice["level"]): Notice[] {
  return (outcome.notices ?? []).filter((notice) => notice.level === level);
}

interface Fixture extends AsyncDisposable {
  readonly server: FakeApiServer;
  readonly client: KubeClient;
  /**
   * Sleeps return at once, moving time forward and recording the pause, so conflict pauses are
   * visible to the test and cost nothing.
   */
  readonly clock: FakeClock;
  readonly sink: CorednsSink;
  /** The stored ConfigMap's data. */
  data(): Record<string, string>;
  corefile(): string;
  /** Replaces the Corefile as another writer would (a PUT that bypasses us). */
  edit(corefile: string): void;
  /** Writes to ConfigMaps in the audit log (PATCH, PUT, POST, DELETE). */
  writes(): number;
  requests(method: string): number;
  events(): Record<string, unknown>[];
  reconcile(hosts?: readonly string[]): Promise<SinkOutcome>;
}

async function fixture(
  corefile: string | undefined,
  options: {
    extraData?: Record<string, string>;
    wrap?: (client: KubeClient, server: FakeApiServer) => ConfigMapApi;
    sink?: Partial<CorednsSinkOptions>;
  } = {},
): Promise<Fixture> {
  const server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  if (corefile !== undefined || options.extraData !== undefined) {
    server.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: NAME, namespace: NAMESPACE, labels: LABELS, annotations: ANNOTATIONS },
      data: { ...(corefile === undefined ? {} : { Corefile: corefile }), ...options.extraData },
    });
  }
  const client = new KubeClient({ server: server.url });
  const clock = new FakeClock({ autoAdvance: true });
  const recorder = new EventRecorder({
    client,
    instance: "ouroboros-0",
    clock,
    wallClock: () => new Date(1_767_225_600_000 + clock.now()),
  });
  const sink = new CorednsSink({
    client: options.wrap?.(client, server) ?? client,
    target: { namespace: NAMESPACE, configmap: NAME, key: "Corefile" },
    proxyFqdn: FQDN,
    recorder,
    clock,
    random: prng(7),
    ...options.sink,
  });
  const stored = () => server.get("v1", "ConfigMap", NAMESPACE, NAME);
  const configMapRequests = (method: string) =>
    server.audit.filter((entry) => entry.method === method && entry.path.includes("/configmaps")).length;
  return {
    server,
    client,
    clock,
    sink,
    data: () => (stored()?.data ?? {}) as Record<string, string>,
    corefile: () => ((stored()?.data ?? {}) as Record<string, string>).Corefile ?? "",
    edit(text: string) {
      const current = stored();
      assert.ok(current !== undefined);
      server.update({ ...current, data: { ...(current.data as Record<string, string>), Corefile: text } });
    },
    writes: () => ["PATCH", "PUT", "POST", "DELETE"].reduce((sum, m) => sum + configMapRequests(m), 0),
    requests: configMapRequests,
    events: () => server.list("v1", "Event", NAMESPACE),
    reconcile: (hosts = HOSTS) => sink.reconcile(hosts, new AbortController().signal),
    async [Symbol.asyncDispose]() {
      client.close();
      await server.close();
    },
  };
}

Deno.test("distribution Corefiles: insert, no-op resync, change, removal; nothing outside the block moves (T-2.3, T-2.4, T-2.5, T-2.18)", async (t) => {
  const cases = [...FIXTURES, {
    name: "kubeadm with CRLF",
    text: toCrlf(KUBEADM),
    indent: "    ",
    reload: true,
  }];
  for (const { name, text, indent, reload } of cases) {
    await t.step(name, async () => {
      const nodeHosts = "10.0.0.5 node-a\n10.0.0.6 node-b\n";
      await using f = await fixture(text, { extraData: { NodeHosts: nodeHosts } });
      const newline = text.includes("\r\n") ? "\r\n" : "\n";
      /** The outcome without its notices; a write to a Corefile without reload WARNs, nothing else speaks. */
      const reconcile = async (hosts?: readonly string[]): Promise<WithoutDiff> => {
        const read = f.corefile();
        const { notices = [], ...outcome } = checkDiff(await f.reconcile(hosts), {
          read,
          written: f.corefile(),
        });
        const warns = outcome.kind === "written" && !reload ? ["warn"] : [];
        assert.deepEqual(notices.map((notice) => notice.level), warns);
        return outcome;
      };

      assert.deepEqual(await reconcile(), { kind: "written", hosts: 2, added: 2, removed: 0 });
      assert.deepEqual(blockLines(f.corefile().replaceAll("\r\n", "\n")), expectedBlock(HOSTS, indent));
      assert.equal(withoutBlock(f.corefile()), text, "every byte outside the markers is unchanged");
      assert.equal(f.requests("PATCH"), 1);

      for (let i = 0; i < 20; i++) assert.deepEqual(await reconcile(), { kind: "unchanged", hosts: 2 });
      assert.equal(f.writes(), 1, "unchanged resyncs write nothing");

      const next = ["app.example.com", "new.example.net"];
      const read = f.corefile();
      const changed = await f.reconcile(next);
      assert.deepEqual(changed.kind === "written" ? changed.names : undefined, {
        added: ["new.example.net"],
        removed: HOSTS.filter((host) => !next.includes(host)),
      }, "the names added and removed, for the INFO line");
      const { notices: _, ...rest } = checkDiff(changed, { read, written: f.corefile() });
      assert.deepEqual(rest, { kind: "written", hosts: 2, added: 1, removed: 1 });
      assert.deepEqual(
        blockLines(f.corefile()),
        expectedBlock(next, indent, newline),
      );

      assert.deepEqual(await reconcile([]), { kind: "written", hosts: 0, added: 0, removed: 2 });
      assert.equal(f.corefile(), text, "removing the block restores the original exactly");
      assert.deepEqual(await reconcile([]), { kind: "unchanged", hosts: 0 });
      assert.equal(f.writes(), 3);

      const stored = f.server.get("v1", "ConfigMap", NAMESPACE, NAME);
      assert.equal(f.data().NodeHosts, nodeHosts, "other keys untouched");
      assert.deepEqual((stored?.metadata as Record<string, unknown>).labels, LABELS);
      assert.deepEqual((stored?.metadata as Record<string, unknown>).annotations, ANNOTATIONS);
      assert.equal(f.events().length, 0);
    });
  }
});

Deno.test("an injected 409 on the write: read again, edit again, write again (T-2.1)", async () => {
  await using f = await fixture(KUBEADM);
  f.server.faults.inject("patch", { type: "status", code: 409, reason: "Conflict" });
  assert.deepEqual(checkDiff(await f.reconcile(), { read: KUBEADM, written: f.corefile() }), {
    kind: "written",
    hosts: 2,
    added: 2,
    removed: 0,
    notices: [{
      level: "debug",
      message: "Corefile changed between our read and our write; reading it again",
      properties: { configmap: `${NAMESPACE}/${NAME}`, attempt: 1 },
    }],
  });
  assert.equal(f.requests("GET"), 2);
  assert.equal(f.requests("PATCH"), 2);
  assert.equal(f.clock.sleeps.length, 1);
  assert.ok(f.clock.sleeps[0]! >= 10 && f.clock.sleeps[0]! <= 11, `pause ${f.clock.sleeps[0]}`);
  assert.deepEqual(blockLines(f.corefile()), expectedBlock(HOSTS, "    "));
});

Deno.test("a real concurrent writer edits outside the markers between our read and our write: both edits survive (T-2.1)", async () => {
  let interfered = false;
  await using f = await fixture(KUBEADM, {
    // After our first read returns, another client changes the cache TTL: our write then carries
    // a stale resourceVersion, which the fake API server answers with a real 409.
    wrap: (client, server) => ({
      get: async (type, ref, options) => {
        const object = await client.get(type, ref, options);
        if (!interfered) {
          interfered = true;
          const current = server.get("v1", "ConfigMap", NAMESPACE, NAME)!;
          const data = current.data as Record<string, string>;
          server.update({
            ...current,
            data: { ...data, Corefile: data.Corefile!.replace("cache 30", "cache 300") },
          });
        }
        return object;
      },
      mergePatch: (type, ref, patch, options) => client.mergePatch(type, ref, patch, options),
    }),
  });
  const written = await f.reconcile();
  const { notices, ...outcome } = checkDiff(written, {
    read: withoutBlock(f.corefile()),
    written: f.corefile(),
  });
  assert.deepEqual(outcome, { kind: "written", hosts: 2, added: 2, removed: 0 });
  assert.deepEqual(notices?.map((notice) => [notice.level, notice.properties?.attempt]), [["debug", 1]]);
  const conflicts = f.server.audit.filter((entry) => entry.method === "PATCH" && entry.status === 409);
  assert.equal(conflicts.length, 1, "the first write was refused by the precondition");
  assert.ok(f.corefile().includes("    cache 300\n"), "the other writer's edit is kept");
  assert.deepEqual(blockLines(f.corefile()), expectedBlock(HOSTS, "    "));
  assert.equal(withoutBlock(f.corefile()), KUBEADM.replace("cache 30", "cache 300"));
});

Deno.test("T-2.1: three real conflicts from a writer editing other lines: the fourth attempt writes and every edit survives", async () => {
  // Each of our first three reads is followed by another client's edit outside the markers, so
  // each of our first three writes carries a stale resourceVersion and gets a real 409.
  const edits: [string, string][] = [
    ["    cache 30\n", "    cache 300\n"],
    ["    loadbalance\n", "    loadbalance round_robin\n"],
    [".:53 {\n", "# tuned by the platform team\n.:53 {\n"],
  ];
  let reads = 0;
  await using f = await fixture(KUBEADM, {
    wrap: (client, server) => ({
      get: async (type, ref, options) => {
        const object = await client.get(type, ref, options);
        const edit = edits[reads++];
        if (edit !== undefined) {
          const current = server.get("v1", "ConfigMap", NAMESPACE, NAME)!;
          const data = current.data as Record<string, string>;
          server.update({ ...current, data: { ...data, Corefile: data.Corefile!.replace(...edit) } });
        }
        return object;
      },
      mergePatch: (type, ref, patch, options) => client.mergePatch(type, ref, patch, options),
    }),
  });
  const written = await f.reconcile();
  const { notices, ...outcome } = checkDiff(written, {
    read: withoutBlock(f.corefile()),
    written: f.corefile(),
  });
  assert.deepEqual(outcome, { kind: "written", hosts: 2, added: 2, removed: 0 });
  assert.deepEqual(notices?.map((notice) => [notice.level, notice.properties?.attempt]), [["debug", 1], [
    "debug",
    2,
  ], ["debug", 3]]);
  const patches = f.server.audit.filter((entry) => entry.method === "PATCH").map((entry) => entry.status);
  assert.deepEqual(patches, [409, 409, 409, 200], "refused three times by the precondition, then written");
  assert.equal(f.clock.sleeps.length, 3, "a short pause before each retry");
  const expected = edits.reduce((text, [from, to]) => text.replace(from, to), KUBEADM);
  assert.equal(withoutBlock(f.corefile()), expected, "all three concurrent edits are kept");
  assert.deepEqual(blockLines(f.corefile()), expectedBlock(HOSTS, "    "), "and our block is in");
});

Deno.test("T-2.5: other keys, binaryData, labels, annotations, ownerReferences and managedFields are left as they were", async () => {
  const server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  const client = new KubeClient({ server: server.url });
  try {
    const metadata = {
      name: NAME,
      namespace: NAMESPACE,
      labels: LABELS,
      annotations: ANNOTATIONS,
      ownerReferences: [{
        apiVersion: "apps/v1",
        kind: "Deployment",
        name: "coredns-operator",
        uid: "6f1d1f2c-0000-4000-8000-000000000001",
        controller: true,
      }],
      managedFields: [{
        manager: "kubeadm",
        operation: "Update",
        apiVersion: "v1",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { ".": {}, "f:Corefile": {} } },
      }],
    };
    const others = {
      "Corefile.bak": KUBEADM,
      NodeHosts: "10.0.0.5 node-a\n10.0.0.6 node-b\n",
    };
    server.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata,
      data: { Corefile: KUBEADM, ...others },
      binaryData: { "zone.db.gz": btoa("\u001f\u008b binary") },
    });
    const before = server.get("v1", "ConfigMap", NAMESPACE, NAME)!;
    const seeded = before.metadata as Record<string, unknown>;
    assert.deepEqual(
      [seeded.ownerReferences, seeded.managedFields],
      [metadata.ownerReferences, metadata.managedFields],
      "the API server keeps the fields this test is about",
    );
    const sink = new CorednsSink({
      client,
      target: { namespace: NAMESPACE, configmap: NAME, key: "Corefile" },
      proxyFqdn: FQDN,
      clock: new FakeClock({ autoAdvance: true }),
      random: prng(3),
    });
    assert.equal((await sink.reconcile(HOSTS, new AbortController().signal)).kind, "written");
    const after = server.get("v1", "ConfigMap", NAMESPACE, NAME)!;

    type Metadata = Record<string, unknown>;
    const { resourceVersion: oldVersion, managedFields: _seeded, ...oldMetadata } = before
      .metadata as Metadata;
    const { resourceVersion: newVersion, managedFields, ...newMetadata } = after.metadata as Metadata;
    assert.notEqual(newVersion, oldVersion, "the object was written");
    assert.deepEqual(
      newMetadata,
      oldMetadata,
      "metadata other than resourceVersion and managedFields is unchanged",
    );
    const owners = (managedFields as { manager: string; fieldsV1: unknown }[]).map((
      e,
    ) => [e.manager, e.fieldsV1]);
    assert.deepEqual(
      owners,
      [["kubeadm", { "f:data": {} }], ["ouroboros", { "f:data": { "f:Corefile": {} } }]],
      "kubeadm's entry is kept; the server moves the Corefile key we wrote to our manager, as a real one does",
    );
    assert.deepEqual(after.binaryData, before.binaryData);
    const { Corefile: corefile, ...otherKeys } = after.data as Record<string, string>;
    assert.deepEqual(otherKeys, others, "the other keys are unchanged, the backup Corefile included");
    assert.equal(withoutBlock(corefile ?? ""), KUBEADM);
    assert.equal(
      (after.data as Record<string, string>)["Corefile.bak"],
      KUBEADM,
      "a key whose value is a Corefile too is not edited",
    );
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("a 409 storm: five attempts with growing jittered pauses, then the reconcile fails and nothing changed (T-2.1)", async () => {
  await using f = await fixture(KUBEADM);
  f.server.faults.inject("patch", { type: "status", code: 409, reason: "Conflict" }, { count: 5 });
  const failed = await f.reconcile();
  assert.ok(failed.kind === "failed", failed.kind);
  assert.equal(
    failed.message,
    "ConfigMap kube-system/coredns changed under us on each of 5 attempts (409 Conflict); " +
      "another writer is busy with it, will retry with backoff",
  );
  assert.ok(isConflict(failed.cause), "the last 409 is the cause");
  assert.deepEqual(noticesAt(failed, "debug").map((notice) => notice.properties?.attempt), [1, 2, 3, 4, 5]);
  assert.equal(f.requests("GET"), 5);
  assert.equal(f.requests("PATCH"), 5);
  assert.equal(f.corefile(), KUBEADM);
  assert.equal(f.clock.sleeps.length, 4);
  f.clock.sleeps.forEach((pause, index) => {
    const base = 10 * 2 ** index;
    assert.ok(pause >= base && pause <= base * 1.1, `pause ${index}: ${pause}`);
  });
  // The next reconcile (after the controller's backoff) succeeds.
  assert.equal((await f.reconcile()).kind, "written");
});

Deno.test("damaged markers: refused, no write, one Warning Event that is not re-created on the next reconcile (T-2.6)", async () => {
  const damaged = lines(
    ".:53 {",
    "    errors",
    `    ${END}`,
    `    rewrite name old.example.com ${FQDN}`,
    `    ${BEGIN}`,
    "    forward . /etc/resolv.conf",
    "    reload",
    "}",
  );
  await using f = await fixture(damaged);
  const outcome = await f.reconcile();
  assert.equal(outcome.kind, "refused");
  assert.ok(outcome.kind === "refused");
  assert.equal(outcome.problem, "end-before-begin");
  assert.match(outcome.message, /kube-system\/coredns/);
  assert.match(outcome.message, /delete the ouroboros marker lines/);
  assert.equal(f.writes(), 0);
  assert.equal(f.corefile(), damaged);

  const events = f.events();
  assert.equal(events.length, 1);
  const event = events[0]!;
  assert.equal(event.type, "Warning");
  assert.equal(event.reason, "CorefileMarkersDamaged");
  assert.equal(event.message, outcome.message);
  const uid = (f.server.get("v1", "ConfigMap", NAMESPACE, NAME)?.metadata as Record<string, unknown>).uid;
  assert.deepEqual(event.involvedObject, {
    apiVersion: "v1",
    kind: "ConfigMap",
    namespace: NAMESPACE,
    name: NAME,
    uid,
  });

  assert.deepEqual(await f.reconcile(), outcome);
  assert.equal(f.events().length, 1, "de-duplicated");
  assert.equal(
    f.server.audit.filter((entry) => entry.method === "POST" && entry.path.endsWith("/events")).length,
    1,
  );
  assert.equal(f.writes(), 0);
});

Deno.test("other editor refusals (no root block) are refused with an Event too (T-2.10)", async () => {
  const zoneOnly = lines("example.org:53 {", "    file /etc/coredns/example.org.db", "}");
  await using f = await fixture(zoneOnly);
  const outcome = await f.reconcile();
  assert.ok(outcome.kind === "refused");
  assert.equal(outcome.problem, "no-root-block");
  assert.equal(f.writes(), 0);
  assert.deepEqual(f.events().map((event) => event.reason), ["CorefileNotEditable"]);
});

Deno.test("a write that would pass 1 MiB is refused; the previous block stays (T-2.11, T-3.11)", async () => {
  // The ConfigMap already holds a large backup key: close to the limit, not over it.
  const backup = "#".repeat(1_048_576 - 20_000);
  await using f = await fixture(KUBEADM, { extraData: { "Corefile.bak": backup } });
  assert.equal((await f.reconcile()).kind, "written");
  const before = f.corefile();

  const many = Array.from({ length: 400 }, (_, i) => `host-${String(i).padStart(4, "0")}.example.com`);
  const outcome = await f.reconcile(many);
  assert.ok(outcome.kind === "refused");
  assert.equal(outcome.problem, "too-large");
  assert.match(outcome.message, /over the 1048576-byte limit/);
  assert.equal(f.corefile(), before, "the previous content is kept");
  assert.equal(f.requests("PATCH"), 1);
  assert.deepEqual(f.events().map((event) => event.reason), ["ConfigMapTooLarge"]);
});

Deno.test("a missing ConfigMap is refused with the flags to check, and never created (T-2.9)", async () => {
  await using f = await fixture(undefined);
  const outcome = await f.reconcile();
  assert.ok(outcome.kind === "refused");
  assert.equal(outcome.problem, "configmap-missing");
  assert.match(outcome.message, /ConfigMap kube-system\/coredns does not exist/);
  assert.match(outcome.message, /--coredns-namespace/);
  assert.equal(f.writes(), 0);
  assert.equal(f.server.list("v1", "ConfigMap").length, 0);
});

Deno.test("a ConfigMap without the Corefile key is refused with an Event naming the flag (T-2.9)", async () => {
  await using f = await fixture(undefined, { extraData: { "Corefile.old": KUBEADM } });
  const outcome = await f.reconcile();
  assert.ok(outcome.kind === "refused");
  assert.equal(outcome.problem, "key-missing");
  assert.match(outcome.message, /--coredns-key/);
  assert.equal(f.writes(), 0);
  assert.deepEqual(f.events().map((event) => event.reason), ["CorefileKeyMissing"]);
});

Deno.test("a 422 from the API server is refused, not retried in a loop (T-2.12)", async () => {
  await using f = await fixture(KUBEADM);
  f.server.faults.inject("patch", {
    type: "status",
    code: 422,
    reason: "Invalid",
    message: "data: Too long",
  });
  const outcome = await f.reconcile();
  assert.ok(outcome.kind === "refused");
  assert.equal(outcome.problem, "rejected");
  assert.match(outcome.message, /data: Too long/);
  assert.equal(f.requests("PATCH"), 1);
  assert.deepEqual(f.events().map((event) => event.reason), ["CorefileWriteRejected"]);
});

Deno.test("transient failures are failed outcomes with the error's message (the controller backs off); an aborted reconcile rejects and sends nothing", async () => {
  await using f = await fixture(KUBEADM);
  f.server.faults.inject("get", { type: "status", code: 500, reason: "InternalError" });
  const failed = await f.reconcile();
  assert.ok(failed.kind === "failed", failed.kind);
  assert.ok(failed.cause instanceof KubeApiError);
  assert.equal(failed.message, failed.cause.message);
  assert.match(failed.message, /500 InternalError/);
  assert.equal(f.writes(), 0);

  f.server.faults.inject("patch", { type: "status", code: 503, reason: "ServiceUnavailable" });
  const unavailable = await f.reconcile();
  assert.ok(unavailable.kind === "failed", unavailable.kind);
  assert.match(unavailable.message, /503 ServiceUnavailable/);
  assert.equal(f.corefile(), KUBEADM);
  assert.equal((await f.reconcile()).kind, "written", "the retry after the backoff writes");

  const before = f.server.audit.length;
  const controller = new AbortController();
  controller.abort(new Error("shutting down"));
  await assert.rejects(f.sink.reconcile(HOSTS, controller.signal), /shutting down/);
  assert.equal(f.server.audit.length, before);
});

Deno.test("a write to a Corefile without reload WARNs; with reload, and on no-op resyncs, it does not", async () => {
  {
    await using f = await fixture(K3S_WITHOUT_RELOAD);
    const written = await f.reconcile();
    const unchanged = await f.reconcile();
    const warns = noticesAt(written, "warn");
    assert.equal(warns.length, 1);
    assert.match(warns[0]!.message, /no 'reload' plugin/);
    assert.equal(warns[0]!.properties?.configmap, NAME);
    assert.deepEqual(unchanged, { kind: "unchanged", hosts: 2 });
    const again = await f.reconcile(["other.example.com"]);
    assert.equal(noticesAt(again, "warn").length, 1, "each write to the unreloaded Corefile says so");
  }
  {
    await using f = await fixture(K3S);
    assert.deepEqual(checkDiff(await f.reconcile(), { read: K3S, written: f.corefile() }), {
      kind: "written",
      hosts: 2,
      added: 2,
      removed: 0,
    });
  }
});

Deno.test("one external revert is simply repaired (drift restored, T-1.28)", async () => {
  await using f = await fixture(KUBEADM);
  await f.reconcile();
  f.edit(KUBEADM);
  assert.deepEqual(checkDiff(await f.reconcile(), { read: KUBEADM, written: f.corefile() }), {
    kind: "written",
    hosts: 2,
    added: 2,
    removed: 0,
    notices: [{
      level: "debug",
      message: "the ouroboros block was reverted by another writer",
      properties: { configmap: `${NAMESPACE}/${NAME}`, reverts: 1 },
    }],
  });
  assert.deepEqual(blockLines(f.corefile()), expectedBlock(HOSTS, "    "));
});

Deno.test("a GitOps tool reverting every 2 s: WARN and Event once, rewrites spaced by a doubling hold-off (T-2.2)", async () => {
  await using f = await fixture(KUBEADM);
  const writeTimes: number[] = [];
  const outcomes: string[] = [];
  const warns: Notice[] = [];
  const start = f.clock.now();
  for (let second = 0; second <= 20 * 60; second += 2) {
    const outcome = await f.reconcile();
    warns.push(...noticesAt(outcome, "warn"));
    outcomes.push(outcome.kind === "refused" ? outcome.problem : outcome.kind);
    if (outcome.kind === "written") writeTimes.push((f.clock.now() - start) / 1000);
    f.clock.advanceSync(2_000);
    f.edit(KUBEADM); // the tool re-applies its own Corefile
  }
  // Immediate rewrites until the third revert, then 30 s, 60 s, 120 s, … after our last write.
  assert.deepEqual(writeTimes, [0, 2, 4, 34, 94, 214, 454, 934]);
  assert.ok(outcomes.every((kind) => kind === "written" || kind === "reverted"), outcomes.join(","));

  assert.equal(warns.length, 1);
  assert.match(warns[0]!.message, /coredns-import mode/);
  assert.deepEqual(warns[0]!.properties, { namespace: NAMESPACE, configmap: NAME });
  assert.deepEqual(f.events().map((event) => event.reason), ["CorefileReverted"]);
  assert.match(String(f.events()[0]!.message), /coredns-import mode/);
  assert.equal(f.corefile(), KUBEADM, "the other writer's content is never damaged");
});

Deno.test("while held off, a reconcile says why and when, and writes nothing (T-2.2)", async () => {
  await using f = await fixture(KUBEADM);
  for (let i = 0; i < 3; i++) {
    await f.reconcile();
    f.edit(KUBEADM);
    f.clock.advanceSync(1_000);
  }
  const held = await f.reconcile();
  assert.ok(held.kind === "refused");
  assert.equal(held.problem, "reverted");
  assert.match(held.message, /not rewriting it for another 2\d s/);
  assert.match(held.message, /coredns-import mode/);
  const writes = f.writes();
  f.clock.advanceSync(10_000);
  assert.equal((await f.reconcile()).kind, "refused");
  assert.equal(f.writes(), writes);
  f.clock.advanceSync(20_000);
  assert.equal((await f.reconcile()).kind, "written", "the hold-off has passed");
});

Deno.test("a changed desired set is not mistaken for a revert (T-2.2)", async () => {
  await using f = await fixture(KUBEADM);
  for (let i = 0; i < 10; i++) {
    const read = f.corefile();
    assert.deepEqual(checkDiff(await f.reconcile([`h${i}.example.com`]), { read, written: f.corefile() }), {
      kind: "written",
      hosts: 1,
      added: 1,
      removed: i === 0 ? 0 : 1,
    });
    f.clock.advanceSync(1_000);
  }
  assert.equal(f.events().length, 0);
});

Deno.test("dry run: every distribution Corefile gets a preview whose diff is exactly the write; nothing is written", async (t) => {
  for (const { name, text } of FIXTURES) {
    await t.step(name, async () => {
      await using f = await fixture(text, { sink: { dryRun: true } });
      const first = await f.reconcile();
      assert.equal(first.kind, "previewed");
      // What the write would have made: the same sink without dryRun, on the same Corefile.
      await using real = await fixture(text);
      const written = await real.reconcile();
      assert.ok(first.kind === "previewed" && written.kind === "written");
      assert.equal(first.diff, written.diff, "the preview is the diff of the real write");
      assert.equal(applyPatch(text, first.diff), real.corefile());
      assert.deepEqual(
        { hosts: first.hosts, added: first.added, removed: first.removed },
        { hosts: written.hosts, added: written.added, removed: written.removed },
      );
      assert.deepEqual(await f.reconcile(), first, "nothing changed: the same preview");
      assert.equal(f.writes(), 0);
      assert.equal(f.corefile(), text);
      assert.equal(noticesAt(first, "warn").length, 0, "no reload warning for a write that never happens");
    });
  }
});

Deno.test("dry run: a block already in place is unchanged; a removal is previewed", async () => {
  await using real = await fixture(KUBEADM);
  await real.reconcile();
  const withBlock = real.corefile();
  await using f = await fixture(withBlock, { sink: { dryRun: true } });
  assert.deepEqual(await f.reconcile(), { kind: "unchanged", hosts: 2 });
  const removal = await f.reconcile([]);
  assert.ok(removal.kind === "previewed");
  assert.equal(applyPatch(withBlock, removal.diff), KUBEADM);
  assert.equal(f.writes(), 0);
});

Deno.test("dry run: another writer keeping its own Corefile never trips the revert guard (nothing of ours is reverted)", async () => {
  await using f = await fixture(KUBEADM, { sink: { dryRun: true } });
  const kinds = new Set<string>();
  for (let second = 0; second <= 10 * 60; second += 2) {
    const outcome = await f.reconcile();
    kinds.add(outcome.kind);
    assert.deepEqual(noticesAt(outcome, "warn"), []);
    assert.deepEqual(noticesAt(outcome, "debug"), []);
    f.clock.advanceSync(2_000);
    f.edit(KUBEADM); // the GitOps tool re-applies its Corefile
  }
  assert.deepEqual([...kinds], ["previewed"]);
  assert.equal(f.writes() - f.requests("PUT"), 0, "only the other writer's PUTs");
  assert.deepEqual(f.events(), []);
});

Deno.test("dry run: refusals are the same as a run's, without the Warning Event", async () => {
  const damaged = lines(".:53 {", `    ${END}`, `    ${BEGIN}`, "    reload", "}");
  {
    await using f = await fixture(damaged, { sink: { dryRun: true } });
    const outcome = await f.reconcile();
    assert.ok(outcome.kind === "refused" && outcome.problem === "end-before-begin");
    assert.deepEqual(f.events(), []);
  }
  {
    await using f = await fixture(KUBEADM, { sink: { dryRun: true } });
    f.server.update({ ...f.server.get("v1", "ConfigMap", NAMESPACE, NAME)!, immutable: true });
    const outcome = await f.reconcile();
    assert.ok(outcome.kind === "refused" && outcome.problem === "immutable");
    assert.deepEqual(f.events(), []);
    assert.deepEqual(f.server.audit.filter((entry) => entry.method !== "GET" && entry.method !== "PUT"), []);
  }
});
