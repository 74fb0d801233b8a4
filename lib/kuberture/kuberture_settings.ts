/**
 * Turns kuberture's parsed options and its config file into validated settings, every problem at
 * once and before any connection to the cluster: the config file (as its one reader,
 * `lib/kuberture/config/read_kuberture_config.ts`, read and checked it), the objects' namespace (`POD_NAMESPACE`, else the service
 * account's), leader election (on by default, as kuberture; `--once` and `--dry-run` turn the
 * default off, an explicit `--leader-elect` with them is refused), and the log level (the file's
 * `logLevel` unless `--log-level` is given).
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
  /** The config file as `readKubertureConfig` read it: accepted, or the problems naming the file. */
  readonly configFile: ReadKubertureConfig;
  /** `POD_NAMESPACE`, else the service account's namespace file; `undefined` when neither is known. */
  readonly podNamespace: string | undefined;
}

/**
 * Validates kuberture's options and config file together.
 *
 * @example
 * ```ts
 * import { parseOptions } from "../cli/options.ts";
 * import { KUBERTURE_OPTIONS } from "./kuberture_options.ts";
 * import { readKubertureConfig } from "./config/read_kuberture_config.ts";
 * import { kubertureSettings } from "./kuberture_settings.ts";
 *
 * const parsed = parseOptions(KUBERTURE_OPTIONS, { argv: [], getEnv: () => undefined });
 * if (parsed.kind === "ok") {
 *   const settings = kubertureSettings({
 *     values: parsed.values,
 *     sources: parsed.sources,
 *     configFile: readKubertureConfig("/etc/kuberture/config.yaml"),
 *     podNamespace: "kuberture",
 *   });
 * }
 * ```
 */
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
      "the namespace to write to is unknown: set POD_NAMESPACE (the chart passes it through the downward API)",
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
