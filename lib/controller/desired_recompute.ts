/**
 * The loop's recompute of the desired set: the whole set from the full caches (with the
 * per-object memo that makes a recompute after one change cheap), each newly refused hostname
 * value logged once as a WARN (so is each wildcard left out because the mode cannot write one,
 * once per object change), and the counts `/readyz` and the metrics report.
 *
 * Which cache changes call for a recompute at all is decided here too
 * ({@linkcode hostnamesMayChange}): hostname discovery reads an object's `spec` and its identity,
 * never its status, so an update that left the spec as it was (the status churn of ingress
 * controllers rewriting load balancer addresses, thousands a second in a large cluster) wakes
 * nothing. The caches share every unchanged part with the cached object (`structural_share.ts`),
 * so "the spec did not change" is one identity comparison.
 *
 * For the same reason the per-object memo is keyed by the object's spec, not the object: after a
 * burst of status updates, the first recompute finds every updated Ingress's hostnames under its
 * unchanged spec instead of checking them all again. An entry holding refusals or skipped
 * wildcards is used only for the very version it was made for, so each refusal is still said
 * again after any change of the object (a new resourceVersion), as `RejectionLog` promises.
 *
 * Effects: log lines; the computation itself is the pure `desiredHostnames`.
 *
 * @module
 */

import {
  desiredHostnames,
  type DesiredSetOptions,
  type HostnameSources,
  type ObjectHostnames,
} from "../hostnames/desired_set.ts";
import { loggedValueFields, RejectionLog } from "../hostnames/rejection_log.ts";
import type { StoreChange } from "../reflector/store.ts";
import { type KubeObject, objectKey } from "../resources/kube_object.ts";
import type { Log } from "../util/logging.ts";
import type { DesiredInput } from "./sink_call_needed.ts";

/**
 * False when `change` cannot change the desired set: one object updated with its `spec` the
 * very object the cache held before (structural sharing keeps an unchanged spec), so only its
 * status or metadata moved. Every other change (a list swapped in, an object added or deleted,
 * a spec that differs in any part) may, and is true. Why: hostname discovery reads the spec and
 * the object's key only; a status-only update recomputing 20,000 hostnames cost most of the
 * controller's CPU under status churn.
 *
 * @example
 * ```ts
 * import type { StoreChange } from "../reflector/store.ts";
 * import type { Ingress } from "../resources/ingress.ts";
 * import { hostnamesMayChange } from "./desired_recompute.ts";
 *
 * declare const change: StoreChange<Ingress>; // from a store subscription
 * if (hostnamesMayChange(change)) {
 *   // wake the reconcile loop
 * }
 * ```
 */
export function hostnamesMayChange(change: StoreChange<KubeObject>): boolean {
  if (change.kind !== "upserted" || change.previous === undefined) return true;
  const spec = (change.object as { readonly spec?: unknown }).spec;
  return spec === undefined || spec !== (change.previous as { readonly spec?: unknown }).spec;
}

/** What the memo is keyed by: the spec (shared across status-only updates), else the object. */
function memoKey(object: object): object {
  const spec = (object as { readonly spec?: unknown }).spec;
  return typeof spec === "object" && spec !== null ? spec : object;
}

/**
 * A `DesiredSetMemo` keyed by {@linkcode memoKey}. Hostnames are computed from the spec alone;
 * refusals and skipped wildcards also name the object and its resourceVersion, so an entry with
 * any is a hit only for that same object version.
 */
class SpecMemo extends WeakMap<object, ObjectHostnames> {
  override get(object: object): ObjectHostnames | undefined {
    const entry = super.get(memoKey(object));
    const named = entry?.rejected[0] ?? entry?.skipped[0];
    if (named === undefined) return entry;
    const { metadata } = object as KubeObject;
    return named.key === objectKey(metadata) && named.resourceVersion === metadata.resourceVersion
      ? entry
      : undefined;
  }

  override set(object: object, value: ObjectHostnames): this {
    super.set(memoKey(object), value);
    return this;
  }
}

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
  readonly #memo = new SpecMemo();
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
