/**
 * The `ouroboros kuberture` option table: kuberture's flags, env names and defaults, plus ours
 * (`--kubeconfig`, election timings, previews, logging). The rest is in the config file.
 *
 * Pure: data.
 *
 * @module
 */

import { boolean, dnsLabel, text } from "../cli/kinds.ts";
import type { OptionSpec, OptionTable } from "../cli/options.ts";
import { LOGGING_OPTIONS } from "../daemon/logging_options.ts";
import { KUBECONFIG_OPTION } from "../kube/kubeconfig_option.ts";
import { electionOptionRows } from "../election/election_options.ts";

/** Where kuberture's config file is when neither `--config` nor `KUBERTURE_CONFIG` says. */
export const DEFAULT_CONFIG_PATH = "/etc/kuberture/config.yaml";

/** The kuberture option table. */
export const KUBERTURE_OPTIONS = {
  command: "kuberture",
  summary:
    "Publish the Kubernetes API server's addresses through external-dns: turn the default/kubernetes " +
    "EndpointSlice into annotated headless Services (or DNSEndpoints), one per configured output. A drop-in for " +
    "kuberture: same config file, flags, labels and metrics.",
  options: {
    config: {
      flag: "config",
      env: "KUBERTURE_CONFIG",
      kind: text("PATH", "a path to kuberture's YAML config file"),
      default: DEFAULT_CONFIG_PATH,
      help: "kuberture's config file (source, outputs, bind addresses, log level); reloaded when it changes.",
    },
    instance: {
      flag: "instance",
      env: "KUBERTURE_INSTANCE",
      kind: dnsLabel("NAME", "an instance name"),
      default: "kuberture",
      help:
        "Instance name in the kuberture/instance label of every object written, so several installations " +
        "never delete each other's objects.",
    },
    ...KUBECONFIG_OPTION,
    dryRun: {
      flag: "dry-run",
      kind: boolean(),
      default: "false",
      help: "Run as usual but write nothing: every change that would be made is logged at INFO as a diff. " +
        "Needs only read access; leader election is then off unless asked for (which is refused).",
    },
    once: {
      flag: "once",
      env: null,
      kind: boolean(),
      default: "false",
      help: "Wait for the caches, run one pass, print what changed (with --dry-run: what would change) on " +
        "stdout and exit: 0 when nothing had to change, 3 when something changed or would change, 1 on errors.",
    },
    cleanup: {
      flag: "cleanup",
      env: null,
      kind: boolean(),
      default: "false",
      help:
        "(not in kuberture) Delete every Service and DNSEndpoint this instance wrote in its namespace (the " +
        "labels app.kubernetes.io/managed-by=kuberture and kuberture/instance=<instance>), and exit: 0 when none " +
        "is left, 1 when one could not be deleted. The config file is not read (the chart's uninstall hook).",
    },
    ...electionOptionRows({
      elect: "true",
      electHelp:
        "Elect one writer among the replicas through a coordination.k8s.io Lease (kuberture's default: " +
        "on); the others keep their caches warm and take over when it stops renewing.",
      id: "kuberture-leader",
      idDefaultText: "kuberture-leader",
      idHelp: "Name of the leader-election Lease (kuberture's name).",
    }),
    ...LOGGING_OPTIONS,
  },
} as const satisfies OptionTable<Record<string, OptionSpec<unknown>>>;
