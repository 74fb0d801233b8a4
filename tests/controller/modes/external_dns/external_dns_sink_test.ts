/**
 * `ExternalDnsSink` around the records, in process against the fake API server: targets from the
 * proxy Service cache (headless, missing, re-addressed), Warning Events for hostnames an object
 * we do not own keeps from being published, the refusal scope the controller words its logs by,
 * and skipped hostnames said once while they last.
 */

import assert from "node:assert/strict";
import { dnsEndpointName } from "../../../../lib/controller/modes/external_dns/record_names.ts";
import { type FakeApiServer, startFakeApiServer } from "../../../support/fake_apiserver/mod.ts";
import { harness, NAMESPACE, noticesAt, proxyService, summary } from "./support.ts";

const API = "externaldns.k8s.io/v1alpha1";
const never = new AbortController().signal;

interface Endpoint {
  readonly dnsName: string;
  readonly recordType: string;
  readonly targets: string[];
}

/** `"<dnsName> <recordType>" → targets` of every DNSEndpoint in the records namespace. */
function published(server: FakeApiServer): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const object of server.list(API, "DNSEndpoint", NAMESPACE)) {
    for (const endpoint of (object.spec as { endpoints: Endpoint[] }).endpoints) {
      out[`${endpoint.dnsName} ${endpoint.recordType}`] = endpoint.targets;
    }
  }
  return out;
}

Deno.test("external-dns sink: a headless or missing proxy Service writes and prunes nothing, refused once per problem", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server, { targets: [["10.96.0.7"], []] });
  const first = await h.sink.reconcile(["a.example.com", "b.example.com"], never);
  assert.deepEqual(published(server), {
    "a.example.com A": ["10.96.0.7"],
    "b.example.com A": ["10.96.0.7"],
  });
  assert.deepEqual(noticesAt(first, "info").map((notice) => notice.message), [
    "external-dns: records point at the proxy's addresses",
  ]);

  h.proxy.apply(proxyService(["None"], "2"));
  const mark = server.audit.length;
  const headless = await h.sink.reconcile(["a.example.com"], never);
  const again = await h.sink.reconcile(["a.example.com"], never);
  assert.ok(headless.kind === "refused", JSON.stringify(headless));
  assert.equal(headless.problem, "headless");
  assert.equal(headless.scope, "nothing-written", "an ERROR from the controller");
  assert.match(headless.message, /is headless \(clusterIP: None\)/);
  assert.equal(headless.notices, undefined, "the refusal says it all: no notice repeats it");
  assert.deepEqual(again, headless, "the same refusal, which the controller logs once");
  assert.deepEqual(server.audit.slice(mark), [], "not even a list: nothing can be decided without targets");
  assert.deepEqual(
    published(server),
    { "a.example.com A": ["10.96.0.7"], "b.example.com A": ["10.96.0.7"] },
    "b.example.com is no longer wanted, but nothing is pruned while the proxy has no address",
  );

  h.proxy.delete(proxyService(["None"], "2"));
  const missing = await h.sink.reconcile(["a.example.com"], never);
  assert.ok(missing.kind === "refused" && missing.problem === "service-not-found");
  assert.match(missing.message, /ouroboros\/ouroboros-proxy does not exist/);
  assert.notDeepEqual(summary(missing), summary(headless), "a different problem is news");

  h.setTargets(["10.96.0.7"]);
  const back = await h.sink.reconcile(["a.example.com"], never);
  assert.deepEqual(
    noticesAt(back, "info").map((notice) => notice.message),
    ["external-dns: the proxy's addresses changed; re-targeting the records"],
    "the way out is one INFO",
  );
});

Deno.test("external-dns sink: a new proxy address re-targets every record (the original resolved once)", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server, { targets: [["10.96.0.7"], []] });
  assert.equal((await h.sink.reconcile(["a.example.com", "b.example.com"], never)).kind, "written");
  h.proxy.apply(proxyService(["10.96.0.8", "fd00::8"], "2"));
  const outcome = await h.sink.reconcile(["a.example.com", "b.example.com"], never);
  assert.equal(outcome.kind, "written");
  assert.deepEqual(published(server), {
    "a.example.com A": ["10.96.0.8"],
    "a.example.com AAAA": ["fd00::8"],
    "b.example.com A": ["10.96.0.8"],
    "b.example.com AAAA": ["fd00::8"],
  });
  assert.deepEqual(noticesAt(outcome, "info").map((notice) => [notice.message, notice.properties]), [[
    "external-dns: the proxy's addresses changed; re-targeting the records",
    {
      targets: "10.96.0.8, fd00::8 (Service ouroboros/ouroboros-proxy)",
      ipv4: ["10.96.0.8"],
      ipv6: ["fd00::8"],
    },
  ]]);
  assert.deepEqual(noticesAt(await h.sink.reconcile(["a.example.com"], never), "info"), [], "said once");
});

Deno.test("external-dns sink: a name held by a foreign object gets a Warning Event on it; the others are published", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server, { targets: [["10.96.0.7"], []] });
  const taken = dnsEndpointName("taken.example.com", 4);
  const foreign = server.create({
    apiVersion: API,
    kind: "DNSEndpoint",
    metadata: { namespace: NAMESPACE, name: taken, labels: { team: "dns" } },
    spec: { endpoints: [{ dnsName: "taken.example.com", recordType: "A", targets: ["192.0.2.1"] }] },
  });
  const before = JSON.stringify(server.get(API, "DNSEndpoint", NAMESPACE, taken));
  const outcome = await h.sink.reconcile(["free.example.com", "taken.example.com"], never);
  assert.ok(outcome.kind === "refused");
  assert.equal(outcome.problem, "foreign-object");
  assert.equal(outcome.scope, "some-hosts");
  assert.deepEqual(published(server), {
    "free.example.com A": ["10.96.0.7"],
    "taken.example.com A": ["192.0.2.1"],
  });
  assert.equal(JSON.stringify(server.get(API, "DNSEndpoint", NAMESPACE, taken)), before, "untouched");

  assert.equal(h.events.notices.length, 1);
  const [notice] = h.events.notices;
  assert.deepEqual(notice?.object, {
    apiVersion: API,
    kind: "DNSEndpoint",
    namespace: NAMESPACE,
    name: taken,
    uid: (foreign.metadata as { uid: string }).uid,
  });
  assert.equal(notice?.type, "Warning");
  assert.equal(notice?.reason, "RecordNameTaken");
  assert.match(notice?.message ?? "", /^taken\.example\.com is not published: DNSEndpoint ouroboros\//);
  assert.equal(notice?.message, outcome.message, "the Event says what the refusal says");

  const only = await h.sink.reconcile(["taken.example.com"], never);
  assert.ok(only.kind === "refused" && only.scope === "nothing-written", "nothing else was wanted");
  assert.equal(h.events.notices.length, 2, "every pass asks for the Event (the recorder counts repeats)");
});

Deno.test("external-dns sink: more than three refused hostnames are summed up in one refusal", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  const hosts = ["h1.example.com", "h2.example.com", "h3.example.com", "h4.example.com", "h5.example.com"];
  for (const host of hosts) {
    server.create({
      apiVersion: API,
      kind: "DNSEndpoint",
      metadata: { namespace: NAMESPACE, name: dnsEndpointName(host, 4) },
      spec: { endpoints: [] },
    });
  }
  const outcome = await h.sink.reconcile(hosts, never);
  assert.ok(outcome.kind === "refused", JSON.stringify(outcome));
  assert.equal(outcome.scope, "nothing-written");
  const named = [...outcome.message.matchAll(/(\S+) is not published/g)].map((match) => match[1]);
  assert.deepEqual(named, hosts.slice(0, 3), "the first three are spelled out");
  assert.ok(outcome.message.endsWith("; and 2 more"), outcome.message);
});

Deno.test("external-dns sink: a hostname that cannot be built is a WARN once, then DEBUG while it lasts", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  const hosts = ["a.*.example.com", "ok.example.com"];
  const said = "external-dns: a.*.example.com skipped, its existing records are kept: " +
    "a '*' or '?' other than one leading '*.' label cannot be published as a record";
  const first = await h.sink.reconcile(hosts, never);
  assert.equal(first.kind, "written", "the other hostname is written");
  assert.deepEqual(noticesAt(first, "warn"), [{
    level: "warn",
    message: said,
    properties: { host: "a.*.example.com", problem: "invalid-hostname" },
  }]);
  const second = await h.sink.reconcile(hosts, never);
  assert.deepEqual(second.notices, [{
    level: "debug",
    message: said,
    properties: { host: "a.*.example.com", problem: "invalid-hostname", repeated: true },
  }]);
  await h.sink.reconcile(["ok.example.com"], never);
  assert.deepEqual(
    noticesAt(await h.sink.reconcile(hosts, never), "warn").length,
    1,
    "news again after it went",
  );
});

Deno.test("external-dns sink: a failed pass carries its refusals as ERROR notices, said once", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  server.create({
    apiVersion: API,
    kind: "DNSEndpoint",
    metadata: { namespace: NAMESPACE, name: dnsEndpointName("taken.example.com", 4) },
    spec: { endpoints: [] },
  });
  server.faults.inject("create", { type: "status", code: 500, reason: "InternalError" }, { count: 2 });
  const hosts = ["free.example.com", "taken.example.com"];
  const first = await h.sink.reconcile(hosts, never);
  assert.ok(first.kind === "failed", JSON.stringify(first));
  const [error] = noticesAt(first, "error");
  assert.match(error?.message ?? "", /^taken\.example\.com is not published/);
  assert.equal(error?.properties?.problem, "foreign-object");
  assert.equal(h.events.notices.length, 1, "the Event is recorded even though the pass failed");
  const second = await h.sink.reconcile(hosts, never);
  assert.equal(second.kind, "failed");
  assert.deepEqual(noticesAt(second, "error"), [], "said once while it lasts");
  assert.equal(noticesAt(second, "debug").filter((notice) => notice.properties?.repeated === true).length, 1);
});
