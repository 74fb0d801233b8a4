/**
 * `ExternalDnsSink`'s diffs, both outputs, against the fake API server: every write carries a
 * readable diff of the records' owned fields, and a dry run (`dryRun`) lists and looks up as a
 * run does, refuses what a run refuses, and answers `previewed` with the diff of the writes it
 * would make, without one write request (no POST, PUT, PATCH or DELETE) and without an Event.
 */

import assert from "node:assert/strict";
import { dnsEndpointName, serviceName } from "../../../../lib/controller/modes/external_dns/record_names.ts";
import { type FakeApiServer, startFakeApiServer } from "../../../support/fake_apiserver/mod.ts";
import { harness, NAMESPACE, settings, summary, writes } from "./support.ts";

const API = "externaldns.k8s.io/v1alpha1";
const never = new AbortController().signal;

/** The `+`/`-` lines of a diff, without headers. */
function changes(diff: string): string[] {
  return diff.split("\n").filter((line) => /^[+-]/.test(line) && !/^(\+\+\+|---) /.test(line));
}

/** The object names a diff has sections for. */
function sections(diff: string): string[] {
  return [...diff.matchAll(/^\+\+\+ b\/(.+)$/gm)].map(([, name]) => name!);
}

function seedForeign(server: FakeApiServer, name: string): void {
  server.create({
    apiVersion: API,
    kind: "DNSEndpoint",
    metadata: { name, namespace: NAMESPACE, labels: { team: "dns" } },
    spec: { endpoints: [{ dnsName: "taken.example.com", recordType: "A", targets: ["192.0.2.1"] }] },
  });
}

Deno.test("external-dns (crd): a write's diff shows each record created, updated and deleted, field by field", async () => {
  await using server = await startFakeApiServer();
  using h = harness(server);
  const created = await h.sink.reconcile(["a.example.com"], never);
  assert.ok(created.kind === "written");
  const name = dnsEndpointName("a.example.com", 4);
  assert.deepEqual(sections(created.diff ?? ""), [`${NAMESPACE}/DNSEndpoint/${name}`]);
  assert.match(created.diff ?? "", /^@@ -0,0 \+1,\d+ @@$/m);
  for (const line of ["+    - dnsName: a.example.com", "+      recordType: A", "+        - 10.96.0.10"]) {
    assert.ok(changes(created.diff ?? "").includes(line), `${line} in\n${created.diff}`);
  }

  h.setTargets(["10.96.0.11"]);
  const updated = await h.sink.reconcile(["a.example.com"], never);
  assert.ok(updated.kind === "written");
  assert.deepEqual(changes(updated.diff ?? ""), ["-        - 10.96.0.10", "+        - 10.96.0.11"]);

  const deleted = await h.sink.reconcile(["b.example.com"], never);
  assert.ok(deleted.kind === "written");
  assert.deepEqual(sections(deleted.diff ?? ""), [
    `${NAMESPACE}/DNSEndpoint/${dnsEndpointName("b.example.com", 4)}`,
    `${NAMESPACE}/DNSEndpoint/${name}`,
  ]);
  assert.ok(changes(deleted.diff ?? "").includes("-    - dnsName: a.example.com"));
});

Deno.test("external-dns (crd) dry run: previewed with the diff of the whole plan; not one write request, no Event", async () => {
  await using server = await startFakeApiServer();
  using real = harness(server);
  await real.sink.reconcile(["keep.example.com", "gone.example.com"], never);
  const stored = JSON.stringify(server.list(API, "DNSEndpoint", NAMESPACE));
  const mark = server.audit.length;
  seedForeign(server, dnsEndpointName("taken.example.com", 4));

  using dry = harness(server, { dryRun: true, targets: [["10.96.0.20"], []] });
  const preview = await dry.sink.reconcile(["keep.example.com", "new.example.com"], never);
  assert.ok(preview.kind === "previewed", preview.kind);
  assert.deepEqual(summary(preview), { kind: "previewed", hosts: 2, added: 1, removed: 1 });
  assert.deepEqual(sections(preview.diff), [
    `${NAMESPACE}/DNSEndpoint/${dnsEndpointName("new.example.com", 4)}`,
    `${NAMESPACE}/DNSEndpoint/${dnsEndpointName("keep.example.com", 4)}`,
    `${NAMESPACE}/DNSEndpoint/${dnsEndpointName("gone.example.com", 4)}`,
  ], "creates, then updates, then deletes");
  assert.ok(changes(preview.diff).includes("+        - 10.96.0.20"));
  assert.ok(changes(preview.diff).includes("-    - dnsName: gone.example.com"));
  const again = await dry.sink.reconcile(["keep.example.com", "new.example.com"], never);
  assert.ok(again.kind === "previewed");
  assert.deepEqual(
    [summary(again), again.diff],
    [summary(preview), preview.diff],
    "nothing changed: the same preview",
  );

  const refused = await dry.sink.reconcile(["keep.example.com", "taken.example.com"], never);
  assert.ok(refused.kind === "refused" && refused.problem === "foreign-object", "a run's refusal, previewed");
  assert.deepEqual(dry.events.notices, [], "no Event from a dry run");

  assert.deepEqual(writes(server.audit, mark), [], "not one write request");
  const taken = dnsEndpointName("taken.example.com", 4);
  const ours = server.list(API, "DNSEndpoint", NAMESPACE).filter((object) =>
    (object.metadata as Record<string, unknown>).name !== taken
  );
  assert.equal(JSON.stringify(ours), stored, "the records are as the real run left them");
});

Deno.test("external-dns dry run: records already in place are unchanged; the mass-prune guard holds as in a run", async () => {
  await using server = await startFakeApiServer();
  using real = harness(server);
  await real.sink.reconcile(["a.example.com"], never);
  using dry = harness(server, { dryRun: true });
  assert.deepEqual(summary(await dry.sink.reconcile(["a.example.com"], never)), {
    kind: "unchanged",
    hosts: 1,
  });
  const guarded = await dry.sink.reconcile([], never);
  assert.ok(guarded.kind === "refused" && guarded.scope === "guard", guarded.kind);
  assert.deepEqual(writes(server.audit).map((entry) => entry.method), ["POST"], "the real sink's one create");
});

Deno.test("external-dns (service) dry run: the Services a run would create, as a diff; nothing written", async () => {
  await using server = await startFakeApiServer();
  using dry = harness(server, { dryRun: true, settings: settings({ output: "service" }) });
  const preview = await dry.sink.reconcile(["a.example.com", "b.example.com"], never);
  assert.ok(preview.kind === "previewed", preview.kind);
  assert.deepEqual(sections(preview.diff), [
    `${NAMESPACE}/Service/${serviceName("a.example.com")}`,
    `${NAMESPACE}/Service/${serviceName("b.example.com")}`,
  ]);
  assert.ok(changes(preview.diff).includes("+  external-dns.alpha.kubernetes.io/hostname: a.example.com"));
  assert.ok(changes(preview.diff).includes("+  external-dns.alpha.kubernetes.io/target: 10.96.0.10"));
  assert.deepEqual(writes(server.audit), []);
  assert.deepEqual(server.list("v1", "Service", NAMESPACE), []);

  using real = harness(server, { settings: settings({ output: "service" }) });
  const written = await real.sink.reconcile(["a.example.com", "b.example.com"], never);
  assert.ok(written.kind === "written");
  assert.equal(written.diff, preview.diff, "the preview is the diff of the real write");
});
