/**
 * `ouroboros kuberture` end to end: the real command as a child process with exactly the
 * `kuberture` permission set, against the fake API server (EndpointSlices, Nodes, Services,
 * DNSEndpoints), checked the way an operator would: the Services it writes (read back with the
 * real kubectl too), the audit log, /readyz, /metrics, the exit status.
 *
 * @module
 */

import assert from "node:assert/strict";
import { putApiServerSlice } from "../support/api_server_slice.ts";
import { type FakeApiServer, startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { writeKubeconfig } from "../support/kubeconfig.ts";
import { type KubertureProcess, runOuroboros, startKuberture } from "../support/ouroboros_process.ts";
import { parseMetrics } from "../support/scrape.ts";
import { tempDir } from "../support/temp_dir.ts";
import { waitFor } from "../support/wait.ts";
import { ignoreWithoutKubectl, ok, withKubectl } from "../fake_apiserver/kubectl_run.ts";
import { leaderThenFollower } from "../election/election_fixture.ts";

const TOKEN = "kuberture-test-token";
const NAMESPACE = "kuberture";
const PREFIX = "external-dns.alpha.kubernetes.io/";

function node(server: FakeApiServer, name: string, addresses: Record<string, string>): void {
  server.create({
    apiVersion: "v1",
    kind: "Node",
    metadata: { name },
    status: { addresses: Object.entries(addresses).map(([type, address]) => ({ type, address })) },
  });
}

function annotations(server: FakeApiServer, name: string): Record<string, string> | undefined {
  const service = server.get("v1", "Service", NAMESPACE, name);
  return service === undefined
    ? undefined
    : (service.metadata as { annotations?: Record<string, string> }).annotations;
}

function configYaml(outputs: string): string {
  return `metricsBindAddress: "127.0.0.1:0"\nhealthProbeBindAddress: "127.0.0.1:0"\noutputs:\n${outputs}`;
}

async function setUp() {
  const server = await startFakeApiServer({ token: TOKEN, bookmarkIntervalMs: 0 });
  const dir = await tempDir("kuberture-");
  const kubeconfig = `${dir.path}/kubeconfig`;
  await writeKubeconfig(kubeconfig, { server: server.url, token: TOKEN });
  await Deno.mkdir(`${dir.path}/config`);
  const config = `${dir.path}/config/config.yaml`;
  const env = { POD_NAMESPACE: NAMESPACE, HOSTNAME: "kuberture-test" };
  return {
    server,
    config,
    kubeconfig,
    env,
    flags: [`--kubeconfig=${kubeconfig}`, `--config=${config}`, "--leader-elect=false"],
    async [Symbol.asyncDispose]() {
      await server.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

function waitForTarget(server: FakeApiServer, name: string, target: string | undefined, timeoutMs = 15_000) {
  return waitFor(
    `Service ${name} to target ${target}`,
    () => annotations(server, name)?.[`${PREFIX}target`] === target,
    { timeoutMs },
  );
}

Deno.test("kuberture: one output from the EndpointSlice; not-ready endpoints left out; zero addresses keep the Service; readiness and metrics", async (t) => {
  await using env = await setUp();
  const { server } = env;
  putApiServerSlice(server, [{ addresses: ["192.0.2.11"] }, { addresses: ["192.0.2.10"], ready: true }, {
    addresses: ["192.0.2.12"],
    ready: false,
  }]);
  await Deno.writeTextFile(
    env.config,
    configYaml(
      "  - name: api\n    hostname: [api.k8s.example.com]\n    serviceName: kuberture-api\n    addressType: IPv4\n",
    ),
  );
  // The pod's owners, as a Deployment makes them, and a Service the original kuberture wrote.
  const deployment = { apiVersion: "apps/v1", kind: "Deployment", name: "kuberture", uid: "uid-deployment" };
  server.create({
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: {
      namespace: NAMESPACE,
      name: "kuberture-5d8f",
      ownerReferences: [{ ...deployment, controller: true }],
    },
    spec: { replicas: 1, selector: { matchLabels: { app: "kuberture" } } },
  });
  server.create({
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      namespace: NAMESPACE,
      name: "kuberture-test",
      ownerReferences: [
        {
          apiVersion: "apps/v1",
          kind: "ReplicaSet",
          name: "kuberture-5d8f",
          uid: "uid-rs",
          controller: true,
        },
      ],
    },
    spec: { containers: [{ name: "kuberture", image: "ouroboros" }] },
  });
  server.create({
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      namespace: NAMESPACE,
      name: "kuberture-api",
      labels: { "app.kubernetes.io/managed-by": "kuberture", "kuberture/instance": "kuberture" },
      annotations: { [`${PREFIX}hostname`]: "api.k8s.example.com", [`${PREFIX}target`]: "198.51.100.1" },
    },
    spec: { type: "ClusterIP", clusterIP: "None" },
  });
  // As under the chart without an `output: crd`: no right to list DNSEndpoints.
  server.faults.inject("list", { type: "status", code: 403, reason: "Forbidden" }, {
    path: /dnsendpoints/,
    count: 1_000,
  });
  await using kuberture: KubertureProcess = await startKuberture(env.flags, { env: env.env });

  await t.step("the headless Service carries hostname, sorted ready targets and the TTL", async () => {
    // The Service kuberture wrote before is taken over, not refused.
    await waitForTarget(server, "kuberture-api", "192.0.2.10,192.0.2.11");
    const owners = (server.get("v1", "Service", NAMESPACE, "kuberture-api")!.metadata as {
      ownerReferences?: { kind: string; name: string; uid: string }[];
    }).ownerReferences;
    assert.deepEqual(owners?.map((ref) => [ref.kind, ref.name, ref.uid]), [[
      "Deployment",
      "kuberture",
      "uid-deployment",
    ]]);
    assert.equal(kuberture.starting.owner, "Deployment/kuberture");
    const service = server.get("v1", "Service", NAMESPACE, "kuberture-api")!;
    const metadata = service.metadata as {
      labels: Record<string, string>;
      annotations: Record<string, string>;
    };
    assert.equal(metadata.annotations[`${PREFIX}hostname`], "api.k8s.example.com");
    assert.equal(metadata.annotations[`${PREFIX}ttl`], "60");
    assert.equal(metadata.labels["app.kubernetes.io/managed-by"], "kuberture");
    assert.equal(metadata.labels["kuberture/instance"], "kuberture");
    const spec = service.spec as { clusterIP?: string; selector?: unknown; ports?: unknown[] };
    assert.equal(spec.clusterIP, "None");
    assert.equal(spec.selector, undefined);
    assert.ok(
      server.audit.some((entry) =>
        entry.method === "PATCH" && entry.path.endsWith("/services/kuberture-api")
      ),
      "written with a PATCH (server-side apply)",
    );
  });

  await t.step({
    name: "the real kubectl reads the Service back: headless, annotated, ours",
    ignore: ignoreWithoutKubectl,
    fn: async () => {
      // kubectl sends no bearer token over plain HTTP: authentication is off for this step only.
      server.setToken(undefined);
      await withKubectl(server, async (kubectl) => {
        const json = ok(await kubectl(["get", "service", "kuberture-api", "-n", NAMESPACE, "-o", "json"]));
        const service = JSON.parse(json) as {
          metadata: { annotations: Record<string, string>; labels: Record<string, string> };
          spec: { clusterIP: string };
        };
        assert.equal(service.spec.clusterIP, "None");
        assert.equal(service.metadata.annotations[`${PREFIX}target`], "192.0.2.10,192.0.2.11");
        assert.equal(service.metadata.labels["app.kubernetes.io/managed-by"], "kuberture");
        const managers = ok(
          await kubectl([
            "get",
            "service",
            "kuberture-api",
            "-n",
            NAMESPACE,
            "--show-managed-fields",
            "-o",
            "jsonpath={.metadata.managedFields[*].manager}",
          ]),
        );
        assert.match(managers, /kuberture/, "written by the field manager kuberture (server-side apply)");
      }).finally(() => server.setToken(TOKEN));
    },
  });

  await t.step(
    "DNSEndpoints may not be listed (kuberture's own RBAC): one WARN naming the grant, publishing goes on",
    async () => {
      const line = await kuberture.waitForLog(
        "the WARN",
        (entry) => entry.msg === "cannot look for stale DNSEndpoints",
      );
      assert.equal(line.level, "WARN");
      assert.match(
        String(line.detail),
        /grant list and delete on dnsendpoints\.externaldns\.k8s\.io in kuberture/,
      );
      await waitForTarget(server, "kuberture-api", "192.0.2.10,192.0.2.11");
      assert.equal(kuberture.logs.filter((entry) => entry.msg === line.msg).length, 1, "said once");
    },
  );

  await t.step("/readyz is 200 and the metrics carry kuberture's names", async () => {
    await waitFor("/readyz 200", async () => (await kuberture.get("/readyz")).status === 200);
    const samples = parseMetrics((await kuberture.get("/metrics", "metrics")).body);
    const value = (name: string, labels: Record<string, string>) =>
      samples.find((sample) =>
        sample.name === name && Object.entries(labels).every(([key, v]) => sample.labels[key] === v)
      )?.value;
    assert.ok((value("kuberture_reconcile_total", { status: "success" }) ?? 0) >= 1);
    assert.equal(value("kuberture_endpoints_resolved", { output: "api" }), 2);
    assert.ok((value("kuberture_last_reconcile_timestamp", {}) ?? 0) > 1_700_000_000);
  });

  await t.step("an endpoint that turns ready is added", async () => {
    putApiServerSlice(server, [{ addresses: ["192.0.2.11"] }, { addresses: ["192.0.2.10"], ready: true }, {
      addresses: ["192.0.2.12"],
      ready: true,
    }]);
    await waitForTarget(server, "kuberture-api", "192.0.2.10,192.0.2.11,192.0.2.12");
  });

  await t.step("no ready endpoint at all: the Service is kept as it was, with one WARN", async () => {
    putApiServerSlice(server, [{ addresses: ["192.0.2.10"], ready: false }]);
    await kuberture.waitForLog("the zero-address WARN", (line) => line.msg.startsWith("no address resolved"));
    assert.equal(
      annotations(server, "kuberture-api")?.[`${PREFIX}target`],
      "192.0.2.10,192.0.2.11,192.0.2.12",
    );
    putApiServerSlice(server, [{ addresses: ["192.0.2.20"] }]);
    await waitForTarget(server, "kuberture-api", "192.0.2.20");
    assert.equal(kuberture.logs.filter((line) => line.msg.startsWith("no address resolved")).length, 1);
  });

  await t.step("SIGTERM: exit 0", async () => {
    kuberture.kill("SIGTERM");
    const { code } = await kuberture.status;
    assert.equal(code, 0, kuberture.logs.slice(-8).map((line) => JSON.stringify(line)).join("\n"));
  });
});

Deno.test("kuberture: the seed's two outputs with different prefixes, dual-stack, node sources, a foreign Service, hot reload", async (t) => {
  await using env = await setUp();
  const { server } = env;
  putApiServerSlice(server, [{ addresses: ["10.0.0.1"], nodeName: "cp-1" }]);
  putApiServerSlice(server, [{ addresses: ["fd00::1"], nodeName: "cp-1" }], { family: "IPv6" });
  node(server, "cp-1", { InternalIP: "10.0.0.1", ExternalIP: "203.0.113.7" });
  server.create({
    apiVersion: "v1",
    kind: "Service",
    metadata: { namespace: NAMESPACE, name: "taken" },
    spec: { type: "ClusterIP", clusterIP: "None" },
  });
  await Deno.writeTextFile(
    env.config,
    configYaml(
      "  - name: public\n    hostname: [api.k8s.example.com]\n    serviceName: kuberture-public\n" +
        "    addressSource: node-external\n" +
        "  - name: internal\n    hostname: [api-internal.k8s.example.internal]\n" +
        "    annotationPrefix: internal-dns.example.com/\n    serviceName: kuberture-internal\n" +
        "  - name: clash\n    hostname: [clash.example.com]\n    serviceName: taken\n" +
        "  - name: nodepub\n    hostname: [pub.example.com]\n    serviceName: kuberture-nodepub\n" +
        "    addressSource: node-public\n    addressType: IPv4\n" +
        "  - name: viacrd\n    hostname: [crd.example.com]\n    serviceName: kuberture-crd\n    output: crd\n" +
        "    addressType: Both\n",
    ),
  );
  await using kuberture = await startKuberture(env.flags, { env: env.env });

  await t.step(
    "node-external and node-public give the node's ExternalIP; addressType left out is IPv4, as kuberture; Both is both",
    async () => {
      await waitForTarget(server, "kuberture-public", "203.0.113.7");
      // node-public: the Node's private InternalIP is skipped, its ExternalIP is public.
      await waitForTarget(server, "kuberture-nodepub", "203.0.113.7");
      // output: crd: a DNSEndpoint with one A and one AAAA endpoint, for external-dns --source=crd.
      await waitFor(
        "the DNSEndpoint",
        () =>
          server.get("externaldns.k8s.io/v1alpha1", "DNSEndpoint", NAMESPACE, "kuberture-crd") !== undefined,
      );
      const endpoints = (server.get("externaldns.k8s.io/v1alpha1", "DNSEndpoint", NAMESPACE, "kuberture-crd")!
        .spec as { endpoints: { dnsName: string; recordType: string; targets: string[] }[] }).endpoints;
      assert.deepEqual(endpoints.map((e) => [e.dnsName, e.recordType, e.targets.join(",")]), [
        ["crd.example.com", "A", "10.0.0.1"],
        ["crd.example.com", "AAAA", "fd00::1"],
      ]);
      await waitFor(
        "the internal output's Service",
        () => annotations(server, "kuberture-internal")?.["internal-dns.example.com/target"] === "10.0.0.1",
      );
      const internal = annotations(server, "kuberture-internal")!;
      assert.equal(internal[`${PREFIX}target`], undefined, "only its own prefix");
    },
  );

  await t.step(
    "a Service of the same name that is not ours is left alone: ERROR, Event, metric; still ready",
    async () => {
      const line = await kuberture.waitForLog("the refusal", (entry) => entry.msg === "output refused");
      assert.equal(line.level, "ERROR");
      assert.equal(line.output, "clash");
      const taken = server.get("v1", "Service", NAMESPACE, "taken")!;
      assert.equal((taken.metadata as { annotations?: unknown }).annotations, undefined);
      await waitFor(
        "a Warning Event on it",
        () =>
          server.list("v1", "Event", NAMESPACE).some((event) =>
            (event.involvedObject as { name?: string } | undefined)?.name === "taken"
          ),
      );
      // The object in the way cannot be cleared by retrying: the pass counts as done, so the
      // replica is ready (a rollout is not blocked) and the refusal shows in the metrics.
      await waitFor(
        "/readyz 200 with one output refused",
        async () => (await kuberture.get("/readyz")).status === 200,
      );
      const metrics = (await kuberture.get("/metrics")).body;
      assert.match(metrics, /^ouroboros_kuberture_output_refused\{output="clash"\} 1$/m);
      assert.match(metrics, /^ouroboros_kuberture_output_refused\{output="public"\} 0$/m);
      assert.equal(
        kuberture.logs.filter((entry) => entry.msg === "output refused").length,
        1,
        "one ERROR while the refusal does not change",
      );
    },
  );

  await t.step("hot reload: an invalid file is refused and the old config keeps running", async () => {
    await Deno.writeTextFile(env.config, configYaml("  - name: api\n    hostname: []\n"));
    await kuberture.waitForLog(
      "the refusal of the new file",
      (line) => line.msg.startsWith("the changed config file is refused"),
    );
    assert.notEqual(server.get("v1", "Service", NAMESPACE, "kuberture-internal"), undefined);
  });

  await t.step(
    "hot reload: a valid file applies at once; the removed outputs' Service and DNSEndpoint are deleted, foreign kept",
    async () => {
      await Deno.writeTextFile(
        env.config,
        configYaml(
          "  - name: public\n    hostname: [api.k8s.example.com]\n    serviceName: kuberture-public\n    addressSource: node-internal\n",
        ),
      );
      await waitForTarget(server, "kuberture-public", "10.0.0.1");
      await waitFor(
        "the internal Service to be deleted",
        () => server.get("v1", "Service", NAMESPACE, "kuberture-internal") === undefined,
      );
      await waitFor(
        "the DNSEndpoint of the removed output: crd to be deleted",
        () =>
          server.get("externaldns.k8s.io/v1alpha1", "DNSEndpoint", NAMESPACE, "kuberture-crd") === undefined,
      );
      assert.notEqual(
        server.get("v1", "Service", NAMESPACE, "taken"),
        undefined,
        "the foreign Service stays",
      );
      await kuberture.waitForLog("config reloaded", (line) => line.msg === "config reloaded");
    },
  );
});

Deno.test("kuberture: a bad config file exits 2 naming every problem, before contacting the cluster", async () => {
  await using env = await setUp();
  await Deno.writeTextFile(
    env.config,
    "outputs:\n  - name: a\n    hostname: [bad_host]\n    serviceName: x\n    color: blue\n",
  );
  const { code, stderr } = await runOuroboros(["kuberture", ...env.flags], {
    env: env.env,
    permissionSet: "kuberture",
  });
  assert.equal(code, 2);
  assert.match(stderr, /color/);
  assert.match(stderr, /bad_host/);
  assert.equal(env.server.audit.length, 0, "nothing was sent to the API server");
});

Deno.test("kuberture: a config file that cannot be read exits 2 with the words a hot reload uses for it", async () => {
  await using env = await setUp();
  const missing = `${env.config}.missing`;
  const flags = env.flags.map((flag) => flag.startsWith("--config=") ? `--config=${missing}` : flag);
  assert.ok(flags.includes(`--config=${missing}`), "the test's flags name the config file");
  const { code, stderr } = await runOuroboros(["kuberture", ...flags], {
    env: env.env,
    permissionSet: "kuberture",
  });
  assert.equal(code, 2);
  assert.match(
    stderr,
    new RegExp(`${missing.replaceAll(".", "\\.")}: cannot be read: No such file or directory`),
  );
  assert.equal(env.server.audit.length, 0, "nothing was sent to the API server");
});

Deno.test("kuberture --once --dry-run: exit 3 with the diff, nothing written; --once writes; then exit 0", async () => {
  await using env = await setUp();
  putApiServerSlice(env.server, [{ addresses: ["192.0.2.10"] }]);
  await Deno.writeTextFile(
    env.config,
    configYaml("  - name: api\n    hostname: [api.k8s.example.com]\n    serviceName: kuberture-api\n"),
  );
  const flags = env.flags.filter((flag) => !flag.startsWith("--leader-elect"));
  const preview = await runOuroboros(["kuberture", ...flags, "--once", "--dry-run"], {
    env: env.env,
    permissionSet: "kuberture",
  });
  assert.equal(preview.code, 3, preview.stderr);
  assert.match(
    preview.stdout,
    /\+metadata\.annotations\.external-dns\.alpha\.kubernetes\.io\/target: 192\.0\.2\.10/,
  );
  assert.ok(!env.server.audit.some((entry) => entry.method !== "GET"), "a dry run writes nothing");
  const write = await runOuroboros(["kuberture", ...flags, "--once"], {
    env: env.env,
    permissionSet: "kuberture",
  });
  assert.equal(write.code, 3, write.stderr);
  assert.equal(annotations(env.server, "kuberture-api")?.[`${PREFIX}target`], "192.0.2.10");
  const again = await runOuroboros(["kuberture", ...flags, "--once"], {
    env: env.env,
    permissionSet: "kuberture",
  });
  assert.equal(again.code, 0, again.stderr);
});

Deno.test("kuberture outside a pod: with --kubeconfig and no POD_NAMESPACE it writes to the context's namespace, as kubectl", async () => {
  await using env = await setUp();
  putApiServerSlice(env.server, ["192.0.2.10"]);
  await Deno.writeTextFile(
    env.config,
    configYaml("  - name: api\n    hostname: [api.k8s.example.com]\n    serviceName: kuberture-api\n"),
  );
  await writeKubeconfig(env.kubeconfig, { server: env.server.url, token: TOKEN, namespace: "team-a" });
  const flags = env.flags.filter((flag) => !flag.startsWith("--leader-elect"));
  const { POD_NAMESPACE: _, ...outside } = env.env;
  const write = await runOuroboros(["kuberture", ...flags, "--once"], {
    env: outside,
    permissionSet: "kuberture",
  });
  assert.equal(write.code, 3, write.stderr);
  const service = env.server.get("v1", "Service", "team-a", "kuberture-api");
  assert.equal(
    (service?.metadata as { annotations?: Record<string, string> }).annotations?.[`${PREFIX}target`],
    "192.0.2.10",
  );

  // A context without a namespace is kubectl's `default`; no kubeconfig at all (and no pod) names the fix.
  await writeKubeconfig(env.kubeconfig, { server: env.server.url, token: TOKEN });
  assert.equal(
    (await runOuroboros(["kuberture", ...flags, "--once"], { env: outside, permissionSet: "kuberture" }))
      .code,
    3,
  );
  assert.ok(env.server.get("v1", "Service", "default", "kuberture-api"));
  const inPod = await runOuroboros(
    ["kuberture", ...flags.filter((flag) => !flag.startsWith("--kubeconfig")), "--once"],
    { env: outside, permissionSet: "kuberture" },
  );
  assert.equal(inPod.code, 2);
  assert.match(inPod.stderr, /the namespace to write to is unknown: set POD_NAMESPACE .* give --kubeconfig/);
});

Deno.test("kuberture: two replicas elect one writer (kuberture-leader); on SIGTERM the other takes over and keeps publishing", async () => {
  const server = await startFakeApiServer({
    users: { "token-a": "a", "token-b": "b" },
    bookmarkIntervalMs: 0,
  });
  await using dir = await tempDir("kuberture-ha-");
  try {
    for (const user of ["a", "b"]) {
      await writeKubeconfig(`${dir.path}/kubeconfig-${user}`, { server: server.url, token: `token-${user}` });
    }
    await Deno.mkdir(`${dir.path}/config`);
    const config = `${dir.path}/config/config.yaml`;
    await Deno.writeTextFile(
      config,
      configYaml("  - name: api\n    hostname: [api.k8s.example.com]\n    serviceName: kuberture-api\n"),
    );
    putApiServerSlice(server, [{ addresses: ["192.0.2.10"] }]);
    const replica = (user: string) =>
      startKuberture([
        `--kubeconfig=${dir.path}/kubeconfig-${user}`,
        `--config=${config}`,
        "--leader-election-lease-duration=3s",
        "--leader-election-renew-deadline=2s",
        "--leader-election-retry-period=500ms",
      ], { env: { POD_NAMESPACE: NAMESPACE, HOSTNAME: user } });
    const holder = () => {
      const lease = server.get("coordination.k8s.io/v1", "Lease", NAMESPACE, "kuberture-leader");
      return String((lease?.spec as { holderIdentity?: string } | undefined)?.holderIdentity ?? "").split(
        "_",
      )[0];
    };
    await using replicas = await leaderThenFollower(replica, async () => {
      await waitFor("a to hold kuberture-leader", () => holder() === "a");
      await waitForTarget(server, "kuberture-api", "192.0.2.10");
    });
    const { a, b } = replicas;
    await waitFor("b's /readyz 200 as a standby", async () => (await b.get("/readyz")).status === 200);
    const killedAt = Date.now();
    a.kill("SIGTERM");
    assert.equal((await a.status).code, 0);
    await waitFor("b to hold kuberture-leader", () => holder() === "b");
    putApiServerSlice(server, [{ addresses: ["192.0.2.20"] }]);
    await waitForTarget(server, "kuberture-api", "192.0.2.20");
    const serviceWrites = server.audit.filter((entry) =>
      entry.method === "PATCH" && entry.path.includes("/services/")
    );
    assert.ok(serviceWrites.some((entry) => entry.user === "a"), "the first leader wrote");
    assert.ok(serviceWrites.some((entry) => entry.user === "b"), "the new leader writes");
    assert.ok(
      serviceWrites.filter((entry) => entry.user === "b").every((entry) => entry.at >= killedAt),
      "the standby wrote nothing while a led",
    );
  } finally {
    await server.close();
  }
});
