/**
 * The leader-election options every electing subcommand shares, and how their values become the
 * Lease to elect on.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { boolean, duration, namespaceName, text } from "../cli/kinds.ts";
import { isDnsSubdomain } from "../util/kube_names.ts";
import type { OptionSpec } from "../cli/options.ts";
import { type ElectionTiming, electionTimingProblem } from "./election_timing.ts";

/** What differs between subcommands. */
export interface ElectionRowDefaults {
  /** `--leader-elect`'s default (`"false"` for the controller, `"true"` for kuberture). */
  readonly elect: "true" | "false";
  readonly electHelp: string;
  /** `--leader-election-id`'s default (`""`: derived, see `idDefaultText`). */
  readonly id: string;
  readonly idDefaultText: string;
  readonly idHelp: string;
}

/** The six option rows, for a subcommand's option table. */
export function electionOptionRows(defaults: ElectionRowDefaults): ElectionRows {
  return {
    leaderElect: { flag: "leader-elect", kind: boolean(), default: defaults.elect, help: defaults.electHelp },
    leaderElectionNamespace: {
      flag: "leader-election-namespace",
      kind: namespaceName(),
      default: "",
      defaultText: "(the pod's namespace)",
      help: "Namespace of the leader-election Lease.",
    },
    leaderElectionId: {
      flag: "leader-election-id",
      kind: text("NAME", "a Lease name (a DNS subdomain)"),
      default: defaults.id,
      defaultText: defaults.idDefaultText,
      help: defaults.idHelp,
    },
    leaderElectionLeaseDuration: {
      flag: "leader-election-lease-duration",
      kind: duration(),
      default: "15s",
      help: "How long followers wait, after they last saw the Lease change, before taking it over.",
    },
    leaderElectionRenewDeadline: {
      flag: "leader-election-renew-deadline",
      kind: duration(),
      default: "10s",
      help: "How long the leader keeps writing after its last successful renewal; shorter than the lease " +
        "duration.",
    },
    leaderElectionRetryPeriod: {
      flag: "leader-election-retry-period",
      kind: duration(),
      default: "2s",
      help:
        "How often candidates try to acquire the Lease and the leader renews it; the renew deadline must " +
        "exceed 1.2 times this.",
    },
  } as const;
}

/** The six rows, typed so each value has its kind's type. */
export interface ElectionRows {
  readonly leaderElect: OptionSpec<boolean>;
  readonly leaderElectionNamespace: OptionSpec<string>;
  readonly leaderElectionId: OptionSpec<string>;
  readonly leaderElectionLeaseDuration: OptionSpec<number>;
  readonly leaderElectionRenewDeadline: OptionSpec<number>;
  readonly leaderElectionRetryPeriod: OptionSpec<number>;
}

/** The values of those rows. */
export interface ElectionValues {
  readonly leaderElect: boolean;
  readonly leaderElectionNamespace: string;
  readonly leaderElectionId: string;
  readonly leaderElectionLeaseDuration: number;
  readonly leaderElectionRenewDeadline: number;
  readonly leaderElectionRetryPeriod: number;
}

/** Where (the Lease) and how replicas elect their leader. */
export interface ElectionSettings {
  readonly namespace: string;
  readonly name: string;
  readonly timing: ElectionTiming;
}

const FLAGS = {
  leaseDuration: "--leader-election-lease-duration",
  renewDeadline: "--leader-election-renew-deadline",
  retryPeriod: "--leader-election-retry-period",
} as const;

/**
 * The Lease to elect on, with every problem found. The namespace defaults to the pod's, the
 * name (when `--leader-election-id` is empty) to `options.name`.
 */
export function electionLease(
  values: ElectionValues,
  options: { readonly podNamespace: string | undefined; readonly name: string },
): { readonly lease: ElectionSettings; readonly problems: readonly string[] } {
  const problems: string[] = [];
  const timing: ElectionTiming = {
    leaseDurationMs: values.leaderElectionLeaseDuration,
    renewDeadlineMs: values.leaderElectionRenewDeadline,
    retryPeriodMs: values.leaderElectionRetryPeriod,
  };
  const problem = electionTimingProblem(timing, FLAGS);
  if (problem !== undefined) problems.push(`--leader-elect: ${problem}`);
  const namespace = values.leaderElectionNamespace !== ""
    ? values.leaderElectionNamespace
    : options.podNamespace ?? "";
  if (namespace === "") {
    problems.push(
      "--leader-elect needs the Lease's namespace: set --leader-election-namespace " +
        "(the pod's namespace could not be read)",
    );
  }
  const name = values.leaderElectionId !== "" ? values.leaderElectionId : options.name;
  if (!isDnsSubdomain(name)) {
    problems.push(
      `--leader-election-id="${name}" must be a Lease name: a lower-case DNS subdomain of at most 253 characters`,
    );
  }
  return { lease: { namespace, name, timing }, problems };
}
