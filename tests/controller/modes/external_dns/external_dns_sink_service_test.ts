/**
 * `ExternalDnsSink`, output=service, end to end against the fake API server, which validates
 * Service names as DNS-1035 labels like the real one.
 */

import assert from "node:assert/strict";
import { serviceName } from "../../../../lib/controller/modes/external_dns/record_names.ts";
import { type FakeApiServer, startFakeApiServer } from "../../../support/fake_apiserver/mod.ts";
import {
  DNS1035_LABEL,
  harness,
  NAMESPACE,
  noticesAt,
  ownedLabels,
  PREFIX,
  SELECTOR,
  settings,
  summary,
  writes,
} from "./support.ts";

const never = new AbortController().signal;
type Json = Record<string, unknown>;

function services(server: FakeApiServer): Json[] {
  return server.list("v1", "Service", NAMESPACE);
}

function service(server: FakeApiServer, host: string): Json | undefined {
  return server.get("v1", "Service", NAMESPACE, serviceName(host));
}

function meta(object: Json | undefined): Json {
  return (object?.metadata ?? {}) as Json;
}

const SERVICE_OUTPUT = settings({ output: "service" });

Deno.test("service output: one headless annotated Service per hostname; a second pass writes nothing", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server, { settings: SERVICE_OUTPUT, targets: [["10.96.0.10"], ["fd00::10"]] });
  assert.deepEqual(summary(await h.sink.reconcile(["a.example.com", "b.example.com"], never)), {
    kind: "written",
    hosts: 2,
    added: 2,
    removed: 0,
  });
  const stored = service(server, "a.example.com");
  assert.deepEqual(stored?.spec, { type: "ClusterIP", clusterIP: "None" });
  assert.deepEqual(meta(stored).labels, ownedLabels());
  assert.deepEqual(meta(stored).annotations, {
    "ouroboros.lexfrei.tech/source": "unknown",
    [`${PREFIX}hostname`]: "a.example.com",
    [`${PREFIX}target`]: "10.96.0.10,fd00::10",
    [`${PREFIX}ttl`]: "60",
  });
  const mark = server.audit.length;
  assert.deepEqual(await h.sink.reconcile(["a.example.com", "b.example.com"], never), {
    kind: "unchanged",
    hosts: 2,
  });
  assert.deepEqual(
    server.audit.slice(mark).map((entry) => [entry.method, entry.path, entry.query.labelSelector]),
    [
      ["GET", `/api/v1/namespaces/${NAMESPACE}/services`, SELECTOR],
    ],
  );
});

Deno.test("service output: hostnames over 53 characters and hostnames the original folded together all work", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server, { settings: SERVICE_OUTPUT });
  const long = `${"x".repeat(63)}.${"y".repeat(63)}.${"z".repeat(63)}.${"w".repeat(61)}`;
  const hosts = [
    long,
    "a-very-long-hostname-that-breaks-the-original.example.com",
    "a.b.com",
    "a-b.com",
    "a_b.com",
  ];
  const outcome = await h.sink.reconcile(hosts, never);
  assert.equal(
    outcome.kind,
    "written",
    `the fake refuses Service names that are not DNS-1035 labels: ${JSON.stringify(outcome)}`,
  );
  const stored = services(server);
  assert.equal(stored.length, 5);
  for (const object of stored) {
    const name = String(meta(object).name);
    assert.ok(name.length <= 63 && DNS1035_LABEL.test(name), name);
  }
  assert.deepEqual(
    stored.map((object) => (meta(object).annotations as Json)[`${PREFIX}hostname`]).sort(),
    [...hosts].sort(),
  );
});

Deno.test("service output: updates keep server-assigned spec fields and change only what ouroboros owns", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server, { settings: SERVICE_OUTPUT, targets: [["10.0.0.1"], []] });
  await h.sink.reconcile(["a.example.com"], never);
  // What a real API server fills in for a headless Service.
  const created = service(server, "a.example.com")!;
  const assigned = {
    type: "ClusterIP",
    clusterIP: "None",
    clusterIPs: ["None"],
    ipFamilies: ["IPv4"],
    ipFamilyPolicy: "SingleStack",
    internalTrafficPolicy: "Cluster",
    sessionAffinity: "None",
  };
  server.update({ ...created, spec: assigned });

  let mark = server.audit.length;
  assert.equal((await h.sink.reconcile(["a.example.com"], never)).kind, "unchanged");
  assert.deepEqual(writes(server.audit, mark), [], "server-assigned fields are not a difference");

  h.setTargets(["10.0.0.2"]);
  mark = server.audit.length;
  assert.equal((await h.sink.reconcile(["a.example.com"], never)).kind, "written");
  assert.deepEqual(writes(server.audit, mark).map((entry) => entry.method), ["PATCH"]);
  const updated = service(server, "a.example.com")!;
  assert.deepEqual(updated.spec, assigned);
  assert.equal((meta(updated).annotations as Json)[`${PREFIX}target`], "10.0.0.2");
});

Deno.test("service output: a selector or ports someone added to an owned Service are removed", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server, { settings: SERVICE_OUTPUT });
  await h.sink.reconcile(["a.example.com"], never);
  const created = service(server, "a.example.com")!;
  server.update({
    ...created,
    spec: {
      type: "ClusterIP",
      clusterIP: "None",
      selector: { app: "web" },
      ports: [{ port: 80, protocol: "TCP" }],
    },
  });
  assert.equal((await h.sink.reconcile(["a.example.com"], never)).kind, "written");
  assert.deepEqual(service(server, "a.example.com")!.spec, { type: "ClusterIP", clusterIP: "None" });
});

Deno.test("service output: a foreign Service holding our name is refused and untouched; others proceed", async () => {
  await using server = await startFakeApiServer();
  const foreign = server.create({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: serviceName("taken.example.com"), namespace: NAMESPACE, labels: { app: "web" } },
    spec: { type: "ClusterIP", clusterIP: "10.0.0.99", ports: [{ port: 80 }] },
  });
  using h = harness(server, { settings: SERVICE_OUTPUT });
  const outcome = await h.sink.reconcile(["taken.example.com", "free.example.com"], never);
  assert.ok(outcome.kind === "refused", JSON.stringify(outcome));
  assert.equal(outcome.problem, "foreign-object");
  assert.equal(outcome.scope, "some-hosts", "an ERROR from the controller, once");
  assert.match(
    outcome.message,
    /^taken\.example\.com is not published: Service ouroboros\/ouroboros-taken-example-com-/,
  );
  assert.deepEqual(noticesAt(outcome, "error"), [], "not repeated as a notice");
  assert.equal(JSON.stringify(service(server, "taken.example.com")), JSON.stringify(foreign));
  assert.ok(service(server, "free.example.com"));
  assert.deepEqual(
    h.events.notices.map((notice) => [notice.object, notice.reason]),
    [[
      {
        apiVersion: "v1",
        kind: "Service",
        namespace: NAMESPACE,
        name: serviceName("taken.example.com"),
        uid: (foreign.metadata as { uid: string }).uid,
      },
      "RecordNameTaken",
    ]],
  );
});

Deno.test("service output: the guard keeps every Service when no hostname is wanted", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server, { settings: SERVICE_OUTPUT });
  await h.sink.reconcile(["a.example.com", "b.example.com"], never);
  const mark = server.audit.length;
  const outcome = await h.sink.reconcile([], never);
  assert.ok(outcome.kind === "refused", JSON.stringify(outcome));
  assert.equal(outcome.problem, "mass-prune-guard");
  assert.equal(outcome.scope, "guard");
  assert.equal(services(server).length, 2);
  assert.deepEqual(writes(server.audit, mark), []);
  assert.ok(
    outcome.message.includes(`kubectl --namespace ${NAMESPACE} delete services --selector='${SELECTOR}'`),
    outcome.message,
  );
});

Deno.test("service output: removing a hostname deletes its Service only", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server, { settings: SERVICE_OUTPUT });
  await h.sink.reconcile(["a.example.com", "b.example.com"], never);
  assert.deepEqual(summary(await h.sink.reconcile(["a.example.com"], never)), {
    kind: "written",
    hosts: 1,
    added: 0,
    removed: 1,
  });
  assert.deepEqual(services(server).map((object) => meta(object).name), [serviceName("a.example.com")]);
});
