import assert from "node:assert/strict";
import { HOSTS_FILE_GRANT, permissionsToRevoke } from "../../lib/controller/permissions.ts";
import { type ClusterConfig, SERVICE_ACCOUNT_DIR } from "../../lib/kube/config.ts";
import { staticCredentials } from "../../lib/kube/credentials.ts";
import { ExecCredentialSource } from "../../lib/kube/exec_plugin.ts";
import { TokenFileSource } from "../../lib/kube/token_file.ts";
import { RESOLV_CONF } from "../../lib/util/resolv_conf.ts";
import { runProbeChild } from "../support/probe_child.ts";
import type { ControllerProbeReport } from "./permission_probe.ts";

/** Runs the probe with exactly the controller's permission set. */
function probe(configuration: string): Promise<ControllerProbeReport> {
  return runProbeChild<ControllerProbeReport>({
    script: "tests/controller/permission_probe.ts",
    permissionSet: "controller",
    args: [configuration],
  });
}

Deno.test("-P=controller: read of any path at start-up (for --kubeconfig), narrowed after it", async (t) => {
  await t.step(
    "in-cluster: only the service-account folder stays readable (the token is re-read)",
    async () => {
      const report = await probe("in-cluster");
      assert.equal(report.asStarted.readAnyFile, "granted");
      assert.equal(report.asStarted.env, "granted");
      assert.equal(report.asStarted.run, "prompt", "the set grants no run");
      assert.equal(report.afterNarrowing.readAnyFile, "prompt");
      assert.equal(report.afterNarrowing.readResolvConf, "prompt");
      assert.equal(report.afterNarrowing.readServiceAccountToken, "granted");
      assert.equal(report.afterNarrowing.env, "prompt");
      assert.equal(report.afterNarrowing.net, "granted");
      assert.equal(report.asStarted.readHostsFile, "granted");
      assert.equal(
        report.afterNarrowing.readHostsFile,
        "prompt",
        "the hosts file entry goes too outside etc-hosts mode",
      );
      assert.equal(report.afterNarrowing.writeHostsFile, "prompt");
      assert.equal(report.afterNarrowing.writeAnyFile, "prompt");
      assert.equal(report.reported.read, "service-account");
      assert.equal(report.reported.write, "none");
    },
  );

  await t.step(
    "in-cluster etc-hosts mode: the hosts file stays readable and writable, nothing else",
    async () => {
      const report = await probe("in-cluster-etc-hosts");
      assert.equal(report.afterNarrowing.readHostsFile, "granted");
      assert.equal(report.afterNarrowing.writeHostsFile, "granted");
      assert.equal(report.afterNarrowing.writeAnyFile, "prompt");
      assert.equal(report.afterNarrowing.readAnyFile, "prompt");
      assert.equal(report.afterNarrowing.readServiceAccountToken, "granted");
      assert.equal(report.reported.write, "hosts-file");
    },
  );

  await t.step(
    "in-cluster etc-hosts mode with --dry-run: the hosts file stays readable, nothing is writable",
    async () => {
      const report = await probe("in-cluster-etc-hosts-dry-run");
      assert.equal(report.afterNarrowing.readHostsFile, "granted");
      assert.equal(report.afterNarrowing.writeHostsFile, "prompt");
      assert.equal(report.afterNarrowing.writeAnyFile, "prompt");
      assert.equal(report.reported.write, "none");
    },
  );

  await t.step("kubeconfig with an inline token: no read access at all afterwards", async () => {
    const report = await probe("kubeconfig");
    assert.equal(report.afterNarrowing.readAnyFile, "prompt");
    assert.equal(report.afterNarrowing.readServiceAccountToken, "prompt");
    assert.equal(report.afterNarrowing.env, "prompt");
    assert.equal(report.reported.read, "none");
  });

  await t.step("kubeconfig with a tokenFile: read stays as granted, and the report says so", async () => {
    const report = await probe("kubeconfig-token-file");
    assert.equal(report.afterNarrowing.readAnyFile, "granted");
    assert.equal(report.afterNarrowing.env, "prompt");
    assert.equal(report.reported.read, "as-granted");
  });
});

/** A cluster configuration as loaded from `source` with `credentials`. */
function configWith(source: string, credentials: ClusterConfig["credentials"]): ClusterConfig {
  return {
    server: "https://10.96.0.1:443",
    caCerts: [],
    namespace: "default",
    source,
    ...(credentials === undefined ? {} : { credentials }),
  };
}

Deno.test("permissionsToRevoke() is the explicit list the controller gives up, by configuration and mode", () => {
  const inCluster = configWith("in-cluster", new TokenFileSource(`${SERVICE_ACCOUNT_DIR}/token`));
  const inline = configWith("kubeconfig /x, context y", staticCredentials({}, "token of user y"));
  const tokenFile = configWith("kubeconfig /x, context y", new TokenFileSource("/x/token"));
  const exec = configWith(
    "kubeconfig /x, context y",
    new ExecCredentialSource({
      apiVersion: "client.authentication.k8s.io/v1",
      command: "/usr/local/bin/credential-helper",
      args: [],
      env: [],
      provideClusterInfo: false,
      interactiveMode: "Never",
    }),
  );
  const after = [{ name: "env" }, { name: "ffi" }, { name: "sys" }];
  const cases: readonly [string, ClusterConfig, { hostsFile?: string; readOnly?: boolean }, unknown[]][] = [
    ["in-cluster", inCluster, {}, [
      { name: "read", path: "/" },
      { name: "read", path: RESOLV_CONF },
      { name: "read", path: HOSTS_FILE_GRANT },
      { name: "write" },
      ...after,
      { name: "run" },
    ]],
    ["in-cluster, etc-hosts mode", inCluster, { hostsFile: HOSTS_FILE_GRANT }, [
      { name: "read", path: "/" },
      { name: "read", path: RESOLV_CONF },
      { name: "write", path: "/" },
      ...after,
      { name: "run" },
    ]],
    ["in-cluster, etc-hosts mode, --dry-run: the hosts file is only read", inCluster, {
      hostsFile: HOSTS_FILE_GRANT,
      readOnly: true,
    }, [
      { name: "read", path: "/" },
      { name: "read", path: RESOLV_CONF },
      { name: "write" },
      ...after,
      { name: "run" },
    ]],
    ["in-cluster, etc-hosts mode on a path the set does not name", inCluster, { hostsFile: "/etc/hosts" }, [
      ...after,
      { name: "run" },
    ]],
    ["kubeconfig with an inline token", inline, {}, [{ name: "read" }, { name: "write" }, ...after, {
      name: "run",
    }]],
    ["kubeconfig with an inline token, etc-hosts mode", inline, { hostsFile: HOSTS_FILE_GRANT }, [
      { name: "read", path: "/" },
      { name: "read", path: RESOLV_CONF },
      { name: "read", path: SERVICE_ACCOUNT_DIR },
      { name: "write", path: "/" },
      ...after,
      { name: "run" },
    ]],
    ["kubeconfig with a tokenFile", tokenFile, {}, [{ name: "write" }, ...after, { name: "run" }]],
    ["kubeconfig with an exec plugin: run stays", exec, {}, [{ name: "read" }, { name: "write" }, ...after]],
  ];
  for (const [name, config, options, expected] of cases) {
    assert.deepEqual(permissionsToRevoke(config, options), expected, name);
  }
});
