/**
 * `ouroboros doctor` run the way the chart's `helm test` Pod runs it: the arguments and
 * environment of the rendered doctor Pod, as that Pod's ServiceAccount (the stack's token for it,
 * so the chart's read-only doctor RBAC judges every read), under the `doctor` permission set.
 *
 * Two ways, the first preferred:
 * - In its pod's view ({@linkcode runDoctorInPod}): the doctor runs in a private mount namespace
 *   (`unshare --mount`, root only) where the service-account folder holds its token, the cluster
 *   CA and its namespace, and `/etc/resolv.conf` is the pod's (naming the cluster DNS Service), and
 *   `KUBERNETES_SERVICE_HOST/PORT` point at the apiserver. So it takes itself for in the cluster,
 *   exactly as in its Pod: no `--kubeconfig`, pods read directly at their IPs (`--reach=auto`),
 *   the pod's resolver asked, `--probe-direct` applied. Nothing outside that process sees the
 *   mounts, and they vanish with it.
 * - From a workstation ({@linkcode runDoctorWithKubeconfig}), where mount namespaces are not
 *   allowed: a kubeconfig of the same identity, and `--reach=direct` (what `auto` means in the
 *   Pod); the doctor then knows it is outside a pod and says so where that matters.
 *
 * Effects: files in the stack's folder, a child process (and `unshare` probing once).
 *
 * @module
 */

import type { Finding } from "../../lib/doctor/doctor_check.ts";
import { denoArgs, ROOT } from "../support/ouroboros_process.ts";
import { findTool } from "../support/tools.ts";
import { overrideFlags } from "./chart_workloads.ts";
import type { RenderedRelease, Stack } from "./stack.ts";

/** The doctor's `--output=json` report. */
export interface DoctorReport {
  readonly exitStatus: number;
  readonly summary: Record<string, number>;
  readonly checks: readonly { readonly id: string; readonly title: string; readonly findings: Finding[] }[];
}

/** One doctor run: its exit code, output, and the report when stdout was JSON. */
export interface DoctorRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly report: DoctorReport | undefined;
}

interface RenderedPodView {
  readonly spec: {
    readonly serviceAccountName?: string;
    readonly containers: readonly {
      readonly name: string;
      readonly args?: readonly string[];
      readonly env?: readonly {
        readonly name: string;
        readonly value?: string;
        readonly valueFrom?: { readonly fieldRef?: { readonly fieldPath?: string } };
      }[];
    }[];
  };
}

/** What the rendered doctor Pod runs: its name, ServiceAccount, arguments after `doctor`, environment. */
export interface DoctorPodLaunch {
  readonly pod: string;
  readonly account: string;
  readonly args: string[];
  readonly env: Record<string, string>;
}

/**
 * The rendered `helm test` Pod's container `doctor`: its arguments (the subcommand dropped) with
 * `overrides` replacing flags of the same name, and its environment, `fieldRef`s filled as the
 * kubelet fills them (`metadata.namespace`, `metadata.name`).
 */
export function doctorPodLaunch(
  release: RenderedRelease,
  overrides: readonly string[] = [],
): DoctorPodLaunch {
  const found = release.objects.find((object) =>
    object.kind === "Pod" && object.metadata.labels?.["app.kubernetes.io/component"] === "doctor"
  );
  if (found === undefined) {
    throw new Error("the render has no doctor Pod: render the release with tests: true");
  }
  const pod = found.metadata.name;
  const spec = (found as unknown as RenderedPodView).spec;
  const container = spec.containers.find((candidate) => candidate.name === "doctor");
  if (container === undefined) throw new Error(`Pod ${pod} has no container named doctor`);
  const [subcommand, ...args] = container.args ?? [];
  if (subcommand !== "doctor") throw new Error(`Pod ${pod} runs ${subcommand}, not doctor`);
  const env: Record<string, string> = { HOSTNAME: pod };
  for (const variable of container.env ?? []) {
    const field = variable.valueFrom?.fieldRef?.fieldPath;
    if (variable.value !== undefined) env[variable.name] = variable.value;
    else if (field === "metadata.namespace") env[variable.name] = release.namespace;
    else if (field === "metadata.name") env[variable.name] = pod;
  }
  return {
    pod,
    account: spec.serviceAccountName ?? "default",
    args: overrideFlags(args, overrides),
    env,
  };
}

function parseReport(stdout: string): DoctorReport | undefined {
  try {
    return JSON.parse(stdout) as DoctorReport;
  } catch {
    return undefined;
  }
}

async function run(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<DoctorRun> {
  const output = await new Deno.Command(command, {
    args: [...args],
    cwd: ROOT,
    clearEnv: true,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  const stdout = decoder.decode(output.stdout);
  return { code: output.code, stdout, stderr: decoder.decode(output.stderr), report: parseReport(stdout) };
}

/** The shell step inside the mount namespace: the pod's files mounted, then the doctor exec'd. */
const POD_VIEW_SCRIPT = [
  "set -e",
  // Not exported: the doctor gets only the Pod's environment.
  "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
  // /var/run is /run: a fresh tmpfs there leaves the machine's /run untouched and gives the
  // service-account folder somewhere to be.
  "mount -t tmpfs ouroboros-doctor-pod /run",
  "mkdir -p /run/secrets/kubernetes.io/serviceaccount",
  'mount --bind "$1" /run/secrets/kubernetes.io/serviceaccount',
  'mount --bind "$2" /etc/resolv.conf',
  "shift 2",
  'exec "$@"',
].join("\n");

let podViewWorks: Promise<boolean> | undefined;

/** Whether this machine lets the suite run a process in its own mount namespace (root, unshare). */
export function podViewAvailable(): Promise<boolean> {
  podViewWorks ??= (async () => {
    const unshare = findTool("unshare");
    if (unshare === undefined) return false;
    try {
      const output = await new Deno.Command(unshare, {
        args: ["--mount", "--", "sh", "-c", "mount -t tmpfs ouroboros-probe /run"],
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).output();
      return output.success;
    } catch {
      return false;
    }
  })();
  return podViewWorks;
}

/** What the doctor's pod sees besides its arguments. */
export interface DoctorPodView {
  /** The pod's `/etc/resolv.conf`. */
  readonly resolvConf: string;
  /** Flags replacing the rendered ones of the same name (or added). */
  readonly overrides?: readonly string[];
}

/** Runs the rendered doctor Pod's command in its pod's view (see the module doc). */
export async function runDoctorInPod(
  stack: Stack,
  release: RenderedRelease,
  view: DoctorPodView,
): Promise<DoctorRun> {
  const launch = doctorPodLaunch(release, view.overrides);
  const identity = stack.identity(release.namespace, launch.account);
  const dir = await Deno.makeTempDir({ dir: stack.dir, prefix: "doctor-pod-" });
  const accountDir = `${dir}/serviceaccount`;
  await Deno.mkdir(accountDir);
  await Deno.writeTextFile(`${accountDir}/token`, identity.token);
  await Deno.writeTextFile(`${accountDir}/ca.crt`, stack.plane.pki.caPem);
  await Deno.writeTextFile(`${accountDir}/namespace`, release.namespace);
  await Deno.writeTextFile(`${dir}/resolv.conf`, view.resolvConf);
  const server = new URL(stack.plane.server);
  const unshare = findTool("unshare");
  if (unshare === undefined) throw new Error("unshare is not installed");
  return await run(
    unshare,
    [
      "--mount",
      "--",
      "/bin/sh",
      "-c",
      POD_VIEW_SCRIPT,
      "doctor-pod",
      accountDir,
      `${dir}/resolv.conf`,
      Deno.execPath(),
      ...denoArgs("doctor", ["doctor", ...launch.args]),
    ],
    {
      ...launch.env,
      KUBERNETES_SERVICE_HOST: server.hostname,
      KUBERNETES_SERVICE_PORT: server.port,
    },
  );
}

/**
 * Runs the rendered doctor Pod's command from outside a pod: the same identity by kubeconfig, and
 * `--reach=direct` (what `auto` resolves to in the Pod), besides `overrides`.
 */
export async function runDoctorWithKubeconfig(
  stack: Stack,
  release: RenderedRelease,
  overrides: readonly string[] = [],
): Promise<DoctorRun> {
  const account = doctorPodLaunch(release).account;
  const kubeconfig = await stack.kubeconfig(release.namespace, account);
  const launch = doctorPodLaunch(release, [`--kubeconfig=${kubeconfig}`, "--reach=direct", ...overrides]);
  return await run(Deno.execPath(), denoArgs("doctor", ["doctor", ...launch.args]), launch.env);
}
