/**
 * ouroboros's own workloads run against the real stack the way the chart runs them: the flags and
 * environment the rendered container gets (so a flag the chart passes wrongly fails here), with
 * only what cannot hold on loopback replaced (listen addresses on port 0 of 127.0.0.1, and the
 * kubeconfig of the workload's ServiceAccount identity instead of the pod's mounted token).
 *
 * Effects: none itself; the starters spawn processes.
 *
 * @module
 */

import type { K8sObject } from "../chart/support.ts";
import { containerArgs, type RenderedRelease, type Stack } from "./stack.ts";

/** The name of a flag argument: `--listen-health=:8082` → `listen-health`. */
export function flagName(arg: string): string | undefined {
  const match = /^--([a-z0-9-]+)(?:=|$)/.exec(arg);
  return match?.[1];
}

/**
 * `args` (the subcommand first, as the chart renders them) with every flag named in
 * `overrides` replaced by the override, and the overrides that were not there appended.
 *
 * @example
 * ```ts
 * overrideFlags(["controller", "--mode=coredns", "--listen-health=:8082"], ["--listen-health=127.0.0.1:0"]);
 * // ["controller", "--mode=coredns", "--listen-health=127.0.0.1:0"]
 * ```
 */
export function overrideFlags(args: readonly string[], overrides: readonly string[]): string[] {
  const names = new Set(overrides.map(flagName));
  return [...args.filter((arg) => !names.has(flagName(arg))), ...overrides];
}

/** The environment the chart sets on a container, plain values only. */
export function containerEnv(
  objects: readonly K8sObject[],
  workload: string,
  container: string,
): Record<string, string> {
  const found = objects.find((object) =>
    ["Deployment", "DaemonSet", "Job"].includes(object.kind) && object.metadata.name === workload
  );
  const containers = (found?.spec as {
    template: { spec: { containers: { name: string; env?: { name: string; value?: string }[] }[] } };
  } | undefined)?.template.spec.containers ?? [];
  const env: Record<string, string> = {};
  for (const variable of containers.find((candidate) => candidate.name === container)?.env ?? []) {
    // DENO_V8_FLAGS is the chart's memory tuning for a pod's limit; the suite runs with V8's defaults.
    if (variable.value !== undefined && variable.name !== "DENO_V8_FLAGS") {
      env[variable.name] = variable.value;
    }
  }
  return env;
}

/** The ServiceAccount a workload of the render runs as. */
function accountOf(release: RenderedRelease, workload: string): string {
  const found = release.objects.find((object) =>
    ["Deployment", "DaemonSet", "Job"].includes(object.kind) && object.metadata.name === workload
  );
  const spec = found?.spec as { template?: { spec?: { serviceAccountName?: string } } } | undefined;
  return spec?.template?.spec?.serviceAccountName ?? "default";
}

/** What a workload is started with: its arguments after the subcommand, and its environment. */
export interface WorkloadLaunch {
  readonly args: string[];
  readonly env: Record<string, string>;
}

/**
 * The arguments (after the subcommand) and environment to start `container` of `workload` with:
 * the chart's, with every listener moved to a free port of 127.0.0.1, `--kubeconfig` for the
 * workload's ServiceAccount identity (unless `kube` is false: the proxy never talks to the API),
 * and the overrides.
 */
export async function chartLaunch(
  stack: Stack,
  release: RenderedRelease,
  options: { workload: string; container: string; overrides?: readonly string[]; kube?: boolean },
): Promise<WorkloadLaunch> {
  const rendered = containerArgs(release.objects, options.workload, options.container);
  const overridden = new Set((options.overrides ?? []).map(flagName));
  const listeners = rendered.flatMap((arg) => {
    const name = flagName(arg);
    return name?.startsWith("listen-") && !arg.endsWith("=off") && !overridden.has(name)
      ? [`--${name}=127.0.0.1:0`]
      : [];
  });
  const kube = options.kube === false || overridden.has("kubeconfig")
    ? []
    : [`--kubeconfig=${await stack.kubeconfig(release.namespace, accountOf(release, options.workload))}`];
  const args = overrideFlags(rendered, [...kube, ...listeners, ...(options.overrides ?? [])]);
  return {
    args: args.slice(1),
    env: {
      ...containerEnv(release.objects, options.workload, options.container),
      POD_NAMESPACE: release.namespace,
    },
  };
}

/** The release of the stack named `name`. */
export function releaseNamed(stack: Stack, name: string): RenderedRelease {
  const found = stack.releases.find((release) => release.release === name);
  if (found === undefined) throw new Error(`the stack has no release named ${name}`);
  return found;
}

/** The objects of a kind in a release's render (as plain objects, ready to apply). */
export function renderedOfKind(release: RenderedRelease, kind: string): Record<string, unknown>[] {
  return release.objects.filter((object) => object.kind === kind) as unknown as Record<string, unknown>[];
}
