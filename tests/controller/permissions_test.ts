import assert from "node:assert/strict";
import { ROOT } from "../support/ouroboros_process.ts";
import type { ControllerProbeReport } from "./permission_probe.ts";

/** Runs the probe with exactly the controller's permission set. */
async function probe(configuration: string): Promise<ControllerProbeReport> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      "-P=controller",
      "tests/controller/permission_probe.ts",
      configuration,
    ],
    cwd: ROOT,
    clearEnv: true,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, `the probe failed:\n${stderr}`);
  return JSON.parse(new TextDecoder().decode(output.stdout)) as ControllerProbeReport;
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
