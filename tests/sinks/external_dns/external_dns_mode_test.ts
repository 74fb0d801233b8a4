/**
 * external-dns mode's controller side, in process against the fake API server: targets from the
 * proxy Service cache (headless, missing, re-addressed), Events for hostnames an object we do
 * not own keeps from being published, and the labels the loop words its logs by.
 */

import { LogRecorder } from "../../support/log_recorder.ts";
import assert from "node:assert/strict";
import { type EventSink, ExternalDnsModeSink } from "../../../lib/sinks/external_dns/external_dns_mode.ts";
import { KubeClient } from "../../../lib/kube/client.ts";
import type { EventNotice, RecordResult } from "../../../lib/kube/event_recorder.ts";
import { Store } from "../../../lib/reflector/store.ts";
import type { Service } from "../../../lib/resources/service.ts";
import { dnsEndpointName } from "../../../lib/sinks/external_dns/record_names.ts";
import type { RecordSettings } from "../../../lib/sinks/external_dns/records.ts";
import { meta } from "../../hostnames/factories.ts";
import { type FakeApiServer, startFakeApiServer } from "../../support/fake_apiserver/mod.ts";

const API = "externaldns.k8s.io/v1alpha1";
const NAMESPACE = "ouroboros";
const never = new AbortController().signal;

const SETTINGS: RecordSettings = {
  output: "crd",
  namespace: NAMESPACE,
  instance: "edge",
  recordTtl: 60,
  annotationPrefix: "external-dns.alpha.kubernetes.io/",
  annotations: {},
  labels: {},
};

/** The proxy Service as the cache would hold it. */
function proxyService(clusterIPs: readonly string[], resourceVersion = "1"): Service {
  return {
    metadata: meta(`${NAMESPACE}/ouroboros-proxy`, resourceVersion),
    spec: {
      type: "ClusterIP",
      ...(clusterIPs[0] === undefined ? {} : { clusterIP: clusterIPs[0] }),
      clusterIPs,
      ports: [],
      selector: {},
    },
  };
}

class Lines extends LogRecorder {
  at(level: string): string[] {
    return this.entries.filter((line) => line.level === level).map((line) => line.message);
  }
}

class Events implements EventSink {
  readonly notices: EventNotice[] = [];
  record(notice: EventNotice): Promise<RecordResult> {
    this.notices.push(notice);
    return Promise.resolve({ kind: "created", name: `e${this.notices.length}` });
  }
}

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

function setup(server: FakeApiServer) {
  const client = new KubeClient({ server: server.url });
  const store = new Store<Service>();
  const log = new Lines();
  const events = new Events();
  const sink = new ExternalDnsModeSink({
    client,
    settings: SETTINGS,
    targets: { kind: "service", ref: { namespace: NAMESPACE, name: "ouroboros-proxy" }, store },
    recorder: events,
    log,
  });
  return { client, store, log, events, sink };
}

Deno.test("external-dns mode: a headless or missing proxy Service writes and prunes nothing, said once at ERROR", async () => {
  await using server = await startFakeApiServer();
  const { client, store, log, sink } = setup(server);
  try {
    store.replace([proxyService(["10.96.0.7"])]);
    await sink.reconcile(["a.example.com", "b.example.com"], never);
    assert.deepEqual(published(server), {
      "a.example.com A": ["10.96.0.7"],
      "b.example.com A": ["10.96.0.7"],
    });
    assert.deepEqual(log.at("info"), ["external-dns: records point at the proxy's addresses"]);

    store.apply(proxyService(["None"], "2"));
    const mark = server.audit.length;
    const headless = await sink.reconcile(["a.example.com"], never);
    const again = await sink.reconcile(["a.example.com"], never);
    assert.equal(headless.kind, "refused");
    assert.deepEqual(again, headless);
    assert.ok(headless.kind === "refused" && headless.problem === "headless" && headless.logged === true);
    assert.match(headless.message, /is headless \(clusterIP: None\)/);
    assert.deepEqual(server.audit.slice(mark), [], "not even a list: nothing can be decided without targets");
    assert.equal(log.at("error").length, 1, "said once, not on every pass");
    assert.deepEqual(
      published(server),
      { "a.example.com A": ["10.96.0.7"], "b.example.com A": ["10.96.0.7"] },
      "b.example.com is no longer wanted, but nothing is pruned while the proxy has no address",
    );

    store.delete(proxyService(["None"], "2"));
    const missing = await sink.reconcile(["a.example.com"], never);
    assert.ok(missing.kind === "refused" && missing.problem === "service-not-found");
    assert.match(missing.message, /ouroboros\/ouroboros-proxy does not exist/);
    assert.equal(log.at("error").length, 2, "a different problem is news");
  } finally {
    client.close();
  }
});

Deno.test("external-dns mode: a new proxy address re-targets every record (the original resolved once)", async () => {
  await using server = await startFakeApiServer();
  const { client, store, log, sink } = setup(server);
  try {
    store.replace([proxyService(["10.96.0.7"])]);
    assert.equal((await sink.reconcile(["a.example.com", "b.example.com"], never)).kind, "written");
    store.apply(proxyService(["10.96.0.8", "fd00::8"], "2"));
    const outcome = await sink.reconcile(["a.example.com", "b.example.com"], never);
    assert.equal(outcome.kind, "written");
    assert.deepEqual(published(server), {
      "a.example.com A": ["10.96.0.8"],
      "a.example.com AAAA": ["fd00::8"],
      "b.example.com A": ["10.96.0.8"],
      "b.example.com AAAA": ["fd00::8"],
    });
    assert.equal(
      log.at("info").at(-1),
      "external-dns: the proxy's addresses changed; re-targeting the records",
    );
  } finally {
    client.close();
  }
});

Deno.test("external-dns mode: a name held by a foreign object gets a Warning Event on it; the others are published", async () => {
  await using server = await startFakeApiServer();
  const { client, store, events, sink } = setup(server);
  try {
    store.replace([proxyService(["10.96.0.7"])]);
    const taken = dnsEndpointName("taken.example.com", 4);
    const foreign = server.create({
      apiVersion: API,
      kind: "DNSEndpoint",
      metadata: { namespace: NAMESPACE, name: taken, labels: { team: "dns" } },
      spec: { endpoints: [{ dnsName: "taken.example.com", recordType: "A", targets: ["192.0.2.1"] }] },
    });
    const before = JSON.stringify(server.get(API, "DNSEndpoint", NAMESPACE, taken));
    const outcome = await sink.reconcile(["free.example.com", "taken.example.com"], never);
    assert.ok(outcome.kind === "refused");
    assert.equal(outcome.problem, "foreign-object");
    assert.equal(outcome.scope, "some-hosts");
    assert.equal(outcome.logged, true);
    assert.deepEqual(published(server), {
      "free.example.com A": ["10.96.0.7"],
      "taken.example.com A": ["192.0.2.1"],
    });
    assert.equal(JSON.stringify(server.get(API, "DNSEndpoint", NAMESPACE, taken)), before, "untouched");

    assert.equal(events.notices.length, 1);
    const [notice] = events.notices;
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

    const only = await sink.reconcile(["taken.example.com"], never);
    assert.ok(only.kind === "refused" && only.scope === "nothing-written", "nothing else was wanted");
  } finally {
    client.close();
  }
});

Deno.test("external-dns mode: no hostname while records exist is the guard, labelled so", async () => {
  await using server = await startFakeApiServer();
  const { client, store, sink } = setup(server);
  try {
    store.replace([proxyService(["10.96.0.7"])]);
    await sink.reconcile(["a.example.com"], never);
    const outcome = await sink.reconcile([], never);
    assert.ok(outcome.kind === "refused");
    assert.equal(outcome.problem, "mass-prune-guard");
    assert.equal(outcome.scope, "guard");
    assert.deepEqual(published(server), { "a.example.com A": ["10.96.0.7"] });
  } finally {
    client.close();
  }
});
