/**
 * `ouroboros controller --dry-run` and `--once` end to end, in every mode (coredns,
 * coredns-import, etc-hosts, external-dns with both outputs): the real command as a child process
 * with exactly the `controller` permission set, against the fake API server, checked the way an
 * operator would check a preview: the audit log holds no write request (no POST, PUT, PATCH or
 * DELETE, Events included), the hosts file keeps its bytes and mtime, the diff is logged once at
 * INFO and again only at DEBUG, and `--once` prints the diff on stdout and exits 0, 3 or 1.
 *
 * @module
 */

import assert from "node:assert/strict";
import { type Cluster, startCluster } from "./cluster_fixture.ts";
import { applyPatch } from "../support/apply_patch.ts";
import type { AuditEntry } from "../support/fake_apiserver/mod.ts";
import { type LogLine, parseLogLines, runOuroboros, startController } from "../support/ouroboros_process.ts";
import { metric } from "../support/scrape.ts";
import { waitFor } from "../support/wait.ts";

const PREVIEW = "dry run: the target would change; nothing written";
const DNS_API = "externaldns.k8s.io/v1alpha1";

/** One mode as these tests drive it. */
interface ModeCase {
  readonly name: string;
  /** Flags besides the cluster's. */
  readonly flags: (cluster: Cluster) => string[];
  readonly env?: Record<string, string>;
  /** Seeds what the mode needs (the import ConfigMap is seeded by `startCluster`). */
  readonly seed?: (cluster: Cluster) => Promise<void> | void;
  /** What the mode writes, as text (compared before and after a dry run). */
  readonly target: (cluster: Cluster) => string;
  /** The text a single-file diff applies to, when the target is one text (not records). */
  readonly text?: (cluster: Cluster) => string;
  /** The first line of every diff section. */
  readonly header: RegExp;
}

const hostsPath = (cluster: Cluster) => `${cluster.dir}/hosts`;
const HOSTS_TEXT = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost\n";
const importKey = (cluster: Cluster) =>
  ((cluster.server.get("v1", "ConfigMap", "kube-system", "coredns-custom")?.data ?? {}) as Record<
    string,
    string
  >)[
    "ouroboros.override"
  ] ?? "";
const externalDns = (output: "crd" | "service"): ModeCase => ({
  name: `external-dns (${output})`,
  flags: () => [
    "--mode=external-dns",
    `--external-dns-output=${output}`,
    "--external-dns-namespace=ouroboros",
    "--proxy-service-namespace=ouroboros",
  ],
  env: { OUROBOROS_INSTANCE: "release" },
  seed: (cluster) => cluster.service("ouroboros/ouroboros-proxy", ["10.96.0.20"]),
  target: (cluster) =>
    JSON.stringify(
      output === "crd"
        ? cluster.server.list(DNS_API, "DNSEndpoint", "ouroboros")
        : cluster.server.list("v1", "Service", "ouroboros").filter((service) =>
          (service.metadata as Record<string, unknown>).name !== "ouroboros-proxy"
        ),
    ),
  header: output === "crd" ? /^--- a\/ouroboros\/DNSEndpoint\// : /^--- a\/ouroboros\/Service\//,
});

const MODES: readonly ModeCase[] = [
  {
    name: "coredns",
    flags: () => ["--mode=coredns"],
    target: (cluster) => cluster.corefile(),
    text: (cluster) => cluster.corefile(),
    header: /^--- a\/kube-system\/coredns\[Corefile\]$/,
  },
  {
    name: "coredns-import",
    flags: () => ["--mode=coredns-import"],
    target: importKey,
    text: importKey,
    header: /^--- a\/kube-system\/coredns-custom\[ouroboros\.override\]$/,
  },
  {
    name: "etc-hosts",
    flags: (cluster) => ["--mode=etc-hosts", "--proxy-ip=10.96.0.20", `--etc-hosts=${hostsPath(cluster)}`],
    seed: (cluster) => Deno.writeTextFile(hostsPath(cluster), HOSTS_TEXT),
    target: (cluster) => Deno.readTextFileSync(hostsPath(cluster)),
    text: (cluster) => Deno.readTextFileSync(hostsPath(cluster)),
    header: /^--- a\/.*\/hosts$/,
  },
  externalDns("crd"),
  externalDns("service"),
];

/** A cluster seeded for `mode`, with one Ingress of two hostnames. */
async function clusterFor(mode: ModeCase): Promise<Cluster> {
  const cluster = await startCluster({ importConfigMap: true });
  await mode.seed?.(cluster);
  cluster.ingress("shop/web", { tls: ["shop.example.com", "www.shop.example.com"] });
  return cluster;
}

/** Write requests (anything but GET) the fake API server answered. */
function writeRequests(cluster: Cluster): AuditEntry[] {
  return cluster.server.audit.filter((entry) => entry.method !== "GET");
}

/** Every diff section header of `diff`. */
function headers(diff: string): string[] {
  return diff.split("\n").filter((line) => line.startsWith("--- a/"));
}

for (const mode of MODES) {
  Deno.test(`controller --dry-run (${mode.name}): runs as usual, writes nothing, logs the diff once and its repeats at DEBUG`, async () => {
    await using cluster = await clusterFor(mode);
    const before = mode.target(cluster);
    const mtime = mode.name === "etc-hosts"
      ? (await Deno.stat(hostsPath(cluster))).mtime?.getTime()
      : undefined;
    await using controller = await startController(
      [...cluster.flags, ...mode.flags(cluster), "--dry-run", "--resync=1s", "--log-level=debug"],
      mode.env === undefined ? {} : { env: mode.env },
    );
    assert.equal(controller.starting.dryRun, true);
    assert.equal(controller.starting.writeAccess, "none", "a dry run keeps no write access at all");

    const previews = () => controller.logs.filter((line) => line.msg === PREVIEW);
    const first = await controller.explain(() =>
      controller.waitForLog("the preview", (line) => line.msg === PREVIEW)
    );
    assert.equal(first.level, "INFO");
    const diff = String(first.diff);
    assert.ok(headers(diff).length > 0 && headers(diff).every((line) => mode.header.test(line)), diff);
    assert.match(diff, /^\+.*www\.shop\.example\.com/m);
    if (mode.text !== undefined) {
      assert.match(applyPatch(mode.text(cluster), diff), /www\.shop\.example\.com/);
    }

    await controller.explain(() =>
      controller.waitForLog("a repeat at a resync", (line) => line.msg === PREVIEW && line.repeated === true)
    );
    const repeat = previews().find((line) => line.repeated === true) as LogLine;
    assert.equal(repeat.level, "DEBUG");
    assert.equal(repeat.diff, diff, "the same diff");
    assert.equal(previews().filter((line) => line.level === "INFO").length, 1, "said at INFO once");

    await waitFor("/readyz 200", async () => (await controller.healthGet("/readyz")).status === 200);
    assert.ok(
      await metric(controller, ["ouroboros_controller_reconciles_total", { result: "previewed" }]) >= 2,
    );
    assert.equal(await metric(controller, ["ouroboros_controller_writes_total", {}]), 0);

    controller.kill("SIGTERM");
    assert.equal((await controller.status).code, 0);
    assert.deepEqual(writeRequests(cluster).map((entry) => `${entry.method} ${entry.path}`), []);
    assert.equal(mode.target(cluster), before, "the target is as it was");
    if (mtime !== undefined) assert.equal((await Deno.stat(hostsPath(cluster))).mtime?.getTime(), mtime);
  });

  Deno.test(`controller --once (${mode.name}): exit 3 and the diff on stdout; without --dry-run it writes once; then exit 0`, async () => {
    await using cluster = await clusterFor(mode);
    const env = mode.env === undefined ? {} : { env: mode.env };
    const once = (...extra: string[]) =>
      runOuroboros(["controller", ...cluster.flags, ...mode.flags(cluster), "--once", ...extra], env);
    const before = mode.target(cluster);
    const mtime = mode.name === "etc-hosts"
      ? (await Deno.stat(hostsPath(cluster))).mtime?.getTime()
      : undefined;

    const preview = await once("--dry-run");
    assert.equal(preview.code, 3, preview.stderr);
    assert.ok(headers(preview.stdout).every((line) => mode.header.test(line)), preview.stdout);
    assert.match(preview.stdout, /^\+.*shop\.example\.com/m);
    const logged = parseLogLines(preview.stderr);
    assert.equal(
      logged.find((line) => line.msg === PREVIEW)?.diff,
      preview.stdout,
      "stdout is the logged diff",
    );
    assert.equal(
      logged.find((line) => line.msg === "controller starting")?.health,
      "off",
      "no health listener",
    );
    assert.deepEqual(writeRequests(cluster), []);
    assert.equal(mode.target(cluster), before);
    if (mtime !== undefined) assert.equal((await Deno.stat(hostsPath(cluster))).mtime?.getTime(), mtime);

    const run = await once();
    assert.equal(run.code, 3, run.stderr);
    assert.equal(run.stdout, preview.stdout, "the write is what the preview showed");
    if (mode.name !== "etc-hosts") {
      assert.ok(writeRequests(cluster).length > 0, "without --dry-run it writes");
    }
    if (mode.text !== undefined) assert.equal(applyPatch(before, run.stdout), mode.text(cluster));
    else assert.notEqual(mode.target(cluster), before);

    const writes = writeRequests(cluster).length;
    const written = mode.name === "etc-hosts"
      ? (await Deno.stat(hostsPath(cluster))).mtime?.getTime()
      : undefined;
    const again = await once();
    assert.deepEqual([again.code, again.stdout], [0, ""], again.stderr);
    const previewAgain = await once("--dry-run");
    assert.deepEqual([previewAgain.code, previewAgain.stdout], [0, ""], previewAgain.stderr);
    assert.equal(writeRequests(cluster).length, writes, "a target that matches is not written");
    if (written !== undefined) assert.equal((await Deno.stat(hostsPath(cluster))).mtime?.getTime(), written);
  });
}

Deno.test("controller --once: a refusal exits 1 with the reason on stderr and nothing on stdout", async () => {
  await using cluster = await startCluster();
  cluster.ingress("shop/web", { tls: ["shop.example.com"] });
  cluster.server.remove("v1", "ConfigMap", "kube-system", "coredns");
  for (const extra of [[], ["--dry-run"]]) {
    const result = await runOuroboros(["controller", ...cluster.flags, "--once", ...extra]);
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stdout, "");
    const lines = parseLogLines(result.stderr);
    const refusal = lines.find((line) => line.problem === "configmap-missing" && line.level === "ERROR");
    assert.ok(refusal, result.stderr);
    assert.match(String(refusal.message), /ConfigMap kube-system\/coredns does not exist/);
    assert.equal(lines.at(-1)?.exitCode, 1);
  }
  assert.deepEqual(writeRequests(cluster), [], "not even an Event");
});

Deno.test("controller --once: with --cleanup, or --dry-run with --cleanup, is a usage error (exit 2)", async () => {
  for (const extra of [["--once"], ["--dry-run"]]) {
    const result = await runOuroboros([
      "controller",
      "--mode=etc-hosts",
      "--cleanup",
      "--etc-hosts=/tmp/none/hosts",
      ...extra,
    ]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`${extra[0]} cannot be combined with --cleanup`));
  }
});

Deno.test("controller --once: OUROBOROS_CONTROLLER_ONCE is not read (flag only); OUROBOROS_CONTROLLER_DRY_RUN is", async () => {
  await using cluster = await startCluster();
  cluster.ingress("shop/web", { tls: ["shop.example.com"] });
  const result = await runOuroboros(["controller", ...cluster.flags, "--once"], {
    env: { OUROBOROS_CONTROLLER_DRY_RUN: "true", OUROBOROS_CONTROLLER_ONCE: "false" },
  });
  assert.equal(result.code, 3, result.stderr);
  assert.deepEqual(writeRequests(cluster), [], "the env var made it a dry run");
});
