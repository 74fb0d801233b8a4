/**
 * `ouroboros controller --cleanup`: remove what this controller wrote and exit, as the chart's
 * uninstall hooks run it. etc-hosts mode removes our block from the node's hosts file without
 * contacting the API server (the chart runs it on every node), and its two cluster steps around
 * that (`--cleanup-stop-daemonset`, `--cleanup-await-daemonset`) run here too; the cluster modes
 * live in `cluster_cleanup.ts`.
 *
 * `cleanupProblems` is pure; `hostsCleanup` edits the hosts file; `startEtcHostsStep` uses the API.
 *
 * @module
 */

import type { Service } from "../daemon/subcommand.ts";
import { connectToCluster } from "../election/cluster_connection.ts";
import { systemClock } from "../util/clock.ts";
import { awaitNodeCleanup, stopDaemonSet } from "./modes/etc_hosts/cleanup_daemonsets.ts";
import { permissionsToRevoke } from "./permissions.ts";
import { hostsPathProblem } from "./modes/etc_hosts/hosts_path.ts";
import { cleanupHostsFile } from "./modes/etc_hosts/cleanup_hosts_file.ts";
import { blockMarkers } from "./modes/markers.ts";
import { logger } from "../util/logging.ts";
import type { ControllerValues } from "./controller_settings.ts";

/** The namespace/name shape of `--cleanup-quiesce` and the DaemonSet steps. */
const NAMESPACED_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/;

/**
 * What is wrong with the `--cleanup*` flags: without `--cleanup`, each one given (a cleanup flag on
 * a watching controller would otherwise be ignored in silence); with it, their combinations. Pure.
 */
export function cleanupProblems(values: ControllerValues): string[] {
  const given = [
    ["--cleanup-node-local-dns-only", values.cleanupNodeLocalDnsOnly],
    ["--cleanup-routes-only", values.cleanupRoutesOnly],
    ["--cleanup-quiesce", values.cleanupQuiesce !== ""],
    ["--cleanup-quiesce-selector", values.cleanupQuiesceSelector !== ""],
    ["--cleanup-stop-daemonset", values.cleanupStopDaemonset !== ""],
    ["--cleanup-await-daemonset", values.cleanupAwaitDaemonset !== ""],
  ] as const;
  if (!values.cleanup) {
    return given.filter(([, on]) => on).map(([flag]) => `${flag} is given without --cleanup`);
  }
  const problems: string[] = [];
  const only = given.filter(([flag, on]) => on && flag !== "--cleanup-quiesce" && !flag.includes("selector"));
  if (only.length > 1) {
    problems.push(`${only.map(([flag]) => flag).join(" and ")} each pick one thing to clean; give one`);
  }
  if (values.cleanupNodeLocalDnsOnly && values.nodeLocalDns !== "manage") {
    problems.push("--cleanup-node-local-dns-only needs --node-local-dns=manage");
  }
  if (values.cleanupRoutesOnly && !values.routes) problems.push("--cleanup-routes-only needs --routes");
  const steps = values.cleanupStopDaemonset !== "" || values.cleanupAwaitDaemonset !== "";
  for (
    const [flag, value] of [
      ["--cleanup-stop-daemonset", values.cleanupStopDaemonset],
      ["--cleanup-await-daemonset", values.cleanupAwaitDaemonset],
    ] as const
  ) {
    if (value === "") continue;
    if (values.mode !== "etc-hosts") problems.push(`${flag} works in etc-hosts mode only`);
    if (!NAMESPACED_NAME.test(value)) {
      problems.push(`${flag}=${value}: expected a DaemonSet as namespace/name`);
    }
  }
  const nodeLocal = values.mode === "etc-hosts" && !values.cleanupRoutesOnly && !steps;
  if (values.cleanupQuiesce !== "") {
    if (values.mode === "etc-hosts" && !values.cleanupRoutesOnly) {
      problems.push(
        "--cleanup-quiesce has no use in etc-hosts mode (--cleanup-stop-daemonset stops its DaemonSet) but " +
          "with --cleanup-routes-only",
      );
    }
    if (!NAMESPACED_NAME.test(values.cleanupQuiesce)) {
      problems.push(`--cleanup-quiesce=${values.cleanupQuiesce}: expected a Deployment as namespace/name`);
    }
    if (values.cleanupQuiesceSelector === "") {
      problems.push(
        "--cleanup-quiesce needs --cleanup-quiesce-selector: the labels of the Deployment's pods",
      );
    }
  } else if (values.cleanupQuiesceSelector !== "") {
    problems.push("--cleanup-quiesce-selector is given without --cleanup-quiesce");
  }
  if (values.once) {
    problems.push("--once cannot be combined with --cleanup: --cleanup is a one-shot run of its own");
  }
  if (values.dryRun) {
    problems.push(
      "--dry-run cannot be combined with --cleanup: --cleanup only removes the block, it has nothing to preview",
    );
  }
  if (!nodeLocal) return problems;
  if (values.etcHosts === "") problems.push("--cleanup needs --etc-hosts: the hosts file to clean");
  else {
    const unsafe = hostsPathProblem(values.etcHosts);
    if (unsafe !== undefined) problems.push(`--etc-hosts: ${unsafe.message}`);
  }
  return problems;
}

/** The cleanup run: exit 0 when no block is left, 1 when the file could not be cleaned. */
export function hostsCleanup(values: ControllerValues): Service {
  return {
    async run({ signals }) {
      const log = logger("controller");
      const result = await cleanupHostsFile(values.etcHosts, {
        signal: signals.shutdown,
        markers: blockMarkers(values.markerId),
      });
      switch (result.kind) {
        case "removed":
          log.info("removed the ouroboros block from the hosts file", {
            path: values.etcHosts,
            hosts: result.hosts,
          });
          return 0;
        case "absent":
          log.info("the hosts file has no ouroboros block; nothing to remove", { path: values.etcHosts });
          return 0;
        case "refused":
          log.error("cannot clean the hosts file; it was not changed", {
            path: values.etcHosts,
            problem: result.problem,
            message: result.message,
          });
          return 1;
        case "failed":
          // Like any runtime failure: main logs it as fatal and exits 1.
          throw result.cause instanceof Error && result.cause.message === result.message
            ? result.cause
            : new Error(result.message, { cause: result.cause });
      }
    },
  };
}

/**
 * `--cleanup-stop-daemonset` or `--cleanup-await-daemonset` (etc-hosts mode's cluster steps):
 * exit 0 when the step is done, 1 when it failed (the message says what to do).
 */
export async function startEtcHostsStep(values: ControllerValues): Promise<Service> {
  const cluster = await connectToCluster({
    kubeconfig: values.kubeconfig,
    env: (name) => Deno.env.get(name),
  });
  const { access, client } = cluster;
  const stop = values.cleanupStopDaemonset !== "";
  const [namespace = "", name = ""] = (stop ? values.cleanupStopDaemonset : values.cleanupAwaitDaemonset)
    .split("/");
  return {
    revoke: permissionsToRevoke(access, {}),
    async run({ signals }) {
      const log = logger("controller");
      const daemonSet = `${namespace}/${name}`;
      const options = {
        clock: systemClock,
        signal: signals.shutdown,
        timeoutMs: values.cleanupQuiesceTimeout,
      };
      let outcome;
      if (stop) {
        log.info("stopping the etc-hosts controller: deleting its DaemonSet, its pods first", { daemonSet });
        outcome = await stopDaemonSet(client, { namespace, name }, options);
      } else {
        log.info("waiting for the node cleanup DaemonSet to clean every node's hosts file", {
          daemonSet,
          timeout: `${values.cleanupQuiesceTimeout / 1000}s`,
        });
        outcome = await awaitNodeCleanup(client, { namespace, name }, {
          ...options,
          report: (progress) => log.info("not every node is clean yet", { daemonSet, progress }),
        });
      }
      if (outcome.kind === "done") {
        log.info(outcome.message, { daemonSet });
        return 0;
      }
      log.error(outcome.message, { daemonSet });
      return 1;
    },
    close: () => cluster.close(),
  };
}
