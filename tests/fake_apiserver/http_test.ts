import assert from "node:assert/strict";
import { FakeApiError, startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { skipWithout } from "../support/tools.ts";
import { makePki } from "../support/pki.ts";
import { call, openWatch } from "./wire.ts";

const CM = "/api/v1/namespaces/x/configmaps";

function configMap(name: string, data: Record<string, string> = {}, labels?: Record<string, string>) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "x", ...(labels ? { labels } : {}) },
    data,
  };
}

Deno.test("discovery lists every kind with verbs, short names, scope and the scale subresource", async () => {
  await using server = await startFakeApiServer();
  const api = await call(server.url, "GET", "/api");
  assert.equal(api.status, 200);
  assert.equal(api.headers.get("content-type"), "application/json");
  assert.deepEqual(api.body.versions, ["v1"]);

  const apis = await call(server.url, "GET", "/apis");
  const groups = apis.body.groups as { name: string; preferredVersion: { groupVersion: string } }[];
  assert.deepEqual(
    groups.map((group) => group.preferredVersion.groupVersion).sort(),
    [
      "apps/v1",
      "coordination.k8s.io/v1",
      "discovery.k8s.io/v1",
      "dns.par.dev/v1alpha1",
      "externaldns.k8s.io/v1alpha1",
      "gateway.networking.k8s.io/v1",
      "networking.k8s.io/v1",
    ],
  );

  type Resource = { name: string; kind: string; namespaced: boolean; verbs: string[]; shortNames?: string[] };
  const core = (await call(server.url, "GET", "/api/v1")).body;
  assert.equal(core.groupVersion, "v1");
  const coreResources = core.resources as Resource[];
  const configmaps = coreResources.find((resource) => resource.name === "configmaps")!;
  assert.deepEqual(configmaps.shortNames, ["cm"]);
  assert.equal(configmaps.namespaced, true);
  assert.ok(configmaps.verbs.includes("watch") && configmaps.verbs.includes("deletecollection"));
  assert.equal(coreResources.find((resource) => resource.name === "namespaces")!.namespaced, false);
  assert.deepEqual(
    coreResources.filter((resource) => !resource.name.includes("/")).map((resource) => resource.kind).sort(),
    ["ConfigMap", "Event", "Namespace", "Node", "Pod", "Service"],
  );

  const apps = (await call(server.url, "GET", "/apis/apps/v1")).body
    .resources as (Resource & { group?: string })[];
  const scale = apps.find((resource) => resource.name === "deployments/scale")!;
  assert.deepEqual([scale.group, scale.kind], ["autoscaling", "Scale"]);
  assert.ok(apps.some((resource) => resource.name === "replicasets/scale"), "ReplicaSets scale too");
  assert.equal(coreResources.find((resource) => resource.name === "nodes")!.namespaced, false);
  const ingresses =
    ((await call(server.url, "GET", "/apis/networking.k8s.io/v1")).body.resources as Resource[])
      .find((resource) => resource.name === "ingresses")!;
  assert.deepEqual(ingresses.shortNames, ["ing"]);

  const group = await call(server.url, "GET", "/apis/gateway.networking.k8s.io");
  assert.equal(group.body.kind, "APIGroup");
  const version = await call(server.url, "GET", "/version");
  assert.deepEqual([version.body.major, version.body.minor], ["1", "35"]);
});

Deno.test("a server without the Gateway API group omits it from discovery and answers its paths with 404", async () => {
  await using server = await startFakeApiServer({ omitGroups: ["gateway.networking.k8s.io"] });
  const apis = await call(server.url, "GET", "/apis");
  const names = (apis.body.groups as { name: string }[]).map((group) => group.name);
  assert.ok(!names.includes("gateway.networking.k8s.io"));
  assert.ok(names.includes("networking.k8s.io"));
  for (
    const path of ["/apis/gateway.networking.k8s.io/v1", "/apis/gateway.networking.k8s.io/v1/httproutes"]
  ) {
    const answer = await call(server.url, "GET", path);
    assert.equal(answer.status, 404, path);
    assert.equal(answer.body.kind, "Status");
    assert.equal(answer.body.reason, "NotFound");
  }
  assert.throws(
    () =>
      server.create({
        apiVersion: "gateway.networking.k8s.io/v1",
        kind: "HTTPRoute",
        metadata: { name: "r" },
      }),
    (error: unknown) => error instanceof FakeApiError && error.code === 404,
  );
  await using only = await startFakeApiServer({ groups: [""] });
  assert.deepEqual((await call(only.url, "GET", "/apis")).body.groups, []);
});

Deno.test("removing a group at runtime deletes its objects, ends its watches and 404s; installing brings it back empty", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.create({
    apiVersion: "gateway.networking.k8s.io/v1",
    kind: "Gateway",
    metadata: { name: "g", namespace: "x" },
  });
  await using watch = await openWatch(
    server.url,
    `/apis/gateway.networking.k8s.io/v1/gateways?watch=true&resourceVersion=${server.resourceVersion()}`,
  );
  server.setGroupInstalled("gateway.networking.k8s.io", false);
  const lines = await watch.rest();
  assert.deepEqual(lines.map((line) => [line.type, line.object.metadata?.name]), [["DELETED", "g"]]);
  assert.equal((await call(server.url, "GET", "/apis/gateway.networking.k8s.io/v1/gateways")).status, 404);
  server.setGroupInstalled("gateway.networking.k8s.io", true);
  const list = await call(server.url, "GET", "/apis/gateway.networking.k8s.io/v1/gateways");
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.items, []);
});

Deno.test("content negotiation: aggregated-discovery-only requests get 406, plain JSON fallbacks are served, openapi is 404", async () => {
  await using server = await startFakeApiServer();
  const aggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
  const only = await call(server.url, "GET", "/apis", { headers: { accept: aggregated } });
  assert.equal(only.status, 406);
  assert.equal(only.body.reason, "NotAcceptable");
  const withFallback = await call(server.url, "GET", "/apis", {
    headers: { accept: `${aggregated},application/json` },
  });
  assert.equal(withFallback.status, 200);
  assert.equal(withFallback.body.kind, "APIGroupList");
  const table = await call(server.url, "GET", CM, {
    headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json" },
  });
  assert.equal(table.body.kind, "ConfigMapList", "a Table request with a JSON fallback gets the plain list");
  assert.equal(
    (await call(server.url, "GET", "/openapi/v2", {
      headers: { accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" },
    })).status,
    404,
  );
});

Deno.test("create, read, replace, merge-patch and delete over HTTP follow the API conventions", async () => {
  await using server = await startFakeApiServer();
  const created = await call(server.url, "POST", CM, { body: configMap("a", { k: "1" }) });
  assert.equal(created.status, 201);
  const meta = created.body.metadata as Record<string, string>;
  assert.equal(meta.resourceVersion, server.resourceVersion());
  assert.match(meta.uid!, /^[0-9a-f-]{36}$/);

  const again = await call(server.url, "POST", CM, { body: configMap("a") });
  assert.equal(again.status, 409);
  assert.deepEqual(again.body, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: 'configmaps "a" already exists',
    reason: "AlreadyExists",
    details: { name: "a", kind: "configmaps" },
    code: 409,
  });

  const read = await call(server.url, "GET", `${CM}/a`);
  assert.deepEqual(read.body, created.body);
  const missing = await call(server.url, "GET", `${CM}/nope`);
  assert.equal(missing.status, 404);
  assert.equal(missing.body.message, 'configmaps "nope" not found');

  const replaced = await call(server.url, "PUT", `${CM}/a`, {
    body: {
      ...configMap("a", { k: "2" }),
      metadata: { name: "a", namespace: "x", resourceVersion: meta.resourceVersion },
    },
  });
  assert.equal(replaced.status, 200);
  assert.deepEqual(replaced.body.data, { k: "2" });
  const stale = await call(server.url, "PUT", `${CM}/a`, {
    body: {
      ...configMap("a", { k: "3" }),
      metadata: { name: "a", namespace: "x", resourceVersion: meta.resourceVersion },
    },
  });
  assert.equal(stale.status, 409);
  assert.equal(stale.body.reason, "Conflict");
  assert.match(String(stale.body.message), /the object has been modified; please apply your changes/);
  const blind = await call(server.url, "PUT", `${CM}/a`, { body: configMap("a", { k: "blind" }) });
  assert.equal(blind.status, 200, "a PUT without resourceVersion wins on built-in kinds");

  const patched = await call(server.url, "PATCH", `${CM}/a`, {
    body: { data: { k: null, extra: "yes" } },
    headers: { "content-type": "application/merge-patch+json" },
  });
  assert.equal(patched.status, 200);
  assert.deepEqual(patched.body.data, { extra: "yes" });
  const stalePatch = await call(server.url, "PATCH", `${CM}/a`, {
    body: { metadata: { resourceVersion: meta.resourceVersion }, data: { k: "x" } },
    headers: { "content-type": "application/merge-patch+json" },
  });
  assert.equal(stalePatch.status, 409, "a resourceVersion in a merge patch is a precondition");
  const currentRv = (patched.body.metadata as Record<string, string>).resourceVersion;
  const guardedPatch = await call(server.url, "PATCH", `${CM}/a`, {
    body: { metadata: { resourceVersion: currentRv }, data: { k: "x" } },
    headers: { "content-type": "application/merge-patch+json" },
  });
  assert.equal(guardedPatch.status, 200);
  const jsonPatch = await call(server.url, "PATCH", `${CM}/a`, {
    body: [{ op: "remove", path: "/data" }],
    headers: { "content-type": "application/json-patch+json" },
  });
  assert.equal(jsonPatch.status, 415);

  const deleted = await call(server.url, "DELETE", `${CM}/a`);
  assert.equal(deleted.status, 200);
  assert.equal((deleted.body.metadata as Record<string, string>).name, "a");
  assert.equal((await call(server.url, "GET", `${CM}/a`)).status, 404);
  assert.equal((await call(server.url, "DELETE", `${CM}/a`)).status, 404);
});

Deno.test("merge patch on a custom resource needs no resourceVersion, while a PUT without one is 422", async () => {
  await using server = await startFakeApiServer();
  const path = "/apis/externaldns.k8s.io/v1alpha1/namespaces/x/dnsendpoints";
  await call(server.url, "POST", path, {
    body: {
      apiVersion: "externaldns.k8s.io/v1alpha1",
      kind: "DNSEndpoint",
      metadata: { name: "e" },
      spec: { endpoints: [] },
    },
  });
  const put = await call(server.url, "PUT", `${path}/e`, {
    body: { metadata: { name: "e" }, spec: { endpoints: [1] } },
  });
  assert.equal(put.status, 422);
  const patch = await call(server.url, "PATCH", `${path}/e`, {
    body: { spec: { endpoints: [{ dnsName: "a.example" }] } },
    headers: { "content-type": "application/merge-patch+json" },
  });
  assert.equal(patch.status, 200);
  assert.equal((patch.body.metadata as Record<string, number>).generation, 2);
});

Deno.test("label and field selectors filter lists, and a bad selector is 400", async () => {
  await using server = await startFakeApiServer();
  server.create(configMap("web", {}, { app: "web", tier: "front" }));
  server.create(configMap("db", {}, { app: "db" }));
  server.create({
    ...configMap("other"),
    metadata: { name: "other", namespace: "y", labels: { app: "web" } },
  });
  const names = async (query: string, path = CM) =>
    ((await call(server.url, "GET", `${path}?${query}`)).body.items as { metadata: { name: string } }[])
      .map((item) => item.metadata.name);
  assert.deepEqual(await names("labelSelector=app%3Dweb"), ["web"]);
  assert.deepEqual(await names("labelSelector=app%3Dweb", "/api/v1/configmaps"), ["web", "other"]);
  assert.deepEqual(await names("labelSelector=app%20in%20(web,db)"), ["db", "web"]);
  assert.deepEqual(await names("labelSelector=!tier"), ["db"]);
  assert.deepEqual(await names("fieldSelector=metadata.name%3Ddb"), ["db"]);
  assert.deepEqual(await names("fieldSelector=metadata.namespace!%3Dx", "/api/v1/configmaps"), ["other"]);
  const bad = await call(server.url, "GET", `${CM}?labelSelector=app%20in%20web`);
  assert.equal(bad.status, 400);
  assert.equal(bad.body.reason, "BadRequest");
  assert.equal((await call(server.url, "GET", `${CM}?fieldSelector=spec.x%3D1`)).status, 400);
});

Deno.test("a collection DELETE with a label selector deletes just the matching objects, each with a DELETED event", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.create(configMap("a", {}, { app: "x" }));
  server.create(configMap("b", {}, { app: "x" }));
  server.create(configMap("c", {}, { app: "y" }));
  await using watch = await openWatch(
    server.url,
    `${CM}?watch=true&resourceVersion=${server.resourceVersion()}`,
  );
  const answer = await call(server.url, "DELETE", `${CM}?labelSelector=app%3Dx`);
  assert.equal(answer.status, 200);
  assert.deepEqual(
    (answer.body.items as { metadata: { name: string } }[]).map((item) => item.metadata.name),
    ["a", "b"],
  );
  assert.deepEqual(
    server.list("v1", "ConfigMap", "x").map((item) => (item.metadata as { name: string }).name),
    ["c"],
  );
  const events = [await watch.event(), await watch.event()];
  assert.deepEqual(events.map((event) => [event.type, event.object.metadata?.name]), [["DELETED", "a"], [
    "DELETED",
    "b",
  ]]);
});

Deno.test("a ConfigMap over 1 MiB is refused over HTTP with 422 Invalid and nothing is stored", async () => {
  await using server = await startFakeApiServer();
  const answer = await call(server.url, "POST", CM, {
    body: configMap("big", { blob: "x".repeat(1_048_576) }),
  });
  assert.equal(answer.status, 422);
  assert.equal(answer.body.reason, "Invalid");
  assert.deepEqual(
    (answer.body.details as { causes: { reason: string }[] }).causes.map((cause) => cause.reason),
    [
      "FieldValueTooLong",
    ],
  );
  assert.equal(server.get("v1", "ConfigMap", "x", "big"), undefined);
});

Deno.test("list resourceVersion semantics: a future version is 504 too large, Exact returns the past state", async () => {
  await using server = await startFakeApiServer();
  server.create(configMap("a", { v: "1" }));
  const before = server.resourceVersion();
  server.update(configMap("a", { v: "2" }));
  const future = await call(
    server.url,
    "GET",
    `${CM}?resourceVersion=${Number(server.resourceVersion()) + 5}`,
  );
  assert.equal(future.status, 504);
  assert.deepEqual(
    (future.body.details as { causes: { reason: string }[] }).causes[0]!.reason,
    "ResourceVersionTooLarge",
  );
  const exact = await call(server.url, "GET", `${CM}?resourceVersion=${before}&resourceVersionMatch=Exact`);
  assert.equal((exact.body.metadata as Record<string, string>).resourceVersion, before);
  assert.deepEqual((exact.body.items as { data: unknown }[])[0]!.data, { v: "1" });
  const notOlder = await call(server.url, "GET", `${CM}?resourceVersion=${before}`);
  assert.equal((notOlder.body.metadata as Record<string, string>).resourceVersion, server.resourceVersion());
  assert.deepEqual((notOlder.body.items as { data: unknown }[])[0]!.data, { v: "2" });
  const any = await call(server.url, "GET", `${CM}?resourceVersion=0`);
  assert.equal(any.status, 200);
  assert.equal((await call(server.url, "GET", `${CM}?resourceVersionMatch=Exact`)).status, 400);
  server.compact();
  const expired = await call(server.url, "GET", `${CM}?resourceVersion=${before}&resourceVersionMatch=Exact`);
  assert.equal(expired.status, 410);
  assert.equal(expired.body.reason, "Expired");
});

Deno.test("the Deployment scale subresource reads and writes replicas as autoscaling/v1 Scale", async () => {
  await using server = await startFakeApiServer();
  server.create({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d", namespace: "x" },
    spec: { replicas: 3, selector: { matchLabels: { app: "d" } } },
  });
  const path = "/apis/apps/v1/namespaces/x/deployments/d/scale";
  const scale = await call(server.url, "GET", path);
  assert.equal(scale.status, 200);
  assert.deepEqual([scale.body.apiVersion, scale.body.kind], ["autoscaling/v1", "Scale"]);
  assert.deepEqual(scale.body.spec, { replicas: 3 });
  assert.equal((scale.body.status as { selector: string }).selector, "app=d");
  const rv = (scale.body.metadata as { resourceVersion: string }).resourceVersion;
  const put = await call(server.url, "PUT", path, { body: { ...scale.body, spec: { replicas: 1 } } });
  assert.equal(put.status, 200);
  assert.deepEqual(put.body.spec, { replicas: 1 });
  const stale = await call(server.url, "PUT", path, {
    body: {
      ...scale.body,
      metadata: { name: "d", namespace: "x", resourceVersion: rv },
      spec: { replicas: 5 },
    },
  });
  assert.equal(stale.status, 409);
  const patched = await call(server.url, "PATCH", path, {
    body: { spec: { replicas: 0 } },
    headers: { "content-type": "application/merge-patch+json" },
  });
  assert.deepEqual(patched.body.spec, { replicas: 0 });
  const deployment = server.get("apps/v1", "Deployment", "x", "d")!;
  assert.equal((deployment.spec as { replicas: number }).replicas, 0);
  assert.equal(
    (deployment.metadata as { generation: number }).generation,
    3,
    "each replica change is a spec change",
  );
});

Deno.test("the status subresource takes status only; the main resource keeps it", async () => {
  await using server = await startFakeApiServer();
  server.create({
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { name: "i", namespace: "x" },
    spec: {},
  });
  const path = "/apis/networking.k8s.io/v1/namespaces/x/ingresses/i";
  const status = await call(server.url, "PATCH", `${path}/status`, {
    body: { status: { loadBalancer: { ingress: [{ ip: "10.1.2.3" }] } }, spec: { ignored: true } },
    headers: { "content-type": "application/merge-patch+json" },
  });
  assert.equal(status.status, 200);
  assert.deepEqual(status.body.spec, {});
  const put = await call(server.url, "PUT", path, { body: { metadata: { name: "i" }, spec: { rules: [] } } });
  assert.deepEqual(put.body.status, { loadBalancer: { ingress: [{ ip: "10.1.2.3" }] } });
  assert.equal((await call(server.url, "GET", `${path}/nonsense`)).status, 404);
});

Deno.test("a bearer token is required when set, and a rotated token replaces the old one", async () => {
  await using server = await startFakeApiServer({ token: "first" });
  const none = await call(server.url, "GET", CM);
  assert.equal(none.status, 401);
  assert.deepEqual([none.body.kind, none.body.reason, none.body.code], ["Status", "Unauthorized", 401]);
  assert.equal(
    (await call(server.url, "GET", CM, { headers: { authorization: "Bearer first" } })).status,
    200,
  );
  server.setToken("second");
  assert.equal(
    (await call(server.url, "GET", CM, { headers: { authorization: "Bearer first" } })).status,
    401,
  );
  assert.equal(
    (await call(server.url, "GET", CM, { headers: { authorization: "Bearer second" } })).status,
    200,
  );
  server.setToken(undefined);
  assert.equal((await call(server.url, "GET", CM)).status, 200);
});

Deno.test("the audit log records every request with its verb shape, query, status and user agent", async () => {
  await using server = await startFakeApiServer({ token: "t", bookmarkIntervalMs: 0 });
  const auth = { authorization: "Bearer t", "user-agent": "audit-test/1" };
  await call(server.url, "GET", `${CM}?limit=5`, { headers: auth });
  await call(server.url, "POST", CM, { body: configMap("a"), headers: auth });
  await call(server.url, "GET", "/api/v1/namespaces/x/secrets/s");
  await using watch = await openWatch(server.url, `${CM}?watch=true&resourceVersion=0`, { headers: auth });
  await watch.event();
  const seen = server.audit.map(({ method, path, query, status, watch, userAgent }) => ({
    method,
    path,
    query,
    status,
    watch,
    userAgent,
  }));
  assert.deepEqual(seen, [
    { method: "GET", path: CM, query: { limit: "5" }, status: 200, watch: false, userAgent: "audit-test/1" },
    { method: "POST", path: CM, query: {}, status: 201, watch: false, userAgent: "audit-test/1" },
    {
      method: "GET",
      path: "/api/v1/namespaces/x/secrets/s",
      query: {},
      status: 401,
      watch: false,
      userAgent: seen[2]!.userAgent,
    },
    {
      method: "GET",
      path: CM,
      query: { watch: "true", resourceVersion: "0" },
      status: 200,
      watch: true,
      userAgent: "audit-test/1",
    },
  ]);
  assert.ok(server.audit.every((entry) => Math.abs(entry.at - Date.now()) < 60_000));
});

Deno.test("HTTPS: the fake serves TLS with the given certificate", {
  ignore: skipWithout("the HTTPS fake API server test", ["openssl"]),
}, async () => {
  await using pki = await makePki();
  await using server = await startFakeApiServer({ tls: { cert: pki.serverCert, key: pki.serverKey } });
  assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  using client = Deno.createHttpClient({ caCerts: [pki.caPem] });
  const answer = await call(server.url, "GET", "/version", { client });
  assert.equal(answer.status, 200);
  assert.equal(answer.body.minor, "35");
});
