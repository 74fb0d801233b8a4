/**
 * `ouroboros controller --cleanup`: remove what this controller wrote and exit, as the chart's
 * uninstall hooks run it. etc-hosts mode removes our block from the node's hosts file without
 * contacting the API server (the chart runs it on every node); the cluster modes live in
 * `cluster_cleanup.ts`.
 *
 * `cleanupProblems` is pure; `hostsCleanup` edits the hosts file.
 *
 * @module
 */

import type { Service } from "../daemon/subcommand.ts";
import { hostsPathProblem } from "./modes/etc_hosts/hosts_path.ts";
import { cleanupHostsFile } from "./modes/etc_hosts/cleanup_hosts_file.ts";
import { blockMarkers } from "./modes/markers.ts";
import { logger } from "../util/logging.ts";
import type { ControllerValues } from "./controller_settings.ts";

/** What is wrong with the flags `--cleanup` was given with. Pure. */
export function cleanupProblems(values: ControllerValues): string[] {
  const problems: string[] = [];
  if (values.cleanupNodeLocalDnsOnly && (!values.cleanup || values.nodeLocalDns !== "manage")) {
    problems.push("--cleanup-node-local-dns-only needs --cleanup and --node-local-dns=manage");
  }
  if (values.cleanupQuiesce !== "") {
    if (values.mode === "etc-hosts") {
      problems.push(
        "--cleanup-quiesce has no use in etc-hosts mode: each node's cleanup touches only its file",
      );
    }
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/.test(values.cleanupQuiesce)) {
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
  if (values.mode !== "etc-hosts") return problems;
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
