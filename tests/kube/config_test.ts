import assert from "node:assert/strict";
import { inClusterServer, loadInClusterConfig, loadKubeconfig } from "../../lib/kube/config.ts";
import { KubeConfigError } from "../../lib/kube/config_error.ts";
import { KubeClient } from "../../lib/kube/client.ts";
import { CONFIG_MAP } from "../../lib/resources/config_map.ts";
import { skipWithout } from "../support/tools.ts";
import { FakeClock } from "../support/fake_clock.ts";
import { makePki, type Pki } from "../support/pki.ts";
import { tempDir } from "../support/temp_dir.ts";

const NO_OPENSSL = skipWithout("cluster configuration tests with TLS", ["openssl"]);

/** An HTTPS API server stand-in that serves one ConfigMap to the right token only. */
function configMapServer(pki: Pki, token: string) {
  const seen: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: pki.serverCert, key: pki.serverKey, onListen: () => {} },
    (request) => {
      seen.push(`${request.headers.get("authorization")} ${new URL(request.url).pathname}`);
      if (request.headers.get("authorization") !== `Bearer ${token}`) {
        return Response.json({ kind: "Status", code: 401, reason: "Unauthorized", message: "no" }, {
          status: 401,
        });
      }
      return Response.json({
        kind: "ConfigMap",
        apiVersion: "v1",
        metadata: { name: "coredns", namespace: "kube-system", resourceVersion: "5" },
        data: { Corefile: ".:53 {}" },
      });
    },
  );
  return { server, seen };
}

Deno.test("inClusterServer brackets IPv6 hosts", () => {
  assert.equal(inClusterServer("10.96.0.1", "443"), "https://10.96.0.1:443");
  assert.equal(inClusterServer("fd00:10:96::1", "443"), "https://[fd00:10:96::1]:443");
  assert.equal(inClusterServer("[fd00::1]", "6443"), "https://[fd00::1]:6443");
});

Deno.test({
  name: "in-cluster config reads the service-account files and reaches the API server with them",
  ignore: NO_OPENSSL,
  fn: async () => {
    await using pki = await makePki();
    await Deno.writeTextFile(`${pki.dir}/token`, "sa-token\n");
    await Deno.writeTextFile(`${pki.dir}/namespace`, "ouroboros-system");
    const { server, seen } = configMapServer(pki, "sa-token");
    await using _ = server;
    const config = await loadInClusterConfig({
      env: { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: String(server.addr.port) },
      tokenPath: `${pki.dir}/token`,
      caPath: pki.caPath,
      namespacePath: `${pki.dir}/namespace`,
      clock: new FakeClock(),
    });
    assert.equal(config.server, `https://127.0.0.1:${server.addr.port}`);
    assert.equal(config.namespace, "ouroboros-system");
    assert.equal(config.source, "in-cluster");
    assert.deepEqual(config.caCerts, [pki.caPem]);
    using client = KubeClient.fromConfig(config);
    const cm = await client.get(CONFIG_MAP, { namespace: "kube-system", name: "coredns" });
    assert.deepEqual(cm.data, { Corefile: ".:53 {}" });
    assert.deepEqual(seen, ["Bearer sa-token /api/v1/namespaces/kube-system/configmaps/coredns"]);
  },
});

Deno.test({
  name: "in-cluster config fails clearly outside a pod, without a token, or without a CA; namespace defaults",
  ignore: NO_OPENSSL,
  fn: async () => {
    await using pki = await makePki();
    const env = { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" };
    const paths = {
      tokenPath: `${pki.dir}/token`,
      caPath: pki.caPath,
      namespacePath: `${pki.dir}/namespace`,
    };
    const failure = (options: Parameters<typeof loadInClusterConfig>[0]) =>
      loadInClusterConfig(options).then(() => undefined, (e) => e);

    const outside = await failure({ env: {}, ...paths });
    assert.ok(outside instanceof KubeConfigError);
    assert.match(outside.message, /KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must both be set/);

    const noToken = await failure({ env, ...paths });
    assert.ok(noToken instanceof KubeConfigError);
    assert.match(noToken.message, /service-account token: cannot read the token file .*\/token/);

    await Deno.writeTextFile(paths.tokenPath, "t");
    const noCa = await failure({ env, ...paths, caPath: `${pki.dir}/missing-ca.crt` });
    assert.ok(noCa instanceof KubeConfigError);
    assert.match(noCa.message, /service-account CA file .*missing-ca\.crt does not exist/);

    const badPort = await failure({ env: { ...env, KUBERNETES_SERVICE_PORT: "https" }, ...paths });
    assert.match(String(badPort), /KUBERNETES_SERVICE_PORT is not a port number: https/);

    const config = await loadInClusterConfig({
      env: { KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "443" },
      ...paths,
    });
    assert.equal(config.namespace, "default");
    assert.equal(config.server, "https://[fd00::1]:443");
  },
});

Deno.test({
  name: "a kubeconfig with relative file paths reaches the API server with its CA and token file",
  ignore: NO_OPENSSL,
  fn: async () => {
    await using pki = await makePki();
    const { server, seen } = configMapServer(pki, "file-token");
    await using _ = server;
    await Deno.mkdir(`${pki.dir}/kube/secrets`, { recursive: true });
    await Deno.writeTextFile(`${pki.dir}/kube/secrets/token`, "file-token");
    await Deno.writeTextFile(
      `${pki.dir}/kube/config`,
      `
apiVersion: v1
kind: Config
current-context: test
clusters:
  - name: local
    cluster:
      server: https://localhost:${server.addr.port}
      certificate-authority: ../ca.crt
users:
  - name: me
    user:
      tokenFile: secrets/token
      client-certificate: ../client.crt
      client-key: ../client.key
contexts:
  - name: test
    context: { cluster: local, user: me, namespace: team-a }
`,
    );
    // A relative kubeconfig path is taken from the working directory.
    const config = await loadKubeconfig("kube/config", { cwd: pki.dir, clock: new FakeClock() });
    assert.equal(config.server, `https://localhost:${server.addr.port}`);
    assert.equal(config.namespace, "team-a");
    assert.equal(config.source, `kubeconfig ${pki.dir}/kube/config, context test`);
    assert.deepEqual(config.caCerts, [pki.caPem]);
    assert.deepEqual(config.clientCertificate, { cert: pki.clientCert, key: pki.clientKey });
    assert.equal(config.credentials?.description, `token file ${pki.dir}/kube/secrets/token`);
    using client = KubeClient.fromConfig(config);
    const cm = await client.get(CONFIG_MAP, { namespace: "kube-system", name: "coredns" });
    assert.equal(cm.metadata.resourceVersion, "5");
    assert.deepEqual(seen, ["Bearer file-token /api/v1/namespaces/kube-system/configmaps/coredns"]);
  },
});

Deno.test("loadKubeconfig refuses what cannot work, naming the file, entry and reason", async (t) => {
  await using temp = await tempDir("ouroboros-kubeconfig-");
  const dir = temp.path;
  const PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  const write = async (name: string, body: string) => {
    await Deno.writeTextFile(`${dir}/${name}`, body);
    return `${dir}/${name}`;
  };
  const context = "contexts: [{ name: c, context: { cluster: k, user: u } }]\ncurrent-context: c\n";
  const cases: readonly [string, string, RegExp][] = [
    [
      "insecure-skip-tls-verify",
      `clusters: [{ name: k, cluster: { server: "https://x:6443", insecure-skip-tls-verify: true } }]\nusers: [{ name: u, user: {} }]\n${context}`,
      /cluster "k" sets insecure-skip-tls-verify, which is not supported: Deno's HTTP client cannot skip certificate verification per connection\. Set certificate-authority/,
    ],
    [
      "tls-server-name",
      `clusters: [{ name: k, cluster: { server: "https://x:6443", tls-server-name: kubernetes } }]\nusers: [{ name: u, user: {} }]\n${context}`,
      /cluster "k" sets tls-server-name, which is not supported/,
    ],
    [
      "a missing CA file",
      `clusters: [{ name: k, cluster: { server: "https://x", certificate-authority: ca.pem } }]\nusers: [{ name: u, user: {} }]\n${context}`,
      new RegExp(`cluster "k" certificate-authority ${dir}/ca\\.pem does not exist`),
    ],
    [
      "a CA file that is not PEM",
      `clusters: [{ name: k, cluster: { server: "https://x", certificate-authority: junk.txt } }]\nusers: [{ name: u, user: {} }]\n${context}`,
      /certificate-authority .*junk\.txt is not PEM/,
    ],
    [
      "a missing client key file",
      `clusters: [{ name: k, cluster: { server: "https://x" } }]\nusers: [{ name: u, user: { client-certificate-data: ${
        btoa(PEM)
      }, client-key: nokey.pem } }]\n${context}`,
      /user "u" client-key .*nokey\.pem does not exist/,
    ],
    [
      "auth-provider",
      `clusters: [{ name: k, cluster: { server: "https://x" } }]\nusers: [{ name: u, user: { auth-provider: { name: oidc } } }]\n${context}`,
      /user "u" uses auth-provider "oidc", which was removed from Kubernetes clients; use its exec credential plugin instead/,
    ],
    [
      "two ways to authenticate",
      `clusters: [{ name: k, cluster: { server: "https://x" } }]\nusers: [{ name: u, user: { token: t, exec: { apiVersion: client.authentication.k8s.io/v1, command: x } } }]\n${context}`,
      /user "u" sets more than one way to authenticate: exec, token/,
    ],
    [
      "an unreadable token file and no token",
      `clusters: [{ name: k, cluster: { server: "https://x" } }]\nusers: [{ name: u, user: { tokenFile: gone } }]\n${context}`,
      /user "u": cannot read the token file .*gone/,
    ],
    [
      "a missing context",
      `clusters: []\n${context}`,
      /context "c" names cluster "k", which is not in the kubeconfig/,
    ],
    ["bad YAML", "clusters: [", /kubeconfig is not valid YAML/],
  ];
  await write("junk.txt", "hello");
  for (const [name, body, pattern] of cases) {
    await t.step(name, async () => {
      const path = await write(`${name.replaceAll(" ", "-")}.yaml`, body);
      const error = await loadKubeconfig(path).then(() => undefined, (e) => e);
      assert.ok(error instanceof KubeConfigError, String(error));
      assert.match(error.message, pattern);
      assert.ok(error.message.startsWith(path), error.message);
    });
  }
  await t.step("a kubeconfig that does not exist", async () => {
    const error = await loadKubeconfig(`${dir}/nope`).then(() => undefined, (e) => e);
    assert.ok(error instanceof KubeConfigError);
    assert.equal(error.message, `kubeconfig ${dir}/nope does not exist`);
  });
});

Deno.test("loadKubeconfig keeps insecure-skip-tls-verify harmless on a plain-HTTP server and supports basic auth", async () => {
  await using temp = await tempDir("ouroboros-kubeconfig-");
  const dir = temp.path;
  await Deno.writeTextFile(
    `${dir}/config`,
    `clusters: [{ name: k, cluster: { server: "http://127.0.0.1:8080", insecure-skip-tls-verify: true } }]
users: [{ name: u, user: { username: admin, password: "p:w" } }]
contexts: [{ name: c, context: { cluster: k, user: u } }]
`,
  );
  const config = await loadKubeconfig(`${dir}/config`, { context: "c" });
  assert.equal(config.server, "http://127.0.0.1:8080");
  assert.deepEqual(await config.credentials?.current(), { authorization: `Basic ${btoa("admin:p:w")}` });
});
