/**
 * The controller's leader-election settings, from its options: the Lease's namespace and name
 * (defaults: the pod's namespace, `<OUROBOROS_INSTANCE>-controller`), the three durations checked
 * against client-go's rule, and the combinations that cannot work (`--once`, `--dry-run`; in
 * etc-hosts mode election is ignored, since every node writes its own file).
 *
 * Pure: the pod's namespace is passed in.
 *
 * @module
 */

import type { OptionValues } from "../cli/options.ts";
import { electionLease, type ElectionSettings } from "../election/election_options.ts";
import type { CONTROLLER_OPTIONS } from "./controller_options.ts";

type ControllerValues = OptionValues<typeof CONTROLLER_OPTIONS.options>;

/**
 * Leader election as settled: the Lease when `--leader-elect` is on; `ignored` when it was asked
 * for in etc-hosts mode; `off` otherwise.
 */
export type ElectionChoice = { readonly kind: "on"; readonly lease: ElectionSettings } | {
  readonly kind: "off" | "ignored";
};

/** What {@linkcode electionSettings} found: the choice, and every problem with the options. */
export interface ElectionOutcome {
  readonly election: ElectionChoice;
  readonly problems: readonly string[];
}

/**
 * The Lease and its durations, when leader election is asked for and meaningful;
 * `podNamespace` is the service account's namespace, when known.
 *
 * @example
 * ```ts
 * import { parseOptions } from "../cli/options.ts";
 * import { electionSettings } from "./controller_election.ts";
 * import { CONTROLLER_OPTIONS } from "./controller_options.ts";
 *
 * const parsed = parseOptions(CONTROLLER_OPTIONS, { argv: ["--leader-elect"], getEnv: () => undefined });
 * if (parsed.kind === "ok") {
 *   electionSettings(parsed.values, { podNamespace: "ouroboros" }).election;
 *   // { kind: "on", lease: { namespace: "ouroboros", name: "ouroboros-controller", timing: … } }
 * }
 * ```
 */
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
