/**
 * The loop's recompute of the desired set: the whole set from the full caches (with the
 * per-object memo that makes a recompute after one change cheap), each newly refused hostname
 * value logged once as a WARN (so is each wildcard left out because the mode cannot write one,
 * once per object change), and the counts `/readyz` and the metrics report.
 *
 * Effects: log lines; the computation itself is the pure `desiredHostnames`.
 *
 * @module
 */

import {
  createDesiredSetMemo,
  desiredHostnames,
  type DesiredSetOptions,
  type HostnameSources,
} from "../hostnames/desired_set.ts";
import { loggedValueFields, RejectionLog } from "../hostnames/rejection_log.ts";
import type { Log } from "../util/logging.ts";
import type { DesiredInput } from "./sink_call_needed.ts";

/**
 * Recomputes the desired set for one loop, remembering what it refused so each refusal is said
 * once per object change.
 *
 * @example
 * ```ts
 * import { logger } from "../util/logging.ts";
 * import { DesiredRecompute } from "./desired_recompute.ts";
 *
 * const recompute = new DesiredRecompute({ clusterDomain: "cluster.local" }, logger("controller"));
 * const desired = recompute.run({ ingresses: [], gateways: [], routes: [] });
 * desired.hosts; // []
 * ```
 */
export class DesiredRecompute {
  readonly #options: DesiredSetOptions;
  readonly #log: Log;
  /** Per-object hostname results, valid for `#options` (see `DesiredSetMemo`). */
  readonly #memo = createDesiredSetMemo();
  readonly #rejections = new RejectionLog();
  readonly #skippedWildcards = new RejectionLog();
  /** Hostnames in the set at the last recompute. */
  hosts = 0;
  /** Refused hostname values at the last recompute. */
  rejected = 0;
  /** Wildcards left out at the last recompute because the mode cannot write them. */
  skippedWildcards = 0;

  /** `options` are the filters and the cluster domain; `log` gets the refusal WARNs. */
  constructor(options: DesiredSetOptions, log: Log) {
    this.#options = options;
    this.#log = log;
  }

  /** The desired set from `lists`; logs each newly refused hostname value. Throws only for a bug. */
  run(lists: HostnameSources): DesiredInput {
    const desired = desiredHostnames(lists, { ...this.#options, memo: this.#memo });
    this.hosts = desired.hosts.length;
    this.rejected = desired.rejected.length;
    for (const entry of this.#rejections.observe(desired.rejected)) {
      this.#log.warn("hostname refused; it is not written", {
        kind: entry.source,
        object: entry.key,
        resourceVersion: entry.resourceVersion,
        ...loggedValueFields(entry.value),
        reason: entry.reason,
        detail: entry.text,
      });
    }
    this.skippedWildcards = desired.skippedWildcards.length;
    for (const entry of this.#skippedWildcards.observe(desired.skippedWildcards)) {
      this.#log.warn(
        "wildcard hostname not written: this mode cannot express a wildcard; exact hostnames are",
        {
          kind: entry.source,
          object: entry.key,
          resourceVersion: entry.resourceVersion,
          ...loggedValueFields(entry.value),
        },
      );
    }
    return { hosts: desired.hosts, sources: desired.sources };
  }
}
