/**
 * The controller's leader-election settings: the Lease (default: the pod's namespace and
 * `<OUROBOROS_INSTANCE>-controller`) and the option combinations that cannot work.
 *
 * Pure: the pod's namespace is passed in.
 *
 * @module
 */

import type { OptionValues } from "../cli/options.ts";
import { electionLease, type ElectionSettings } from "../election/election_options.ts";
import type { CONTROLLER_OPTIONS } from "./controller_options.ts";

type ControllerValues = OptionValues<typeof CONTROLLER_OPTIONS.options>;

/** Leader election as settled; `ignored`: asked for in etc-hosts mode, where every node writes. */
export type ElectionChoice = { readonly kind: "on"; readonly lease: ElectionSettings } | {
  readonly kind: "off" | "ignored";
};

/** What {@linkcode electionSettings} found: the choice, and every problem with the options. */
export interface ElectionOutcome {
  readonly election: ElectionChoice;
  readonly problems: readonly string[];
}

/** The Lease and its durations when `--leader-elect` is on and meaningful, and every problem. */
export function electionSettings(
  values: ControllerValues,
  options: { readonly podNamespace: string | undefined },
): ElectionOutcome {
  const problems: string[] = [];
  const election = electionChoice(values, options.podNamespace, problems);
  return { election, problems };
}

function electionChoice(
  values: ControllerValues,
  podNamespace: string | undefined,
  problems: string[],
): ElectionChoice {
  if (!values.leaderElect) return { kind: "off" };
  if (values.mode === "etc-hosts") return { kind: "ignored" };
  if (values.once) {
    problems.push(
      "--once runs a single pass and exits; it takes no part in leader election: drop --leader-elect " +
        "(a --once without --dry-run writes next to any running leader, so prefer --once --dry-run there)",
    );
  }
  if (values.dryRun) {
    problems.push(
      "--dry-run writes nothing, and taking the leader-election Lease would be a write: drop --leader-elect " +
        "(every dry-run replica previews on its own; run one)",
    );
  }
  const name = `${values.instance === "" ? "ouroboros" : values.instance}-controller`;
  const { lease, problems: found } = electionLease(values, { podNamespace, name });
  problems.push(...found);
  return { kind: "on", lease };
}
