import assert from "node:assert/strict";
import { parseKubeconfig, resolvePath } from "../../lib/kube/kubeconfig.ts";
import { selectContext } from "../../lib/kube/select_context.ts";
import { parse } from "yaml";

const PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
const PEM_B64 = btoa(PEM);

const FULL = `
apiVersion: v1
kind: Config
current-context: prod
preferences: {}
clusters:
  - name: prod-cluster
    cluster:
      server: https://prod.example.com:6443/
      certificate-authority-data: ${PEM_B64}
      certificate-authority: ignored-when-data-is-set.crt
  - name: dev-cluster
    cluster:
      server: https://10.0.0.1
      certificate-authority: certs/../pki/ca.crt
      proxy-url: socks5://127.0.0.1:1080
  - name: lab
    cluster:
      server: https://lab:6443
      insecure-skip-tls-verify: true
      tls-server-name: kubernetes
users:
  - name: alice
    user:
      client-certificate-data: ${PEM_B64}
      client-key-data: ${btoa("-----BEGIN PRIVATE KEY-----\nk\n-----END PRIVATE KEY-----\n")}
  - name: bob
    user:
      client-certificate: bob.crt
      client-key: /abs/bob.key
      token: sekret
  - name: carol
    user:
      tokenFile: ./carol/token
  - name: eks
    user:
      exec:
        apiVersion: client.authentication.k8s.io/v1beta1
        command: aws
        args: [eks, get-token, --cluster-name, prod]
        env:
          - name: AWS_PROFILE
            value: prod
        provideClusterInfo: true
        interactiveMode: Never
        installHint: install the aws cli
  - name: local-plugin
    user:
      exec:
        apiVersion: client.authentication.k8s.io/v1
        command: ./bin/get-token
  - name: basic
    user:
      username: admin
      password: pw
  - name: legacy
    user:
      auth-provider:
        name: gcp
contexts:
  - name: prod
    context:
      cluster: prod-cluster
      user: alice
      namespace: shop
  - name: dev
    context:
      cluster: dev-cluster
      user: bob
  - name: anonymous
    context:
      cluster: dev-cluster
`;

function parsed(text: string, baseDir = "/home/jane/.kube") {
  const result = parseKubeconfig(text, { baseDir, parseYaml: parse });
  assert.ok(result.ok, result.ok ? "" : result.reason);
  return result.value;
}

Deno.test("parseKubeconfig reads every cluster field form", () => {
  const config = parsed(FULL);
  assert.equal(config.currentContext, "prod");
  assert.deepEqual(config.clusters.get("prod-cluster"), {
    name: "prod-cluster",
    server: "https://prod.example.com:6443",
    certificateAuthority: { kind: "data", pem: PEM },
    insecureSkipTlsVerify: false,
  });
  assert.deepEqual(config.clusters.get("dev-cluster"), {
    name: "dev-cluster",
    server: "https://10.0.0.1",
    certificateAuthority: { kind: "file", path: "/home/jane/.kube/pki/ca.crt" },
    insecureSkipTlsVerify: false,
    proxyUrl: "socks5://127.0.0.1:1080",
  });
  assert.deepEqual(config.clusters.get("lab"), {
    name: "lab",
    server: "https://lab:6443",
    insecureSkipTlsVerify: true,
    tlsServerName: "kubernetes",
  });
});

Deno.test("parseKubeconfig reads every user field form, resolving relative paths against the file's folder", () => {
  const config = parsed(FULL);
  assert.deepEqual(config.users.get("alice"), {
    name: "alice",
    clientCertificate: { kind: "data", pem: PEM },
    clientKey: { kind: "data", pem: "-----BEGIN PRIVATE KEY-----\nk\n-----END PRIVATE KEY-----\n" },
  });
  assert.deepEqual(config.users.get("bob"), {
    name: "bob",
    token: "sekret",
    clientCertificate: { kind: "file", path: "/home/jane/.kube/bob.crt" },
    clientKey: { kind: "file", path: "/abs/bob.key" },
  });
  assert.deepEqual(config.users.get("carol"), { name: "carol", tokenFile: "/home/jane/.kube/carol/token" });
  assert.deepEqual(config.users.get("eks"), {
    name: "eks",
    exec: {
      apiVersion: "client.authentication.k8s.io/v1beta1",
      command: "aws",
      args: ["eks", "get-token", "--cluster-name", "prod"],
      env: [{ name: "AWS_PROFILE", value: "prod" }],
      provideClusterInfo: true,
      interactiveMode: "Never",
      installHint: "install the aws cli",
    },
  });
  // A command with a slash is a path relative to the kubeconfig; a bare name stays for PATH.
  assert.equal(config.users.get("local-plugin")?.exec?.command, "/home/jane/.kube/bin/get-token");
  assert.equal(config.users.get("local-plugin")?.exec?.interactiveMode, "IfAvailable");
  assert.deepEqual(config.users.get("basic"), { name: "basic", username: "admin", password: "pw" });
  assert.deepEqual(config.users.get("legacy"), { name: "legacy", authProvider: "gcp" });
});

Deno.test("selectContext picks current-context, or the one asked for, with its cluster, user and namespace", () => {
  const config = parsed(FULL);
  const prod = selectContext(config);
  assert.ok(prod.ok);
  assert.deepEqual(
    [prod.value.context.name, prod.value.cluster.name, prod.value.user?.name, prod.value.namespace],
    ["prod", "prod-cluster", "alice", "shop"],
  );
  const dev = selectContext(config, "dev");
  assert.ok(dev.ok);
  assert.deepEqual([dev.value.cluster.name, dev.value.user?.name, dev.value.namespace], [
    "dev-cluster",
    "bob",
    "default",
  ]);
  const anonymous = selectContext(config, "anonymous");
  assert.ok(anonymous.ok);
  assert.equal(anonymous.value.user, undefined);
});

Deno.test("selectContext names what is missing", async (t) => {
  const base = `
clusters: [{ name: c, cluster: { server: "https://x" } }]
users: [{ name: u, user: { token: t } }]
contexts:
  - { name: good, context: { cluster: c, user: u } }
  - { name: no-cluster, context: { cluster: gone, user: u } }
  - { name: no-user, context: { cluster: c, user: ghost } }
`;
  const cases: readonly [string, string, string | undefined, string][] = [
    [
      "no current-context",
      base,
      undefined,
      'kubeconfig sets no current-context and no context was chosen (defined: "good", "no-cluster", "no-user")',
    ],
    [
      "unknown context",
      base,
      "staging",
      'context "staging" is not in the kubeconfig (defined: "good", "no-cluster", "no-user")',
    ],
    [
      "current-context names a missing context",
      `current-context: gone\n${base}`,
      undefined,
      'context "gone" is not in the kubeconfig (defined: "good", "no-cluster", "no-user")',
    ],
    [
      "missing cluster",
      base,
      "no-cluster",
      'context "no-cluster" names cluster "gone", which is not in the kubeconfig (defined: "c")',
    ],
    [
      "missing user",
      base,
      "no-user",
      'context "no-user" names user "ghost", which is not in the kubeconfig (defined: "u")',
    ],
    ["no contexts at all", "clusters: []", "x", 'context "x" is not in the kubeconfig (none defined)'],
  ];
  for (const [name, text, context, reason] of cases) {
    await t.step(name, () => {
      assert.deepEqual(selectContext(parsed(text), context), { ok: false, reason });
    });
  }
});

Deno.test("parseKubeconfig refuses malformed files with a reason naming the entry and field", async (t) => {
  const cases: readonly [string, string, string][] = [
    ["empty", "", "kubeconfig is empty"],
    ["a YAML list", "- a\n- b\n", "kubeconfig is not a YAML mapping"],
    ["a scalar", "hello", "kubeconfig is not a YAML mapping"],
    ["clusters a mapping", "clusters: { a: 1 }", "kubeconfig: clusters is an object, not a list"],
    [
      "cluster without name",
      "clusters: [{ cluster: { server: https://x } }]",
      "kubeconfig: clusters[0].name is missing",
    ],
    [
      "duplicate names",
      "clusters: [{ name: a, cluster: { server: https://x } }, { name: a, cluster: { server: https://y } }]",
      'kubeconfig: clusters[1] repeats the name "a"',
    ],
    [
      "no server",
      "clusters: [{ name: a, cluster: {} }]",
      'kubeconfig: clusters["a"].cluster.server is missing',
    ],
    [
      "server not a URL",
      "clusters: [{ name: a, cluster: { server: 'not a url' } }]",
      'kubeconfig: clusters["a"].cluster.server is not a URL: "not a url"',
    ],
    [
      "server not http(s)",
      "clusters: [{ name: a, cluster: { server: 'ftp://x' } }]",
      'kubeconfig: clusters["a"].cluster.server must be an https:// or http:// URL, not "ftp://x"',
    ],
    [
      "bad CA base64",
      "clusters: [{ name: a, cluster: { server: https://x, certificate-authority-data: '!!!' } }]",
      'kubeconfig: clusters["a"].cluster.certificate-authority-data is not valid base64',
    ],
    [
      "CA data not PEM",
      `clusters: [{ name: a, cluster: { server: https://x, certificate-authority-data: ${btoa("hello")} } }]`,
      'kubeconfig: clusters["a"].cluster.certificate-authority-data does not decode to PEM (no -----BEGIN line)',
    ],
    [
      "insecure flag a string",
      "clusters: [{ name: a, cluster: { server: https://x, insecure-skip-tls-verify: 'yes' } }]",
      'kubeconfig: clusters["a"].cluster.insecure-skip-tls-verify is a string, not a boolean',
    ],
    [
      "token a number",
      "users: [{ name: u, user: { token: 12345 } }]",
      'kubeconfig: users["u"].user.token is a number, not a string',
    ],
    [
      "certificate without key",
      `users: [{ name: u, user: { client-certificate-data: ${PEM_B64} } }]`,
      'kubeconfig: users["u"].user sets a client certificate without its key, or a key without its certificate',
    ],
    [
      "exec without command",
      "users: [{ name: u, user: { exec: { apiVersion: client.authentication.k8s.io/v1 } } }]",
      'kubeconfig: users["u"].user.exec.command is missing',
    ],
    [
      "exec with an old apiVersion",
      "users: [{ name: u, user: { exec: { apiVersion: client.authentication.k8s.io/v1alpha1, command: x } } }]",
      'kubeconfig: users["u"].user.exec.apiVersion is "client.authentication.k8s.io/v1alpha1"; supported: client.authentication.k8s.io/v1, client.authentication.k8s.io/v1beta1',
    ],
    [
      "exec args a string",
      "users: [{ name: u, user: { exec: { apiVersion: client.authentication.k8s.io/v1, command: x, args: '-v' } } }]",
      'kubeconfig: users["u"].user.exec.args is a string, not a list',
    ],
    [
      "exec env without name",
      "users: [{ name: u, user: { exec: { apiVersion: client.authentication.k8s.io/v1, command: x, env: [{ value: v }] } } }]",
      'kubeconfig: users["u"].user.exec.env[0].name is missing',
    ],
    [
      "context without cluster",
      "contexts: [{ name: c, context: { user: u } }]",
      'kubeconfig: contexts["c"].context.cluster is missing',
    ],
    [
      "current-context a list",
      "current-context: [a]",
      "kubeconfig: current-context is an array, not a string",
    ],
  ];
  for (const [name, text, reason] of cases) {
    await t.step(name, () => {
      assert.deepEqual(parseKubeconfig(text, { baseDir: "/k", parseYaml: parse }), { ok: false, reason });
    });
  }
});

Deno.test("parseKubeconfig reports YAML syntax errors as invalid YAML", () => {
  const result = parseKubeconfig("clusters:\n  - name: a\n   cluster: {server: x\n", {
    baseDir: "/k",
    parseYaml: parse,
  });
  assert.equal(result.ok, false);
  assert.match(result.ok ? "" : result.reason, /^kubeconfig is not valid YAML: /);
  const duplicate = parseKubeconfig("current-context: a\ncurrent-context: b\n", {
    baseDir: "/k",
    parseYaml: parse,
  });
  assert.match(duplicate.ok ? "" : duplicate.reason, /^kubeconfig is not valid YAML: /);
});

Deno.test("resolvePath joins relative paths to the folder and normalises . and ..", async (t) => {
  const cases: readonly [string, string, string][] = [
    ["/home/jane/.kube", "ca.crt", "/home/jane/.kube/ca.crt"],
    ["/home/jane/.kube", "./certs/ca.crt", "/home/jane/.kube/certs/ca.crt"],
    ["/home/jane/.kube", "../ca.crt", "/home/jane/ca.crt"],
    ["/home/jane/.kube/", "a//b/./c", "/home/jane/.kube/a/b/c"],
    ["/home/jane/.kube", "/etc/ca.crt", "/etc/ca.crt"],
    ["/", "../../x", "/x"],
  ];
  for (const [base, path, want] of cases) {
    await t.step(`${base} + ${path}`, () => assert.equal(resolvePath(base, path), want));
  }
});
