/**
 * `ExternalDnsSink`, output=crd, end to end: the sink with a real KubeClient against
 * the fake API server serving the DNSEndpoint CRD. Covers the reliability matrix's T-5.1 … T-5.7 (T-5.4,
 * no deletes while a cache is unsynced, is the controller's: the sink is only called with a
 * complete desired set).
 */

import assert from "node:assert/strict";
import type { ExternalDnsSink } from "../../../../lib/controller/modes/external_dns/external_dns_sink.ts";
import type { OwnedObjectClient } from "../../../../lib/publisher/owned_object_api.ts";
import { dnsEndpointName } from "../../../../lib/controller/modes/external_dns/record_names.ts";
import type { HostSource } from "../../../../lib/hostnames/sources.ts";
import { type FakeApiServer, startFakeApiServer } from "../../../support/fake_apiserver/mod.ts";
import {
  actions,
  dnsEndpointProblems,
  harness,
  INSTANCE,
  NAMESPACE,
  noticesAt,
  ownedLabels,
  SELECTOR,
  settings,
  summary,
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
  using h = harness(server, { targets: [["10.96.0.10"], ["fd00::10"]] });

  const first = await h.sink.reconcile(["b.example.com", "a.example.com", "c.example.com"], never);
  assert.deepEqual(summary(first), { kind: "written", hosts: 3, added: 3, removed: 0 });
  const stored = endpoints(server);
  assert.equal(stored.length, 6);
  for (const object of stored) assert.deepEqual(dnsEndpointProblems(object), [], JSON.stringify(object));
  for (const object of stored) assert.deepEqual(metaOf(object).labels, ownedLabels());
  assert.deepEqual(
    actions(first).created,
    stored.map((object) => metaOf(object).name).sort(),
    "each create is said at DEBUG",
  );

  const mark = server.audit.length;
  const second = await h.sink.reconcile(["a.example.com", "b.example.com", "c.example.com"], never);
  assert.deepEqual(second, { kind: "unchanged", hosts: 3 }, "nothing to say either");
  assert.deepEqual(
    server.audit.slice(mark).map((entry) => [entry.method, entry.query.labelSelector]),
    [["GET", SELECTOR]],
    "an idempotent pass is one LIST by the ownership selector, nothing else",
  );
});

Deno.test("T-5.7: dual-stack proxy: one A with every IPv4, one AAAA with every IPv6, no trailing dots", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server, {
    targets: [["10.96.0.10", "10.96.5.5"], ["fd00::10", "fd00::5"]],
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
  using h = harness(server);

  const outcome = await h.sink.reconcile(["free.example.com", "taken.example.com"], never);
  assert.deepEqual(actions(outcome).created, [dnsEndpointName("free.example.com", 4)]);
  assert.ok(outcome.kind === "refused", JSON.stringify(outcome));
  assert.equal(outcome.problem, "foreign-object");
  assert.equal(outcome.scope, "some-hosts", "free.example.com was written");
  assert.match(outcome.message, /^taken\.example\.com is not published/);
  assert.match(
    outcome.message,
    new RegExp(`DNSEndpoint ${NAMESPACE}/${dnsEndpointName("taken.example.com", 4)}`),
  );
  assert.match(outcome.message, /never takes over/);
  assert.doesNotMatch(outcome.message, /free\.example\.com/, "the refusal names only the refused host");
  assert.deepEqual(
    [...noticesAt(outcome, "warn"), ...noticesAt(outcome, "error")],
    [],
    "the refusal is the outcome, not a notice repeating it",
  );

  // A second pass: the same refusal (the controller logs it once), still no write near the foreign objects.
  const again = await h.sink.reconcile(["free.example.com", "taken.example.com"], never);
  assert.deepEqual(summary(again), summary(outcome));
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

Deno.test("T-5.2: an empty hostname set while records exist prunes nothing; the guard says the remedy", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  await h.sink.reconcile(hosts(3), never);
  const before = JSON.stringify(endpoints(server));
  const mark = server.audit.length;

  const outcome = await h.sink.reconcile([], never);
  assert.ok(outcome.kind === "refused");
  assert.equal(outcome.problem, "mass-prune-guard");
  assert.equal(outcome.scope, "guard", "logged by the controller as a WARN");
  assert.equal(JSON.stringify(endpoints(server)), before, "every published record remains");
  assert.deepEqual(writes(server.audit, mark), []);
  assert.match(outcome.message, /3 ouroboros-owned DNSEndpoint\(s\) exist in ouroboros: pruning nothing/);
  assert.ok(
    outcome.message.includes(
      `kubectl --namespace ${NAMESPACE} delete dnsendpoints.externaldns.k8s.io --selector='${SELECTOR}'`,
    ),
    outcome.message,
  );
  assert.match(outcome.message, /restore at least one Ingress/);
  assert.equal(outcome.notices, undefined, "the guard is the outcome, not a notice");

  // The same refusal while it lasts (said once); the same again when it comes back after a normal pass.
  assert.deepEqual(await h.sink.reconcile([], never), outcome);
  assert.equal((await h.sink.reconcile(hosts(3), never)).kind, "unchanged");
  assert.deepEqual(await h.sink.reconcile([], never), outcome);
  assert.equal(endpoints(server).length, 3);
});

Deno.test("T-5.2: hostnames that all fail to build (wildcards, no proxy address) prune nothing", async (t) => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  await h.sink.reconcile(hosts(2), never);
  const before = JSON.stringify(endpoints(server));

  await t.step("every hostname became an invalid wildcard", async () => {
    const mark = server.audit.length;
    const outcome = await h.sink.reconcile(["a.*.example.com", "*shop.example.com"], never);
    assert.ok(outcome.kind === "refused");
    assert.equal(outcome.problem, "nothing-built");
    assert.equal(outcome.scope, "guard");
    assert.match(
      outcome.message,
      /none of the 2 hostname\(s\) could be turned into records \(a '\*' or '\?' other/,
    );
    assert.deepEqual(writes(server.audit, mark), []);
  });
  await t.step("the proxy Service turned headless: not even a read", async () => {
    h.setTargets(["None"]);
    const mark = server.audit.length;
    const outcome = await h.sink.reconcile(hosts(2), never);
    assert.ok(outcome.kind === "refused");
    assert.equal(outcome.problem, "headless");
    assert.equal(outcome.scope, "nothing-written");
    assert.match(outcome.message, /is headless/);
    assert.deepEqual(server.audit.slice(mark), []);
  });
  assert.equal(JSON.stringify(endpoints(server)), before);
});

Deno.test("T-5.3: removing 1 of 10 hosts deletes exactly its A and AAAA records", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server, { targets: [["10.0.0.1"], ["fd00::1"]] });
  const all = hosts(10);
  await h.sink.reconcile(all, never);
  assert.equal(endpoints(server).length, 20);
  const versions = new Map(endpoints(server).map((o) => [metaOf(o).name, metaOf(o).resourceVersion]));
  const mark = server.audit.length;

  const outcome = await h.sink.reconcile(all.filter((host) => host !== "host4.example.com"), never);
  assert.deepEqual(summary(outcome), { kind: "written", hosts: 9, added: 0, removed: 1 });
  assert.deepEqual(
    outcome.kind === "written" ? outcome.names : undefined,
    { added: [], removed: ["host4.example.com"] },
    "the removed hostname is named, for the controller's INFO line",
  );
  const gone = [dnsEndpointName("host4.example.com", 4), dnsEndpointName("host4.example.com", 6)];
  assert.deepEqual(
    writes(server.audit, mark).map((entry) => [entry.method, entry.path.split("/").pop()]).sort(),
    gone.map((name) => ["DELETE", name]).sort(),
  );
  assert.deepEqual(actions(outcome).deleted.sort(), [...gone].sort());
  assert.deepEqual(
    noticesAt(outcome, "debug").map((notice) => notice.properties?.host),
    ["host4.example.com", "host4.example.com"],
    "each delete names the hostname the record published",
  );
  const left = endpoints(server);
  assert.equal(left.length, 18);
  for (const object of left) assert.equal(metaOf(object).resourceVersion, versions.get(metaOf(object).name));
});

/** A client that runs `before` ahead of the named call, to stage a race with the real server. */
function racing(
  client: OwnedObjectClient,
  before: { delete?: (name: string) => void; patch?: (name: string) => void },
): OwnedObjectClient {
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
    apply: (type, manifest, options) => client.apply(type, manifest, options),
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
  const sink = h.sinkWith(
    racing(h.client, { delete: (name) => server.remove(API, "DNSEndpoint", NAMESPACE, name) }),
  );
  const mark = server.audit.length;
  const outcome = await sink.reconcile(["a.example.com"], never);
  assert.notEqual(outcome.kind, "failed", JSON.stringify(outcome));
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
      const sink = h.sinkWith(racing(h.client, {
        delete: () => {
          const current = byName(server, victim)!;
          const labels = relabel ? { team: "dns" } : { ...(metaOf(current).labels as Json), touched: "yes" };
          server.update({ ...current, metadata: { ...metaOf(current), labels } });
        },
      }));
      const outcome = await sink.reconcile(["a.example.com"], never);
      assert.notEqual(outcome.kind, "failed", JSON.stringify(outcome));
      assert.equal(byName(server, victim) !== undefined, survives);
      const deletes = server.audit.filter((e) => e.method === "DELETE").map((e) => e.status);
      assert.deepEqual(deletes, relabel ? [409] : [409, 200]);
      assert.deepEqual(
        noticesAt(outcome, "info").filter((notice) => notice.message.includes("left alone"))
          .map((notice) => [notice.message, notice.properties]),
        relabel
          ? [[
            "external-dns: a record about to be pruned stopped being ouroboros'; left alone",
            { kind: "DNSEndpoint", name: victim },
          ]]
          : [],
      );
    });
  }
});

Deno.test("an update that loses a race (409) re-reads and retries once; twice is a retryable failure", async (t) => {
  await t.step("someone else wrote the object first", async () => {
    await using server = await startFakeApiServer();
    using h = harness(server);
    await h.sink.reconcile(["a.example.com"], never);
    const name = dnsEndpointName("a.example.com", 4);
    const sink = h.sinkWith(racing(h.client, {
      patch: () => {
        const current = byName(server, name)!;
        server.update({ ...current, metadata: { ...metaOf(current), annotations: { note: "hi" } } });
      },
    }));
    h.setTargets(["10.1.1.1"]);
    const outcome = await sink.reconcile(["a.example.com"], never);
    assert.equal(outcome.kind, "written");
    assert.deepEqual(server.audit.filter((e) => e.method === "PATCH").map((e) => e.status), [409, 200]);
    const stored = byName(server, name);
    assert.deepEqual((specOf(stored) as { endpoints: { targets: string[] }[] }).endpoints[0]!.targets, [
      "10.1.1.1",
    ]);
    assert.deepEqual(metaOf(stored).annotations, { "ouroboros.lexfrei.tech/source": "unknown" });
  });
  await t.step("conflicts twice: the pass fails, with its notices, so the controller backs off", async () => {
    await using server = await startFakeApiServer();
    using h = harness(server);
    await h.sink.reconcile(["a.example.com"], never);
    server.faults.inject("patch", { type: "status", code: 409, reason: "Conflict" }, { count: 2 });
    h.setTargets(["10.1.1.1"]);
    const outcome = await h.sink.reconcile(["a.example.com"], never);
    assert.ok(outcome.kind === "failed", JSON.stringify(outcome));
    assert.equal(
      outcome.message.split(": 1 write(s)")[0],
      h.sink.description,
      "the message starts with the sink's description",
    );
    assert.match(outcome.message, /: 1 write\(s\) failed and will be retried; first: /);
    assert.ok(outcome.cause instanceof Error, "the first failure is the cause");
    assert.deepEqual(
      noticesAt(outcome, "info").map((notice) => notice.message),
      ["external-dns: the proxy's addresses changed; re-targeting the records"],
      "what the pass wanted said is not lost with the failure",
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

  h.setTargets(["10.2.2.2"]);
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
  using h = harness(server, { targets: [["10.0.0.1"], []] });
  await h.sink.reconcile(hosts(3), never);
  h.setTargets(["10.0.0.2"], ["fd00::2"]);
  const outcome = await h.sink.reconcile(hosts(3), never);
  assert.equal(actions(outcome).updated.length, 3);
  assert.equal(actions(outcome).created.length, 3, "the AAAA records are new");
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
  assert.deepEqual(summary(outcome), { kind: "written", hosts: 4, added: 4, removed: 0 });
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
  const outcome = await h.sink.reconcile(["a.example.com", "b.example.com"], never, {
    sources: new Map([["a.example.com", ["ingress", "httproute"]], ["b.example.com", ["httproute"]]]),
  });
  assert.equal(actions(outcome).updated.length, 2);
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

Deno.test("one failing create does not stop the others; the pass fails and the next one converges", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  server.faults.inject("create", { type: "status", code: 500, reason: "InternalError" });
  const outcome = await h.sink.reconcile(hosts(3), never);
  assert.ok(outcome.kind === "failed", JSON.stringify(outcome));
  assert.match(outcome.message, /1 write\(s\) failed/);
  assert.equal(actions(outcome).created.length, 2, "the other creates are said");
  assert.equal(endpoints(server).length, 2);
  assert.deepEqual(summary(await h.sink.reconcile(hosts(3), never)), {
    kind: "written",
    hosts: 3,
    added: 1,
    removed: 0,
  });
});

Deno.test("a failing listing is a failed pass with the server's message, not a rejection", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  server.faults.inject("list", { type: "status", code: 503, reason: "ServiceUnavailable" });
  const outcome = await h.sink.reconcile(hosts(1), never);
  assert.ok(outcome.kind === "failed", JSON.stringify(outcome));
  assert.match(outcome.message, /503/);
  assert.deepEqual(writes(server.audit), []);
  assert.equal((await h.sink.reconcile(hosts(1), never)).kind, "written");
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
  const outcome = await h.sink.reconcile(hosts(2), never);
  assert.ok(outcome.kind === "refused", JSON.stringify(outcome));
  assert.equal(outcome.problem, "invalid-object");
  assert.match(
    outcome.message,
    /^host0\.example\.com is not published: the API server refused .* as invalid: .*spec\.endpoints: bad$/,
  );
  assert.equal(outcome.scope, "some-hosts");
  assert.deepEqual(actions(outcome).created, [dnsEndpointName("host1.example.com", 4)]);
  assert.deepEqual(h.events.notices, [], "no object to put an Event on");
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
  const outcome = await h.sink.reconcile(["ok.example.com", "broken.example.com"], never);
  assert.ok(outcome.kind === "refused" && outcome.problem === "unreadable-object", JSON.stringify(outcome));
  assert.match(outcome.message, /^broken\.example\.com is not published: .* cannot be read as a DNSEndpoint/);
  assert.deepEqual(
    h.events.notices.map((notice) => [notice.reason, notice.object.name, notice.object.uid]),
    [["RecordUnreadable", broken, ""]],
  );
  assert.equal(JSON.stringify(byName(server, broken)), before);
  await h.sink.reconcile(["ok.example.com"], never);
  assert.equal(JSON.stringify(byName(server, broken)), before, "not pruned either");
});

Deno.test("a record created by a concurrent replica between our read and our create is adopted", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  const name = dnsEndpointName("a.example.com", 4);
  let staged = false;
  const sink: ExternalDnsSink = h.sinkWith({
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
    apply: (type, manifest, options) => h.client.apply(type, manifest, options),
    delete: (type, ref, options) => h.client.delete(type, ref, options),
  });
  const outcome = await sink.reconcile(["a.example.com"], never);
  assert.equal(outcome.kind, "written");
  assert.deepEqual(actions(outcome), { created: [], updated: [name], deleted: [] });
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
