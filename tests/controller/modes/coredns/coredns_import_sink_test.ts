/**
 * coredns-import mode's sink against the fake API server: our one key of the import ConfigMap is
 * created, updated and deleted with merge patches that name only that key, other keys (including
 * ones another writer changes at the same moment) are never touched, unchanged resyncs write
 * nothing, and a missing ConfigMap is a refusal naming the prerequisite, never a create
 * (reliability matrix T-2.3, T-2.5, T-2.9, T-2.11, T-2.19).
 */

import assert from "node:assert/strict";
import { KubeClient } from "../../../../lib/kube/client.ts";
import { KubeApiError } from "../../../../lib/kube/errors.ts";
import { EventRecorder } from "../../../../lib/kube/event_recorder.ts";
import type { JsonObject } from "../../../../lib/resources/json.ts";
import { CorednsImportSink } from "../../../../lib/controller/modes/coredns/coredns_import_sink.ts";
import { importLineFor } from "../../../../lib/controller/modes/coredns/corefile/import_line.ts";
import type { ConfigMapApi } from "../../../../lib/controller/modes/coredns/corefile_location.ts";
import type { SinkOutcome } from "../../../../lib/controller/modes/sink.ts";
import { type FakeApiServer, startFakeApiServer } from "../../../support/fake_apiserver/mod.ts";
import { FakeClock } from "../../../support/fake_clock.ts";
import { FQDN } from "./support.ts";

const NAMESPACE = "kube-system";
const NAME = "coredns-custom";
const KEY = "ouroboros.override";
const OTHERS = {
  "team-a.override": "rewrite name legacy.internal new.internal.svc.cluster.local.\n",
  "extra.server": "example.net:53 {\n    forward . 192.0.2.1\n}\n",
};

/** The header of our key's diff. */
const HEADER = `--- a/${NAMESPACE}/${NAME}[${KEY}]\n+++ b/${NAMESPACE}/${NAME}[${KEY}]\n`;

function snippet(hosts: readonly string[]): string {
  return hosts.map((host) => `rewrite name ${host} ${FQDN}\n`).join("");
}

interface Fixture extends AsyncDisposable {
  readonly server: FakeApiServer;
  readonly sink: CorednsImportSink;
  /** Every merge patch body the sink sent, with its precondition (if any). */
  readonly patches: { body: JsonObject; resourceVersion: string | undefined }[];
  data(): Record<string, string>;
  writes(): number;
  events(): Record<string, unknown>[];
  reconcile(hosts: readonly string[]): Promise<SinkOutcome>;
}

async function fixture(
  data: Record<string, string> | undefined,
  options: { beforePatch?: (server: FakeApiServer) => void; dryRun?: boolean } = {},
): Promise<Fixture> {
  const server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  if (data !== undefined) {
    server.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: NAME, namespace: NAMESPACE, labels: { "app.kubernetes.io/part-of": "dns" } },
      data,
    });
  }
  const client = new KubeClient({ server: server.url });
  const patches: Fixture["patches"] = [];
  const recording: ConfigMapApi = {
    get: (type, ref, callOptions) => client.get(type, ref, callOptions),
    mergePatch: (type, ref, patch, patchOptions) => {
      patches.push({ body: patch, resourceVersion: patchOptions?.resourceVersion });
      options.beforePatch?.(server);
      return client.mergePatch(type, ref, patch, patchOptions);
    },
  };
  const clock = new FakeClock();
  const sink = new CorednsImportSink({
    client: recording,
    target: { namespace: NAMESPACE, configmap: NAME, key: KEY },
    proxyFqdn: FQDN,
    recorder: new EventRecorder({ client, instance: "ouroboros-0", clock }),
    dryRun: options.dryRun ?? false,
  });
  const stored = () => server.get("v1", "ConfigMap", NAMESPACE, NAME);
  return {
    server,
    sink,
    patches,
    data: () => (stored()?.data ?? {}) as Record<string, string>,
    writes: () =>
      server.audit.filter((entry) => entry.method !== "GET" && entry.path.includes("/configmaps")).length,
    events: () => server.list("v1", "Event", NAMESPACE),
    reconcile: (hosts) => sink.reconcile(hosts, new AbortController().signal),
    async [Symbol.asyncDispose]() {
      client.close();
      await server.close();
    },
  };
}

Deno.test("create, keep, update and delete our key; the other keys are never touched (T-2.3, T-2.5, T-2.9, T-2.18, T-2.19)", async () => {
  await using f = await fixture({ ...OTHERS });
  const first = ["app.example.com", "shop.example.org"];
  assert.deepEqual(await f.reconcile(first), {
    kind: "written",
    hosts: 2,
    added: 2,
    removed: 0,
    names: { added: first, removed: [] },
    diff:
      `${HEADER}@@ -0,0 +1,2 @@\n+rewrite name app.example.com ${FQDN}\n+rewrite name shop.example.org ${FQDN}\n`,
  });
  assert.deepEqual(f.data(), { ...OTHERS, [KEY]: snippet(first) });
  assert.deepEqual(f.patches, [{ body: { data: { [KEY]: snippet(first) } }, resourceVersion: undefined }]);

  for (let i = 0; i < 10; i++) assert.deepEqual(await f.reconcile(first), { kind: "unchanged", hosts: 2 });
  assert.equal(f.writes(), 1, "unchanged resyncs write nothing");

  const second = ["app.example.com", "blog.example.net", "new.example.net"];
  assert.deepEqual(await f.reconcile(second), {
    kind: "written",
    hosts: 3,
    added: 2,
    removed: 1,
    names: { added: ["blog.example.net", "new.example.net"], removed: ["shop.example.org"] },
    diff:
      `${HEADER}@@ -1,2 +1,3 @@\n rewrite name app.example.com ${FQDN}\n-rewrite name shop.example.org ${FQDN}\n` +
      `+rewrite name blog.example.net ${FQDN}\n+rewrite name new.example.net ${FQDN}\n`,
  });
  assert.deepEqual(f.data(), { ...OTHERS, [KEY]: snippet(second) });

  const removal = await f.reconcile([]);
  assert.deepEqual(removal, {
    kind: "written",
    hosts: 0,
    added: 0,
    removed: 3,
    names: { added: [], removed: second },
    diff: `${HEADER}@@ -1,3 +0,0 @@\n${second.map((host) => `-rewrite name ${host} ${FQDN}\n`).join("")}`,
  });
  assert.deepEqual(f.data(), OTHERS, "zero hosts delete the key");
  assert.deepEqual(f.patches.at(-1), { body: { data: { [KEY]: null } }, resourceVersion: undefined });
  assert.deepEqual(await f.reconcile([]), { kind: "unchanged", hosts: 0 });
  assert.equal(f.writes(), 3);
  const labels =
    (f.server.get("v1", "ConfigMap", NAMESPACE, NAME)?.metadata as Record<string, unknown>).labels;
  assert.deepEqual(labels, { "app.kubernetes.io/part-of": "dns" });
});

Deno.test("an empty value left in our key is deleted when there are no hosts", async () => {
  await using f = await fixture({ ...OTHERS, [KEY]: "" });
  assert.equal((await f.reconcile([])).kind, "written");
  assert.deepEqual(f.data(), OTHERS);
});

Deno.test("a key written by the original implementation causes no write", async () => {
  await using f = await fixture({ [KEY]: snippet(["a.example.com", "b.example.com"]) });
  assert.deepEqual(await f.reconcile(["a.example.com", "b.example.com"]), { kind: "unchanged", hosts: 2 });
  assert.equal(f.writes(), 0);
});

Deno.test("another writer changes a different key between our read and our write: both changes are kept (T-2.19)", async () => {
  let once = true;
  await using f = await fixture({ ...OTHERS }, {
    beforePatch: (server) => {
      if (!once) return;
      once = false;
      const current = server.get("v1", "ConfigMap", NAMESPACE, NAME)!;
      server.update({
        ...current,
        data: { ...(current.data as Record<string, string>), "team-a.override": "# emptied by team A\n" },
      });
    },
  });
  assert.equal((await f.reconcile(["app.example.com"])).kind, "written");
  assert.deepEqual(f.data(), {
    ...OTHERS,
    "team-a.override": "# emptied by team A\n",
    [KEY]: snippet(["app.example.com"]),
  });
  assert.equal(
    f.server.audit.filter((entry) => entry.status === 409).length,
    0,
    "no precondition, no conflict",
  );
});

Deno.test("a missing import ConfigMap is refused with the prerequisite spelled out, and never created (T-2.9)", async () => {
  await using f = await fixture(undefined);
  const outcome = await f.reconcile(["app.example.com"]);
  assert.ok(outcome.kind === "refused");
  assert.equal(outcome.problem, "import-configmap-missing");
  assert.match(outcome.message, /ConfigMap kube-system\/coredns-custom does not exist/);
  assert.match(outcome.message, /kubectl --namespace kube-system create configmap coredns-custom/);
  assert.ok(outcome.message.includes(importLineFor(KEY)));
  assert.match(outcome.message, /never creates it/);
  assert.equal(f.writes(), 0);
  assert.equal(f.server.list("v1", "ConfigMap").length, 0);
});

Deno.test("a key that would pass 1 MiB is refused with an Event; the previous rules stay (T-2.11)", async () => {
  await using f = await fixture({ "big.server": "#".repeat(1_048_576 - 5_000) });
  const few = ["app.example.com"];
  assert.equal((await f.reconcile(few)).kind, "written");
  const many = Array.from({ length: 200 }, (_, i) => `host-${i}.example.com`);
  const outcome = await f.reconcile(many);
  assert.ok(outcome.kind === "refused");
  assert.equal(outcome.problem, "too-large");
  assert.equal(f.data()[KEY], snippet(few));
  assert.equal(f.writes(), 1);
  assert.deepEqual(f.events().map((event) => event.reason), ["ConfigMapTooLarge"]);
});

Deno.test("a host that could break a rewrite line is refused before any request (T-3.1)", async () => {
  await using f = await fixture({ ...OTHERS });
  const outcome = await f.reconcile(["ok.example.com", "evil.example.com\n    forward . 6.6.6.6"]);
  assert.ok(outcome.kind === "refused");
  assert.equal(outcome.problem, "invalid-host");
  assert.equal(f.server.audit.length, 0);
});

Deno.test("transient failures are failed outcomes with the error's message (the controller backs off); an aborted reconcile rejects and sends nothing", async () => {
  await using f = await fixture({ ...OTHERS });
  f.server.faults.inject("get", { type: "status", code: 500, reason: "InternalError" });
  const failed = await f.reconcile(["app.example.com"]);
  assert.ok(failed.kind === "failed", failed.kind);
  assert.ok(failed.cause instanceof KubeApiError);
  assert.equal(failed.message, failed.cause.message);
  assert.match(failed.message, /500 InternalError/);

  f.server.faults.inject("patch", { type: "status", code: 503, reason: "ServiceUnavailable" });
  const unavailable = await f.reconcile(["app.example.com"]);
  assert.ok(unavailable.kind === "failed", unavailable.kind);
  assert.match(unavailable.message, /503 ServiceUnavailable/);
  assert.equal(f.data()[KEY], undefined, "nothing written");
  assert.equal(
    (await f.reconcile(["app.example.com"])).kind,
    "written",
    "the retry after the backoff writes",
  );

  const before = f.server.audit.length;
  const controller = new AbortController();
  controller.abort(new Error("shutting down"));
  await assert.rejects(f.sink.reconcile(["app.example.com"], controller.signal), /shutting down/);
  assert.equal(f.server.audit.length, before);
});

Deno.test("dry run: the same reads and refusals, then previewed with the key's diff; nothing is written, no Event", async () => {
  const existing = ["app.example.com", "old.example.com"];
  await using f = await fixture({ ...OTHERS, [KEY]: snippet(existing) }, { dryRun: true });
  const wanted = ["app.example.com", "new.example.com"];
  const expected = {
    kind: "previewed",
    hosts: 2,
    added: 1,
    removed: 1,
    names: { added: ["new.example.com"], removed: ["old.example.com"] },
    diff:
      `${HEADER}@@ -1,2 +1,2 @@\n rewrite name app.example.com ${FQDN}\n-rewrite name old.example.com ${FQDN}\n` +
      `+rewrite name new.example.com ${FQDN}\n`,
  };
  assert.deepEqual(await f.reconcile(wanted), expected);
  assert.deepEqual(await f.reconcile(wanted), expected, "the same preview every pass: nothing was written");
  assert.deepEqual(await f.reconcile(existing), { kind: "unchanged", hosts: 2 });
  const removal = await f.reconcile([]);
  assert.ok(removal.kind === "previewed");
  assert.match(removal.diff, /^@@ -1,2 \+0,0 @@$/m);

  const immutable = f.server.get("v1", "ConfigMap", NAMESPACE, NAME)!;
  f.server.update({ ...immutable, immutable: true });
  const refused = await f.reconcile(wanted);
  assert.ok(
    refused.kind === "refused" && refused.problem === "immutable",
    "a dry run refuses what a run refuses",
  );

  assert.deepEqual(f.patches, []);
  assert.deepEqual(f.server.audit.filter((entry) => entry.method !== "GET").map((e) => e.method), []);
  assert.deepEqual(f.events(), []);
  assert.deepEqual(f.data(), { ...OTHERS, [KEY]: snippet(existing) });
});
