import assert from "node:assert/strict";
import { SUBCOMMANDS } from "../main.ts";
import { PROXY_WORKER_URL } from "../lib/proxy/workers/worker_pool.ts";
import { ROOT } from "./support/ouroboros_process.ts";
import { PROBE_ENV, type ProbeReport } from "./support/permission_probe.ts";
import { runProbeChild } from "./support/probe_child.ts";
import { tempDir } from "./support/temp_dir.ts";

const PROBE = "tests/support/permission_probe.ts";

/** Runs the probe with exactly the proxy's permission set and returns its report. */
function runProbe(writeTarget: string): Promise<ProbeReport> {
  return runProbeChild<ProbeReport>({
    script: PROBE,
    permissionSet: "proxy",
    args: [writeTarget],
    // HOME is set, so reading it fails for want of permission, not because it is missing.
    env: { HOME: "/root", [PROBE_ENV]: "from-the-test" },
  });
}

Deno.test("-P=proxy grants the proxy's needs and nothing else; revocation drops even those", async (t) => {
  await using temp = await tempDir("ouroboros-permissions-");
  const dir = temp.path;
  const writeTarget = `${dir}/written-by-probe`;
  const report = await runProbe(writeTarget);

  await t.step("as started: OUROBOROS_PROXY_* env and /etc/resolv.conf are readable", () => {
    assert.deepEqual(report.asStarted.readProxyEnv, { outcome: "ok", value: "from-the-test" });
    assert.equal(report.asStarted.readResolvConf, "ok");
    assert.equal(report.asStarted.listenTcp, "ok");
  });

  await t.step("as started: other files, other env, writing and spawning are NotCapable", () => {
    assert.equal(report.asStarted.readPasswd, "NotCapable");
    assert.equal(report.asStarted.readHomeEnv, "NotCapable");
    assert.equal(report.asStarted.writeFile, "NotCapable");
    assert.equal(report.asStarted.spawnProcess, "NotCapable");
  });

  await t.step(
    "after revoking as the proxy does: resolv.conf and proxy env fail too, the network stays",
    () => {
      assert.equal(report.afterRevoke.readResolvConf, "NotCapable");
      assert.equal(report.afterRevoke.readProxyEnv.outcome, "NotCapable");
      assert.equal(report.afterRevoke.readPasswd, "NotCapable");
      assert.equal(report.afterRevoke.readHomeEnv, "NotCapable");
      assert.equal(report.afterRevoke.writeFile, "NotCapable");
      assert.equal(report.afterRevoke.spawnProcess, "NotCapable");
      assert.equal(report.afterRevoke.listenTcp, "ok");
      for (const name of ["read", "write", "env", "run"]) assert.ok(report.revoked.includes(name), name);
    },
  );

  await t.step("nothing was written", async () => {
    await assert.rejects(Deno.stat(writeTarget), Deno.errors.NotFound);
  });
});

type PermissionSet = Record<string, boolean | string[] | undefined>;

Deno.test("deno.json: every subcommand in main.ts has a permission set named after it, the compiled binary's set covers them all, and the compile task bakes it", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`)) as {
    permissions: Record<string, PermissionSet>;
    tasks: Record<string, { command: string }>;
  };
  const binary = config.permissions.binary;
  assert.ok(binary, "deno.json must declare the binary set");
  const covers = (
    granted: boolean | string[] | undefined,
    needed: boolean | string[] | undefined,
  ): boolean => {
    if (needed === undefined || needed === false) return true;
    if (granted === true) return true;
    if (needed === true || granted === undefined || granted === false) return false;
    // "/" covers every path, the proxy's own source (`./lib`, which its workers load) too.
    if (granted.includes("/")) return true;
    return needed.every((item) =>
      granted.some((g) => g === item || (g.endsWith("*") && item.startsWith(g.slice(0, -1))))
    );
  };
  const names = SUBCOMMANDS.map((subcommand) => subcommand.name);
  for (const known of ["controller", "proxy"]) assert.ok(names.includes(known), `main.ts lists ${known}`);
  for (const { name: subcommand } of SUBCOMMANDS) {
    const set = config.permissions[subcommand];
    assert.ok(set, `deno.json must declare a ${subcommand} permission set`);
    for (const [name, needed] of Object.entries(set)) {
      assert.ok(
        covers(binary[name], needed),
        `the binary set does not grant the ${subcommand} set's ${name}: ${JSON.stringify(needed)}`,
      );
    }
  }
  for (const name of ["run", "ffi", "sys", "write"]) {
    assert.equal(config.permissions.proxy?.[name], undefined, `the proxy set must not grant ${name}`);
  }
  assert.match(config.tasks.compile?.command ?? "", /deno compile .*-P=binary .*main\.ts/);
  // The proxy's workers are loaded by URL, not imported: the binary must be told to carry them.
  assert.match(
    config.tasks.compile?.command ?? "",
    new RegExp(` --include ${new URL(PROXY_WORKER_URL).pathname.slice(ROOT.length)} `),
  );
  assert.ok((config as { unstable?: string[] }).unstable?.includes("net"), "reusePort needs --unstable-net");
});
