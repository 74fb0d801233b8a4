/**
 * kuberture's options and config file checked together, every problem at once and before any
 * connection. Leader election is on by default, as in kuberture, but `--once` and `--dry-run` turn
 * the default off and refuse an explicit `--leader-elect`; the file's `logLevel` applies unless
 * `--log-level` is given.
 *
 * Pure: the file's reading and the namespaces are passed in.
 *
 * @module
 */

import { ConfigError, type OptionValues, type ValueSource } from "../cli/options.ts";
import { electionLease, type ElectionSettings } from "../election/election_options.ts";
import type { KubertureConfig } from "./config/kuberture_config.ts";
import type { ReadKubertureConfig } from "./config/read_kuberture_config.ts";
import { LOG_LEVELS, type LogLevelName } from "../util/log_format.ts";
import type { KUBERTURE_OPTIONS } from "./kuberture_options.ts";

/** kuberture's parsed option values. */
export type KubertureValues = OptionValues<typeof KUBERTURE_OPTIONS.options>;

/** Everything `ouroboros kuberture` needs, validated. */
export interface KubertureSettings {
  /** The values, with `logLevel` taken from the file when the flag was not given. */
  readonly values: KubertureValues;
  readonly config: KubertureConfig;
  /** The file's text, so the watcher can tell a change from a rewrite of the same text. */
  readonly configText: string;
  /** Where the objects go (and the Lease, by default). */
  readonly namespace: string;
  readonly election: ElectionSettings | undefined;
}

/** Inputs of {@linkcode kubertureSettings}. */
export interface KubertureSettingsInput {
  readonly values: KubertureValues;
  readonly sources: { readonly logLevel: ValueSource; readonly leaderElect: ValueSource };
  readonly configFile: ReadKubertureConfig;
  /**
   * `POD_NAMESPACE`, else the service account's namespace, else the `--kubeconfig` context's;
   * `undefined` when none is known.
   */
  readonly podNamespace: string | undefined;
}

/** Validates kuberture's options and config file together. */
export function kubertureSettings(input: KubertureSettingsInput): KubertureSettings | ConfigError {
  const { values } = input;
  const problems: string[] = [];
  if (values.instance === "") problems.push("--instance (KUBERTURE_INSTANCE) must not be empty");
  const file = input.configFile;
  if (!file.ok) problems.push(...file.problems);
  const config = file.ok ? file.config : undefined;
  const configText = file.text ?? "";
  const namespace = input.podNamespace ?? "";
  if (namespace === "") {
    problems.push(
      "the namespace to write to is unknown: set POD_NAMESPACE (the chart passes it through the downward API) " +
        "or, outside a pod, give --kubeconfig (its current context's namespace is used, as kubectl does)",
    );
  }
  const previewing = values.once || values.dryRun;
  const explicit = input.sources.leaderElect !== "default";
  let election: ElectionSettings | undefined;
  if (values.leaderElect && previewing && explicit) {
    problems.push(
      `${
        values.once ? "--once" : "--dry-run"
      } takes no part in leader election (taking the Lease would be a ` +
        "write): drop --leader-elect",
    );
  } else if (values.leaderElect && !previewing) {
    const found = electionLease(values, { podNamespace: input.podNamespace, name: "kuberture-leader" });
    problems.push(...found.problems);
    election = found.lease;
  }
  if (problems.length > 0 || config === undefined) return new ConfigError("kuberture", problems);
  const fileLevel = config.logLevel;
  const logLevel: LogLevelName = input.sources.logLevel === "default" && isLogLevel(fileLevel)
    ? fileLevel
    : values.logLevel;
  return { values: { ...values, logLevel }, config, configText, namespace, election };
}

function isLogLevel(value: string | undefined): value is LogLevelName {
  return (LOG_LEVELS as readonly (string | undefined)[]).includes(value);
}
