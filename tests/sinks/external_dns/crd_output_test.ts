/**
 * external-dns mode, output=crd, end to end: the sink with a real KubeClient against the fake
 * API server serving the DNSEndpoint CRD. Covers the reliability matrix's T-5.1 … T-5.7 (T-5.4,
 * no deletes while a cache is unsynced, is the controller's: the sink is only called with a
 * complete desired set).
 */

import assert from "node:assert/strict";
import type { RecordClient } from "../../../lib/sinks/external_dns/record_api.ts";
import { dnsEndpointName } from "../../../lib/sinks/external_dns/record_names.ts";
import { ExternalDnsSink } from "../../../lib/sinks/external_dns/reconciler.ts";
import type { HostSource } from "../../../lib/hostnames/sources.ts";
import { type FakeApiServer, startFakeApiServer } from "../../support/fake_apiserver/mod.ts";
import {
  captureLogs,
  dnsEndpointProblems,
  harness,
  INSTANCE,
  NAMESPACE,
  ownedLabels,
  resolved,
  SELECTOR,
  settings,
  writes,
} from "./support.ts";

const API = "externaldns.k8s.io/v1alpha1";
const never = new AbortController().signal;

type Json = Record<string, unknown>;

function endpoints(server: FakeApiServer): Json[] {
  return server.list(API, "DNSEndpoint", NAMESPACE);
}

function byName(server: FakeApiServer, name: string): Json | undefined {
  return server.get(API, "DNSEndpoint", NAMESPACE, name);
}

function specOf(object: Json | undefined): unknown {
  return object?.spec;
}

function metaOf(object: Json | undefined): Json {
  return (object?.metadata ?? {}) as Json;
}

function hosts(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `host${i}.example.com`);
}

Deno.test("first pass creates valid DNSEndpoints; a second pass only lists (zero writes)", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server, { targets: resolved(["10.96.0.10"], ["fd00::10"]) });

  const first = await h.sink.reconcile(["b.example.com", "a.example.com", "c.example.com"], never);
  assert.deepEqual(first, { kind: "written", hosts: 3, added: 3, removed: 0 });
  const stored = endpoints(server);
  assert.equal(stored.length, 6);
  for (const object of stored) assert.deepEqual(dnsEndpointProblems(object), [], JSON.stringify(object));
  for (const object of stored) assert.deepEqual(metaOf(object).labels, ownedLabels());

  const mark = server.audit.length;
  const second = await h.sink.reconcile(["a.example.com", "b.example.com", "c.example.com"], never);
  assert.deepEqual(second, { kind: "unchanged", hosts: 3 });
  assert.deepEqual(
    server.audit.slice(mark).map((entry) => [entry.method, entry.query.labelSelector]),
    [["GET", SELECTOR]],
    "an idempotent pass is one LIST by the ownership selector, nothing else",
  );
});

Deno.test("T-5.7: dual-stack proxy: one A with every IPv4, one AAAA with every IPv6, no trailing dots", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server, {
    targets: resolved(["10.96.0.10", "10.96.5.5"], ["fd00::10", "fd00::5"]),
    settings: settings({ recordTtl: 30 }),
  });
  await h.sink.reconcile(["shop.example.com"], never);
  assert.deepEqual(specOf(byName(server, dnsEndpointName("shop.example.com", 4))), {
    endpoints: [{
      dnsName: "shop.example.com",
      recordType: "A",
      recordTTL: 30,
      targets: ["10.96.0.10", "10.96.5.5"],
    }],
  });
  assert.deepEqual(specOf(byName(server, dnsEndpointName("shop.example.com", 6))), {
    endpoints: [{
      dnsName: "shop.example.com",
      recordType: "AAAA",
      recordTTL: 30,
      targets: ["fd00::10", "fd00::5"],
    }],
  });
});

Deno.test("T-5.1: foreign DNSEndpoints stay byte-identical; a name held by one refuses that host only", async () => {
  await using server = await startFakeApiServer();
  const foreign = [
    { name: "users-own-record", labels: {} },
    // Another release's record for a hostname this one does not want: looks prunable, is not ours.
    {
      name: dnsEndpointName("gone.example.com", 4),
      labels: { "app.kubernetes.io/managed-by": "ouroboros", "ouroboros.lexfrei.tech/instance": "blue" },
    },
    { name: "half-labelled", labels: { "app.kubernetes.io/managed-by": "ouroboros" } },
    { name: dnsEndpointName("taken.example.com", 4), labels: { team: "dns" } },
  ];
  for (const { name, labels } of foreign) {
    server.create({
      apiVersion: API,
      kind: "DNSEndpoint",
      metadata: { name, namespace: NAMESPACE, labels },
      spec: { endpoints: [{ dnsName: `${name}.example.org`, recordType: "A", targets: ["192.0.2.1"] }] },
    });
  }
  const before = foreign.map(({ name }) => JSON.stringify(byName(server, name)));
  using logs = captureLogs();
  using h = harness(server);

  const report = await h.sink.reconcileDetailed(["free.example.com", "taken.example.com"], never);
  assert.deepEqual(report.created, [dnsEndpointName("free.example.com", 4)]);
  assert.deepEqual(report.refused.map((refusal) => [refusal.host, refusal.problem]), [[
    "taken.example.com",
    "foreign-object",
  ]]);
  assert.equal(report.outcome.kind, "refused");
  assert.equal(report.outcome.kind === "refused" && report.outcome.problem, "foreign-object");
  const error = logs.at("ERROR");
  assert.equal(error.length, 1);
  assert.match(error[0]!.msg, /taken\.example\.com is not published/);
  assert.match(
    error[0]!.msg,
    new RegExp(`DNSEndpoint ${NAMESPACE}/${dnsEndpointName("taken.example.com", 4)}`),
  );
  assert.match(error[0]!.msg, /never takes over/);

  // A second pass: still refused (said again only at DEBUG), still no write near the foreign objects.
  await h.sink.reconcileDetailed(["free.example.com", "taken.example.com"], never);
  assert.equal(logs.at("ERROR").length, 1, "a standing refusal is logged once per transition");
  assert.equal(
    logs.at("DEBUG").filter((line) => line.msg === error[0]!.msg && line.repeated === true).length,
    1,
  );
  assert.deepEqual(foreign.map(({ name }) => JSON.stringify(byName(server, name))), before);
  const touched = writes(server.audit).filter((entry) =>
    foreign.some(({ name }) => entry.path.endsWith(`/${name}`))
  );
  assert.deepEqual(touched, [], "no write request ever named a foreign object");
  assert.deepEqual(writes(server.audit).map((entry) => entry.method), ["POST"]);
});

Deno.test("T-5.1: another release's records with the same hostname are refused, never taken over", async () => {
  await using server = await startFakeApiServer();
  using blue = harness(server, { settings: settings({ instance: "blue" }) });
  using green = harness(server, { settings: settings({ instance: "green" }) });
  await blue.sink.reconcile(["shared.example.com", "blue.example.com"], never);
  const outcome = await green.sink.reconcile(["shared.example.com", "green.example.com"], never);
  assert.equal(outcome.kind, "refused");
  assert.match(
    outcome.kind === "refused" ? outcome.message : "",
    /another ouroboros release \(instance "blue"\)/,
  );
  const shared = byName(server, dnsEndpointName("shared.example.com", 4));
  assert.equal((metaOf(shared).labels as Json)["ouroboros.lexfrei.tech/instance"], "blue");
  // And green's pass never pruned blue's other record.
  assert.ok(byName(server, dnsEndpointName("blue.example.com", 4)));
});

Deno.test("T-5.2: an empty hostname set while records exist prunes nothing and WARNs with the remedy", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  await h.sink.reconcile(hosts(3), never);
  const before = JSON.stringify(endpoints(server));
  const mark = server.audit.length;
  using logs = captureLogs();

  const outcome = await h.sink.reconcile([], never);
  assert.equal(outcome.kind, "refused");
  assert.equal(outcome.kind === "refused" && outcome.problem, "mass-prune-guard");
  assert.equal(JSON.stringify(endpoints(server)), before, "every published record remains");
  assert.deepEqual(writes(server.audit, mark), []);
  const [warn] = logs.at("WARN");
  assert.ok(warn !== undefined);
  assert.match(warn.msg, /3 ouroboros-owned DNSEndpoint\(s\) exist in ouroboros: pruning nothing/);
  assert.ok(
    warn.msg.includes(
      `kubectl --namespace ${NAMESPACE} delete dnsendpoints.externaldns.k8s.io --selector='${SELECTOR}'`,
    ),
    warn.msg,
  );
  assert.match(warn.msg, /restore at least one Ingress/);

  // Said once while it lasts; said again when it comes back after a normal pass.
  await h.sink.reconcile([], never);
  assert.equal(logs.at("WARN").length, 1);
  await h.sink.reconcile(hosts(3), never);
  await h.sink.reconcile([], never);
  assert.equal(logs.at("WARN").length, 2);
  assert.equal(endpoints(server).length, 3);
});

Deno.test("T-5.2: hostnames that all fail to build (wildcards, no proxy address) prune nothing", async (t) => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  await h.sink.reconcile(hosts(2), never);
  const before = JSON.stringify(endpoints(server));

  await t.step("every hostname became a wildcard", async () => {
    const mark = server.audit.length;
    const outcome = await h.sink.reconcile(["*.example.com", "*.shop.example.com"], never);
    assert.equal(outcome.kind === "refused" && outcome.problem, "nothing-built");
    assert.deepEqual(writes(server.audit, mark), []);
  });
  await t.step("the proxy Service turned headless", async () => {
    h.setTargets({ kind: "unusable", problem: "headless", message: "Service ouroboros/proxy is headless" });
    const mark = server.audit.length;
    const outcome = await h.sink.reconcile(hosts(2), never);
    assert.equal(outcome.kind === "refused" && outcome.problem, "nothing-built");
    assert.match(outcome.kind === "refused" ? outcome.message : "", /is headless/);
    assert.deepEqual(writes(server.audit, mark), []);
  });
  assert.equal(JSON.stringify(endpoints(server)), before);
});

Deno.test("T-5.3: removing 1 of 10 hosts deletes exactly its A and AAAA records", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server, { targets: resolved(["10.0.0.1"], ["fd00::1"]) });
  const all = hosts(10);
  await h.sink.reconcile(all, never);
  assert.equal(endpoints(server).length, 20);
  const versions = new Map(endpoints(server).map((o) => [metaOf(o).name, metaOf(o).resourceVersion]));
  const mark = server.audit.length;

  const outcome = await h.sink.reconcile(all.filter((host) => host !== "host4.example.com"), never);
  assert.deepEqual(outcome, { kind: "written", hosts: 9, added: 0, removed: 1 });
  const gone = [dnsEndpointName("host4.example.com", 4), dnsEndpointName("host4.example.com", 6)];
  assert.deepEqual(
    writes(server.audit, mark).map((entry) => [entry.method, entry.path.split("/").pop()]).sort(),
    gone.map((name) => ["DELETE", name]).sort(),
  );
  const left = endpoints(server);
  assert.equal(left.length, 18);
  for (const object of left) assert.equal(metaOf(object).resourceVersion, versions.get(metaOf(object).name));
});

/** A client that runs `before` ahead of the named call, to stage a race with the real server. */
function racing(
  client: RecordClient,
  before: { delete?: (name: string) => void; patch?: (name: string) => void },
): RecordClient {
  let fired = false;
  const once = (hook: ((name: string) => void) | undefined, name: string) => {
    if (hook !== undefined && !fired) {
      fired = true;
      hook(name);
    }
  };
  return {
    get: (type, ref, options) => client.get(type, ref, options),
    listAll: (type, options) => client.listAll(type, options),
    create: (type, manifest, options) => client.create(type, manifest, options),
    mergePatch: (type, ref, patch, options) => {
      once(before.patch, ref.name);
      return client.mergePatch(type, ref, patch, options);
    },
    delete: (type, ref, options) => {
      once(before.delete, ref.name);
      return client.delete(type, ref, options);
    },
  };
}

Deno.test("T-5.5: a record deleted by someone else just before our delete (404) is fine", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  await h.sink.reconcile(["a.example.com", "b.example.com"], never);
  const sink = new ExternalDnsSink({
    client: racing(h.client, { delete: (name) => server.remove(API, "DNSEndpoint", NAMESPACE, name) }),
    settings: settings(),
    targets: () => resolved(["10.96.0.10"]),
  });
  const mark = server.audit.length;
  const report = await sink.reconcileDetailed(["a.example.com"], never);
  assert.deepEqual(report.errors, []);
  assert.deepEqual(server.audit.slice(mark).filter((e) => e.method === "DELETE").map((e) => e.status), [404]);
  assert.deepEqual(endpoints(server).map((o) => metaOf(o).name), [dnsEndpointName("a.example.com", 4)]);
});

Deno.test("a record changed before our delete is re-read: still ours → deleted; relabelled → left alone", async (t) => {
  for (
    const [name, relabel, survives] of [["still ours", false, false], ["taken over", true, true]] as const
  ) {
    await t.step(name, async () => {
      await using server = await startFakeApiServer();
      using h = harness(server);
      await h.sink.reconcile(["a.example.com", "b.example.com"], never);
      const victim = dnsEndpointName("b.example.com", 4);
      const sink = new ExternalDnsSink({
        client: racing(h.client, {
          delete: () => {
            const current = byName(server, victim)!;
            const labels = relabel
              ? { team: "dns" }
              : { ...(metaOf(current).labels as Json), touched: "yes" };
            server.update({ ...current, metadata: { ...metaOf(current), labels } });
          },
        }),
        settings: settings(),
        targets: () => resolved(["10.96.0.10"]),
      });
      const report = await sink.reconcileDetailed(["a.example.com"], never);
      assert.deepEqual(report.errors, []);
      assert.equal(byName(server, victim) !== undefined, survives);
      const deletes = server.audit.filter((e) => e.method === "DELETE").map((e) => e.status);
      assert.deepEqual(deletes, relabel ? [409] : [409, 200]);
    });
  }
});

Deno.test("an update that loses a race (409) re-reads and retries once; twice is a retryable failure", async (t) => {
  await t.step("someone else wrote the object first", async () => {
    await using server = await startFakeApiServer();
    using h = harness(server);
    await h.sink.reconcile(["a.example.com"], never);
    const name = dnsEndpointName("a.example.com", 4);
    const sink = new ExternalDnsSink({
      client: racing(h.client, {
        patch: () => {
          const current = byName(server, name)!;
          server.update({ ...current, metadata: { ...metaOf(current), annotations: { note: "hi" } } });
        },
      }),
      settings: settings(),
      targets: () => resolved(["10.1.1.1"]),
    });
    const outcome = await sink.reconcile(["a.example.com"], never);
    assert.equal(outcome.kind, "written");
    assert.deepEqual(server.audit.filter((e) => e.method === "PATCH").map((e) => e.status), [409, 200]);
    const stored = byName(server, name);
    assert.deepEqual((specOf(stored) as { endpoints: { targets: string[] }[] }).endpoints[0]!.targets, [
      "10.1.1.1",
    ]);
    assert.deepEqual(metaOf(stored).annotations, { "ouroboros.lexfrei.tech/source": "unknown" });
  });
  await t.step("conflicts twice: the pass rejects so the controller backs off", async () => {
    await using server = await startFakeApiServer();
    using h = harness(server);
    await h.sink.reconcile(["a.example.com"], never);
    server.faults.inject("patch", { type: "status", code: 409, reason: "Conflict" }, { count: 2 });
    h.setTargets(resolved(["10.1.1.1"]));
    await assert.rejects(
      h.sink.reconcile(["a.example.com"], never),
      /1 write\(s\) failed and will be retried/,
    );
    // The next pass converges.
    assert.equal((await h.sink.reconcile(["a.example.com"], never)).kind, "written");
  });
});

Deno.test("T-5.6: status written by external-dns is never compared and never clobbered", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  await h.sink.reconcile(["a.example.com"], never);
  const name = dnsEndpointName("a.example.com", 4);
  const path = `/apis/${API}/namespaces/${NAMESPACE}/dnsendpoints/${name}`;
  // external-dns' CRD source records that it saw the object through the status subresource.
  const current = byName(server, name)!;
  const response = await fetch(`${server.url}${path}/status`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...current, status: { observedGeneration: metaOf(current).generation } }),
  });
  assert.equal(response.status, 200, await response.text());

  let mark = server.audit.length;
  assert.deepEqual(await h.sink.reconcile(["a.example.com"], never), { kind: "unchanged", hosts: 1 });
  assert.deepEqual(writes(server.audit, mark), [], "a status change alone causes no write");

  h.setTargets(resolved(["10.2.2.2"]));
  mark = server.audit.length;
  assert.equal((await h.sink.reconcile(["a.example.com"], never)).kind, "written");
  assert.deepEqual(writes(server.audit, mark).map((entry) => [entry.method, entry.path]), [["PATCH", path]]);
  const after = byName(server, name)!;
  assert.deepEqual(after.status, { observedGeneration: 1 }, "status kept as external-dns wrote it");
  assert.equal(
    metaOf(after).generation,
    2,
    "the spec change is a new generation for external-dns to observe",
  );
});

Deno.test("a new proxy address re-targets every record on the next pass", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server, { targets: resolved(["10.0.0.1"]) });
  await h.sink.reconcile(hosts(3), never);
  h.setTargets(resolved(["10.0.0.2"], ["fd00::2"]));
  const report = await h.sink.reconcileDetailed(hosts(3), never);
  assert.equal(report.updated.length, 3);
  assert.equal(report.created.length, 3, "the AAAA records are new");
  for (const object of endpoints(server)) {
    const [endpoint] =
      (specOf(object) as { endpoints: { recordType: string; targets: string[] }[] }).endpoints;
    assert.deepEqual(endpoint!.targets, endpoint!.recordType === "A" ? ["10.0.0.2"] : ["fd00::2"]);
  }
  assert.deepEqual(await h.sink.reconcile(hosts(3), never), { kind: "unchanged", hosts: 3 });
});

Deno.test("long and colliding hostnames: each gets its own valid DNSEndpoint", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  const long = `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`;
  assert.equal(long.length, 253);
  const colliding = ["a.b.com", "a-b.com", "a_b.com"];
  const outcome = await h.sink.reconcile([long, ...colliding], never);
  assert.deepEqual(outcome, { kind: "written", hosts: 4, added: 4, removed: 0 });
  const stored = endpoints(server);
  assert.equal(stored.length, 4);
  const dnsNames = stored.map((object) =>
    (specOf(object) as { endpoints: { dnsName: string }[] }).endpoints[0]!.dnsName
  ).sort();
  assert.deepEqual(dnsNames, [long, ...colliding].sort());
  for (const object of stored) assert.deepEqual(dnsEndpointProblems(object), []);
});

Deno.test("the source annotation follows where each hostname comes from", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  const sources = new Map<string, readonly HostSource[]>([
    ["a.example.com", ["ingress"]],
    ["b.example.com", ["gateway-listener", "httproute"]],
  ]);
  await h.sink.reconcile(["a.example.com", "b.example.com"], never, { sources });
  const source = (host: string) =>
    (metaOf(byName(server, dnsEndpointName(host, 4))).annotations as Json)["ouroboros.lexfrei.tech/source"];
  assert.equal(source("a.example.com"), "ingress");
  assert.equal(source("b.example.com"), "gateway-listener,httproute");
  const report = await h.sink.reconcileDetailed(["a.example.com", "b.example.com"], never, {
    sources: new Map([["a.example.com", ["ingress", "httproute"]], ["b.example.com", ["httproute"]]]),
  });
  assert.equal(report.updated.length, 2);
  assert.equal(source("a.example.com"), "ingress,httproute");
});

Deno.test("operator labels and annotations are applied, and a removed one is taken off", async () => {
  await using server = await startFakeApiServer();
  using first = harness(server, {
    settings: settings({ labels: { team: "edge", tier: "1" }, annotations: { "example.com/note": "x" } }),
  });
  await first.sink.reconcile(["a.example.com"], never);
  const name = dnsEndpointName("a.example.com", 4);
  assert.deepEqual(metaOf(byName(server, name)).labels, ownedLabels({ team: "edge", tier: "1" }));
  using second = harness(server, { settings: settings({ labels: { team: "edge" } }) });
  assert.equal((await second.sink.reconcile(["a.example.com"], never)).kind, "written");
  assert.deepEqual(metaOf(byName(server, name)).labels, ownedLabels({ team: "edge" }));
  assert.deepEqual(metaOf(byName(server, name)).annotations, { "ouroboros.lexfrei.tech/source": "unknown" });
});

Deno.test("one failing create does not stop the others; the pass rejects and the next one converges", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  server.faults.inject("create", { type: "status", code: 500, reason: "InternalError" });
  await assert.rejects(h.sink.reconcile(hosts(3), never), /1 write\(s\) failed/);
  assert.equal(endpoints(server).length, 2);
  assert.deepEqual(await h.sink.reconcile(hosts(3), never), {
    kind: "written",
    hosts: 3,
    added: 1,
    removed: 0,
  });
});

Deno.test("an object the API server refuses as invalid (422) refuses that host only", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  server.faults.inject("create", {
    type: "status",
    code: 422,
    reason: "Invalid",
    message: "spec.endpoints: bad",
  });
  const report = await h.sink.reconcileDetailed(hosts(2), never);
  assert.deepEqual(report.refused.map((refusal) => [refusal.host, refusal.problem]), [[
    "host0.example.com",
    "invalid-object",
  ]]);
  assert.match(report.refused[0]!.message, /refused .* as invalid: .*spec\.endpoints: bad/);
  assert.deepEqual(report.created, [dnsEndpointName("host1.example.com", 4)]);
});

Deno.test("an owned object that cannot be decoded is neither pruned nor overwritten", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  const broken = dnsEndpointName("broken.example.com", 4);
  server.create({
    apiVersion: API,
    kind: "DNSEndpoint",
    metadata: { name: broken, namespace: NAMESPACE, labels: ownedLabels() },
    spec: { endpoints: "not a list" },
  });
  const before = JSON.stringify(byName(server, broken));
  const report = await h.sink.reconcileDetailed(["ok.example.com", "broken.example.com"], never);
  assert.deepEqual(report.refused.map((refusal) => refusal.problem), ["unreadable-object"]);
  assert.equal(JSON.stringify(byName(server, broken)), before);
  await h.sink.reconcile(["ok.example.com"], never);
  assert.equal(JSON.stringify(byName(server, broken)), before, "not pruned either");
});

Deno.test("a record created by a concurrent replica between our read and our create is adopted", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  const name = dnsEndpointName("a.example.com", 4);
  let staged = false;
  const sink = new ExternalDnsSink({
    client: {
      get: (type, ref, options) => h.client.get(type, ref, options),
      listAll: (type, options) => h.client.listAll(type, options),
      create: (type, manifest, options) => {
        if (!staged) {
          staged = true;
          server.create({ ...manifest, metadata: { ...manifest.metadata, annotations: { stale: "yes" } } });
        }
        return h.client.create(type, manifest, options);
      },
      mergePatch: (type, ref, patch, options) => h.client.mergePatch(type, ref, patch, options),
      delete: (type, ref, options) => h.client.delete(type, ref, options),
    },
    settings: settings(),
    targets: () => resolved(["10.96.0.10"]),
  });
  const report = await sink.reconcileDetailed(["a.example.com"], never);
  assert.deepEqual([report.created, report.updated, report.errors], [[], [name], []]);
  assert.deepEqual(metaOf(byName(server, name)).annotations, { "ouroboros.lexfrei.tech/source": "unknown" });
});

Deno.test("an aborted pass rejects with the abort reason and writes nothing", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  const controller = new AbortController();
  controller.abort(new Error("shutting down"));
  await assert.rejects(h.sink.reconcile(hosts(2), controller.signal), /shutting down/);
  assert.deepEqual(writes(server.audit), []);
});

Deno.test("the sink describes itself for logs", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  assert.equal(
    h.sink.description,
    `external-dns dnsendpoints.externaldns.k8s.io in ${NAMESPACE} (instance ${INSTANCE})`,
  );
});
