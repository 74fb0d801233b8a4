import assert from "node:assert/strict";
import { KubeCredentialError } from "../../lib/kube/credentials.ts";
import { ExecCredentialSource } from "../../lib/kube/exec_plugin.ts";
import type { ExecConfig } from "../../lib/kube/kubeconfig.ts";
import { Transport } from "../../lib/kube/transport.ts";
import { LogRecorder } from "../support/log_recorder.ts";
import { skipWithout } from "../support/tools.ts";
import { startAuthServer } from "./auth_server.ts";
import { FakeClock } from "../support/fake_clock.ts";
import { startOpensslServer } from "./openssl_server.ts";
import { makePki } from "../support/pki.ts";
import { tempDir } from "../support/temp_dir.ts";

const NO_SH = skipWithout("exec credential plugin tests", ["sh"]);

/**
 * A plugin that counts its runs in `runs`, records its arguments and environment, and prints an
 * ExecCredential with token `tok-<run>` expiring at `$EXPIRES` (when set).
 */
const PLUGIN = `#!/bin/sh
dir=$(dirname "$0")
n=$(cat "$dir/runs" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > "$dir/runs"
printf '%s\\n' "$@" > "$dir/args"
printf '%s' "$KUBERNETES_EXEC_INFO" > "$dir/exec-info"
printf '%s' "$PLUGIN_SETTING" > "$dir/setting"
if [ -n "$FAIL" ]; then echo "cannot reach the identity provider" >&2; exit 3; fi
expiry=""
if [ -n "$EXPIRES" ]; then expiry=",\\"expirationTimestamp\\":\\"$EXPIRES\\""; fi
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"tok-%s"%s}}' "$n" "$expiry"
`;

async function withPlugin(fn: (dir: string, config: ExecConfig) => Promise<void>): Promise<void> {
  await using temp = await tempDir("ouroboros-exec-");
  const dir = temp.path;
  await Deno.writeTextFile(`${dir}/plugin.sh`, PLUGIN, { mode: 0o755 });
  await fn(dir, {
    apiVersion: "client.authentication.k8s.io/v1",
    command: `${dir}/plugin.sh`,
    args: ["get-token", "--cluster", "prod"],
    env: [{ name: "PLUGIN_SETTING", value: "from-kubeconfig" }],
    provideClusterInfo: false,
    interactiveMode: "Never",
  });
}

const runs = async (dir: string) => Number((await Deno.readTextFile(`${dir}/runs`)).trim());

Deno.test({
  name: "an exec plugin runs once, gets its args, env and KUBERNETES_EXEC_INFO, and its token is sent",
  ignore: NO_SH,
  fn: () =>
    withPlugin(async (dir, config) => {
      await using server = startAuthServer(["tok-1"]);
      using transport = new Transport({ server: server.url, credentials: new ExecCredentialSource(config) });
      await transport.json({ method: "GET", path: "/api" });
      await transport.json({ method: "GET", path: "/api" });
      assert.deepEqual(server.seen, ["Bearer tok-1", "Bearer tok-1"]);
      assert.equal(await runs(dir), 1, "a credential without expiry is reused");
      assert.equal(await Deno.readTextFile(`${dir}/args`), "get-token\n--cluster\nprod\n");
      assert.equal(await Deno.readTextFile(`${dir}/setting`), "from-kubeconfig");
      assert.deepEqual(JSON.parse(await Deno.readTextFile(`${dir}/exec-info`)), {
        apiVersion: "client.authentication.k8s.io/v1",
        kind: "ExecCredential",
        spec: { interactive: false },
      });
    }),
});

Deno.test({
  name: "an exec credential is renewed shortly before its expirationTimestamp, and each run is logged",
  ignore: NO_SH,
  fn: () =>
    withPlugin(async (dir, config) => {
      const expires = Date.UTC(2030, 0, 1, 12);
      let now = expires - 3_600_000;
      const log = new LogRecorder();
      const source = new ExecCredentialSource(
        { ...config, env: [...config.env, { name: "EXPIRES", value: new Date(expires).toISOString() }] },
        { now: () => now, clock: new FakeClock(), log },
      );
      assert.deepEqual(await source.current(), { authorization: "Bearer tok-1" });
      now = expires - 60_000;
      assert.deepEqual(await source.current(), { authorization: "Bearer tok-1" });
      now = expires - 5_000;
      assert.deepEqual(await source.current(), { authorization: "Bearer tok-2" });
      assert.equal(await runs(dir), 2);
      const supplied = {
        level: "debug",
        message: "exec plugin supplied a credential",
        properties: { command: config.command, expiresAt: "2030-01-01T12:00:00.000Z" },
      };
      assert.deepEqual(log.entries, [supplied, supplied]);
    }),
});

Deno.test({
  name: "after a 401 the exec plugin runs again and the request is retried with its new token",
  ignore: NO_SH,
  fn: () =>
    withPlugin(async (dir, config) => {
      await using server = startAuthServer(["tok-2"]);
      using transport = new Transport({ server: server.url, credentials: new ExecCredentialSource(config) });
      await transport.json({ method: "GET", path: "/api" });
      assert.deepEqual(server.seen, ["Bearer tok-1", "Bearer tok-2"]);
      assert.equal(await runs(dir), 2);
    }),
});

Deno.test({
  name: "concurrent requests share one plugin run",
  ignore: NO_SH,
  fn: () =>
    withPlugin(async (dir, config) => {
      const source = new ExecCredentialSource(config);
      const all = await Promise.all([source.current(), source.current(), source.current()]);
      assert.deepEqual(all.map((c) => c.authorization), ["Bearer tok-1", "Bearer tok-1", "Bearer tok-1"]);
      assert.equal(await runs(dir), 1);
    }),
});

Deno.test({
  name: "a failing or missing plugin gives a KubeCredentialError with its exit code, stderr or install hint",
  ignore: NO_SH,
  fn: () =>
    withPlugin(async (dir, config) => {
      const failing = new ExecCredentialSource({ ...config, env: [{ name: "FAIL", value: "1" }] });
      const error = await failing.current().then(() => undefined, (e) => e);
      assert.ok(error instanceof KubeCredentialError);
      assert.match(error.message, /failed with exit code 3: cannot reach the identity provider/);

      const missing = new ExecCredentialSource({
        ...config,
        command: `${dir}/no-such-plugin`,
        installHint: "Install it with: brew install example-auth",
      });
      const notFound = await missing.current().then(() => undefined, (e) => e);
      assert.ok(notFound instanceof KubeCredentialError);
      assert.match(notFound.message, /cannot run exec plugin .*no-such-plugin/);
      assert.match(notFound.message, /Install it with: brew install example-auth/);

      assert.throws(
        () => new ExecCredentialSource({ ...config, interactiveMode: "Always" }),
        (e: unknown) => e instanceof KubeCredentialError && /interactive terminal/.test(e.message),
      );
    }),
});

Deno.test({
  name: "a client certificate from an exec plugin is presented in the TLS handshake",
  ignore: NO_SH || skipWithout("exec plugin client certificate test", ["openssl"]),
  fn: async () => {
    await using pki = await makePki();
    await Deno.writeTextFile(`${pki.dir}/ok.json`, '{"kind":"Status","status":"Success"}');
    const script = `${pki.dir}/cert-plugin.sh`;
    await Deno.writeTextFile(
      script,
      `#!/bin/sh
printf '%s' '${
        JSON.stringify({
          apiVersion: "client.authentication.k8s.io/v1beta1",
          kind: "ExecCredential",
          status: { clientCertificateData: pki.clientCert, clientKeyData: pki.clientKey },
        })
      }'
`,
      { mode: 0o755 },
    );
    await using server = await startOpensslServer(pki);
    using transport = new Transport({
      server: server.url,
      caCerts: [pki.caPem],
      credentials: new ExecCredentialSource({
        apiVersion: "client.authentication.k8s.io/v1beta1",
        command: script,
        args: [],
        env: [],
        provideClusterInfo: false,
        interactiveMode: "Never",
      }),
    });
    assert.deepEqual(await transport.json({ method: "GET", path: "/ok.json" }), {
      kind: "Status",
      status: "Success",
    });
  },
});
