/**
 * The real kubectl 1.35 against the fake API server: if kubectl's discovery, get, watch, apply,
 * replace, patch, delete and scale all work and see what the fake holds, the fake speaks the
 * wire format real clients expect.
 */

import assert from "node:assert/strict";
import { parse as parseYaml } from "yaml";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { skipWithout } from "../support/tools.ts";
import { waitFor } from "../support/wait.ts";
import { makePki } from "../support/pki.ts";
import { ignoreWithoutKubectl as ignore, ok, withKubectl } from "./kubectl_run.ts";

function configMap(name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "x", labels }, data };
}

Deno.test({ name: "kubectl get -o yaml prints the object the fake stores", ignore }, async () => {
  await using server = await startFakeApiServer();
  const stored = server.create(configMap("settings", { app: "demo" }, { greeting: "hello" }));
  await withKubectl(server, async (kubectl) => {
    const printed = parseYaml(ok(await kubectl(["get", "configmap", "settings", "-n", "x", "-o", "yaml"])));
    assert.deepEqual(printed, stored);
  });
});

Deno.test({ name: "kubectl get -o json lists the collection, by short name too", ignore }, async () => {
  await using server = await startFakeApiServer();
  server.create(configMap("b"));
  server.create(configMap("a"));
  server.create({ ...configMap("elsewhere"), metadata: { name: "elsewhere", namespace: "y" } });
  server.create({
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { name: "web", namespace: "x" },
    spec: { rules: [{ host: "web.example" }] },
  });
  await withKubectl(server, async (kubectl) => {
    const list = JSON.parse(ok(await kubectl(["get", "cm", "-n", "x", "-o", "json"])));
    assert.equal(list.kind, "List");
    assert.deepEqual(list.items.map((item: { metadata: { name: string } }) => item.metadata.name), [
      "a",
      "b",
    ]);
    const all = JSON.parse(ok(await kubectl(["get", "configmaps", "-A", "-o", "json"])));
    assert.equal(all.items.length, 3);
    const ingress = JSON.parse(ok(await kubectl(["get", "ing", "web", "-n", "x", "-o", "json"])));
    assert.equal(ingress.spec.rules[0].host, "web.example");
  });
});

Deno.test(
  { name: "kubectl get --watch prints a row for an object created while it watches", ignore },
  async () => {
    await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
    server.create(configMap("existing"));
    const listRv = server.resourceVersion();
    await withKubectl(server, async (_kubectl, spawn) => {
      const child = spawn(["get", "configmaps", "-n", "x", "--watch", "--output-watch-events"]);
      const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let output = "";
      const readUntil = async (what: string, found: () => boolean) => {
        const guard = setTimeout(() => child.kill("SIGKILL"), 20_000); // hang guard
        try {
          while (!found()) {
            const { value, done } = await lines.read();
            if (done) throw new Error(`kubectl ended before ${what}; output so far:\n${output}`);
            output += value;
          }
        } finally {
          clearTimeout(guard);
        }
      };
      try {
        await readUntil("listing the existing object", () => /ADDED\s+existing/.test(output));
        await waitFor("kubectl to open its watch", () => server.openWatches() === 1, { timeoutMs: 20_000 });
        server.create(configMap("newcomer"));
        await readUntil("the new row", () => /ADDED\s+newcomer/.test(output));
        server.remove("v1", "ConfigMap", "x", "existing");
        await readUntil("the deletion", () => /DELETED\s+existing/.test(output));
      } finally {
        child.kill("SIGTERM");
        await child.status;
        await lines.cancel();
      }
      const watch = server.audit.find((entry) => entry.watch)!;
      const list = server.audit.find((entry) =>
        entry.path === "/api/v1/namespaces/x/configmaps" && !entry.watch
      )!;
      assert.ok(list.at <= watch.at, "kubectl lists first");
      assert.equal(watch.query.resourceVersion, listRv, "then watches from the list's resourceVersion");
    });
  },
);

Deno.test({
  name: "kubectl apply creates, apply again patches, and replace with a stale resourceVersion is a Conflict",
  ignore,
}, async () => {
  await using server = await startFakeApiServer();
  await withKubectl(server, async (kubectl, _spawn, dir) => {
    const file = `${dir}/cm.json`;
    await Deno.writeTextFile(file, JSON.stringify(configMap("applied", { app: "x" }, { k: "v1" })));
    assert.match(ok(await kubectl(["apply", "--validate=false", "-f", file])), /configmap\/applied created/);
    const created = server.get("v1", "ConfigMap", "x", "applied")!;
    assert.deepEqual(created.data, { k: "v1" });

    await Deno.writeTextFile(file, JSON.stringify(configMap("applied", { app: "x" }, { k: "v2" })));
    assert.match(
      ok(await kubectl(["apply", "--validate=false", "-f", file])),
      /configmap\/applied configured/,
    );
    const applied = server.get("v1", "ConfigMap", "x", "applied")!;
    assert.deepEqual(applied.data, { k: "v2" });

    // Someone else writes; a replace carrying the version we read is now stale.
    const stale = structuredClone(applied);
    server.update({ ...applied, data: { k: "theirs" } });
    await Deno.writeTextFile(file, JSON.stringify({ ...stale, data: { k: "mine" } }));
    const conflict = await kubectl(["replace", "--validate=false", "-f", file]);
    assert.equal(conflict.code, 1);
    assert.match(conflict.stderr, /Error from server \(Conflict\)/);
    assert.match(
      conflict.stderr,
      /the object has been modified; please apply your changes to the latest version/,
    );
    assert.deepEqual(
      server.get("v1", "ConfigMap", "x", "applied")!.data,
      { k: "theirs" },
      "the stale write lost",
    );

    const current = server.get("v1", "ConfigMap", "x", "applied")!;
    await Deno.writeTextFile(file, JSON.stringify({ ...current, data: { k: "mine" } }));
    assert.match(
      ok(await kubectl(["replace", "--validate=false", "-f", file])),
      /configmap\/applied replaced/,
    );
    assert.deepEqual(server.get("v1", "ConfigMap", "x", "applied")!.data, { k: "mine" });
  });
});

const LEASE_YAML = `apiVersion: coordination.k8s.io/v1
kind: Lease
metadata:
  name: ouroboros
  namespace: kube-system
spec:
  holderIdentity: pod-a
  leaseDurationSeconds: 15
  acquireTime: "2026-12-03T13:37:03.123456Z"
  renewTime: "2026-12-03T13:37:05.000001Z"
  leaseTransitions: 0
`;

Deno.test({
  name: "kubectl create of a Lease twice: created, then AlreadyExists; get prints the spec back unchanged",
  ignore,
}, async () => {
  await using server = await startFakeApiServer();
  await withKubectl(server, async (kubectl, _spawn, dir) => {
    const file = `${dir}/lease.yaml`;
    await Deno.writeTextFile(file, LEASE_YAML);
    const create = ["create", "--validate=false", "-f", "lease.yaml"];
    assert.match(ok(await kubectl(create)), /^lease.coordination.k8s.io\/ouroboros created$/m);
    const again = await kubectl(create);
    assert.equal(again.code, 1);
    assert.match(
      again.stderr,
      /Error from server \(AlreadyExists\): error when creating "lease.yaml": leases.coordination.k8s.io "ouroboros" already exists/,
    );
    assert.match(ok(await kubectl(["get", "lease", "-n", "kube-system"])), /^ouroboros\s/m);
    const printed = parseYaml(
      ok(
        await kubectl([
          "get",
          "lease",
          "ouroboros",
          "-n",
          "kube-system",
          "-o",
          "yaml",
          "--show-managed-fields",
        ]),
      ),
    );
    assert.deepEqual(
      printed.spec,
      parseYaml(LEASE_YAML).spec,
      "every field, the MicroTimes to the microsecond",
    );
    assert.deepEqual(printed, server.get("coordination.k8s.io/v1", "Lease", "kube-system", "ouroboros"));
  });
});

Deno.test({
  name:
    "kubectl and a Lease: a replace with a stale resourceVersion is a Conflict, a millisecond time a BadRequest",
  ignore,
}, async () => {
  await using server = await startFakeApiServer();
  const lease = parseYaml(LEASE_YAML);
  const stored = server.create(lease);
  server.update({ ...stored, spec: { ...lease.spec, renewTime: "2026-12-03T13:37:07.000001Z" } });
  await withKubectl(server, async (kubectl, _spawn, dir) => {
    const file = `${dir}/lease.json`;
    await Deno.writeTextFile(
      file,
      JSON.stringify({ ...stored, spec: { ...lease.spec, holderIdentity: "pod-b" } }),
    );
    const stale = await kubectl(["replace", "--validate=false", "-f", file]);
    assert.equal(stale.code, 1);
    assert.match(stale.stderr, /Error from server \(Conflict\)/);
    assert.match(stale.stderr, /Operation cannot be fulfilled on leases.coordination.k8s.io "ouroboros"/);
    await Deno.writeTextFile(
      file,
      LEASE_YAML.replace("13:37:05.000001Z", "13:37:05.000Z").replace("ouroboros", "other"),
    );
    const millis = await kubectl(["create", "--validate=false", "-f", file]);
    assert.equal(millis.code, 1);
    assert.match(
      millis.stderr,
      /Error from server \(BadRequest\): .*Lease in version "v1" cannot be handled as a Lease: parsing time "2026-12-03T13:37:05.000Z"/,
    );
  });
  const current = server.get("coordination.k8s.io/v1", "Lease", "kube-system", "ouroboros")!;
  assert.equal(
    (current.spec as { holderIdentity: string }).holderIdentity,
    "pod-a",
    "the stale replace lost",
  );
  assert.equal(server.get("coordination.k8s.io/v1", "Lease", "kube-system", "other"), undefined);
});

Deno.test({ name: "kubectl patch --type=merge changes just the patched keys", ignore }, async () => {
  await using server = await startFakeApiServer();
  server.create(configMap("p", {}, { keep: "1", drop: "2" }));
  await withKubectl(server, async (kubectl) => {
    const out = ok(
      await kubectl([
        "patch",
        "cm",
        "p",
        "-n",
        "x",
        "--type=merge",
        "-p",
        '{"data":{"drop":null,"add":"3"}}',
      ]),
    );
    assert.match(out, /configmap\/p patched/);
    assert.deepEqual(server.get("v1", "ConfigMap", "x", "p")!.data, { keep: "1", add: "3" });
  });
});

Deno.test({ name: "kubectl delete -l removes exactly the labelled objects", ignore }, async () => {
  await using server = await startFakeApiServer();
  server.create(configMap("one", { app: "x" }));
  server.create(configMap("two", { app: "x" }));
  server.create(configMap("keep", { app: "y" }));
  await withKubectl(server, async (kubectl) => {
    const out = ok(await kubectl(["delete", "configmaps", "-n", "x", "-l", "app=x"]));
    assert.match(out, /configmap "one" deleted/);
    assert.match(out, /configmap "two" deleted/);
    assert.deepEqual(
      server.list("v1", "ConfigMap", "x").map((item) => (item.metadata as { name: string }).name),
      [
        "keep",
      ],
    );
  });
});

Deno.test(
  { name: "kubectl scale deployment sets replicas through the scale subresource", ignore },
  async () => {
    await using server = await startFakeApiServer();
    server.create({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "x" },
      spec: { replicas: 2, selector: { matchLabels: { app: "web" } } },
    });
    await withKubectl(server, async (kubectl) => {
      assert.match(
        ok(await kubectl(["scale", "deployment/web", "-n", "x", "--replicas=0"])),
        /deployment.apps\/web scaled/,
      );
      const deployment = server.get("apps/v1", "Deployment", "x", "web")!;
      assert.equal((deployment.spec as { replicas: number }).replicas, 0);
      assert.ok(
        server.audit.some((entry) => entry.path.endsWith("/deployments/web/scale") && entry.status === 200),
      );
    });
  },
);

Deno.test({
  name: "kubectl api-resources lists every kind with its short names; a missing group is missing",
  ignore,
}, async () => {
  await using server = await startFakeApiServer();
  await withKubectl(server, async (kubectl) => {
    const rows = ok(await kubectl(["api-resources", "--no-headers"])).trim().split("\n").map((line) =>
      line.split(/\s+/)
    );
    const byName = new Map(rows.map((row) => [row[0]!, row]));
    for (
      const name of [
        "configmaps",
        "services",
        "namespaces",
        "events",
        "ingresses",
        "gateways",
        "httproutes",
        "dnsendpoints",
        "leases",
        "deployments",
      ]
    ) {
      assert.ok(byName.has(name), `api-resources lists ${name}`);
    }
    assert.deepEqual(byName.get("configmaps"), ["configmaps", "cm", "v1", "true", "ConfigMap"]);
    assert.deepEqual(byName.get("ingresses"), [
      "ingresses",
      "ing",
      "networking.k8s.io/v1",
      "true",
      "Ingress",
    ]);
    assert.deepEqual(byName.get("namespaces"), ["namespaces", "ns", "v1", "false", "Namespace"]);
    assert.deepEqual(byName.get("nodes"), ["nodes", "no", "v1", "false", "Node"]);
    assert.deepEqual(byName.get("replicasets"), ["replicasets", "rs", "apps/v1", "true", "ReplicaSet"]);
    assert.deepEqual(byName.get("endpointslices"), [
      "endpointslices",
      "discovery.k8s.io/v1",
      "true",
      "EndpointSlice",
    ]);
  });
  await using bare = await startFakeApiServer({ omitGroups: ["gateway.networking.k8s.io"] });
  await withKubectl(bare, async (kubectl) => {
    assert.doesNotMatch(ok(await kubectl(["api-resources"])), /httproutes/);
    const missing = await kubectl(["get", "httproutes", "-A"]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /the server doesn't have a resource type "httproutes"/);
  });
});

Deno.test({
  name: "kubectl over HTTPS authenticates with a bearer token and reports Unauthorized for a wrong one",
  ignore: ignore || skipWithout("kubectl over HTTPS", ["openssl"]),
}, async () => {
  // kubectl sends credentials only over TLS, so this runs the fake with a certificate.
  await using pki = await makePki();
  await using server = await startFakeApiServer({
    token: "sekret",
    tls: { cert: pki.serverCert, key: pki.serverKey },
  });
  server.create(configMap("a"));
  const caFile = pki.caPath;
  await withKubectl(server, async (kubectl) => {
    assert.match(ok(await kubectl(["get", "cm", "a", "-n", "x", "-o", "name"])), /configmap\/a/);
  }, { token: "sekret", caFile });
  await withKubectl(server, async (kubectl) => {
    const refused = await kubectl(["get", "cm", "a", "-n", "x"]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /You must be logged in to the server/);
  }, { token: "stale", caFile }); // with no credentials at all, kubectl would prompt for a password
  assert.ok(
    server.audit.some((entry) => entry.status === 401),
    "the unauthenticated run was refused by the fake",
  );
  assert.ok(server.audit.every((entry) => !entry.path.includes("/secrets")), "kubectl never read a Secret");
});
