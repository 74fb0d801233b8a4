/**
 * The loop's recompute of the desired set from the full caches: each newly refused hostname (and
 * each wildcard the mode cannot write) is one WARN, and the counts go to readiness and metrics.
 *
 * Hostname discovery reads an object's spec and identity, never its status, and the caches keep
 * an unchanged spec as the same object: so a status-only update wakes nothing (one identity
 * check), and the per-object memo is keyed by the spec, not the object.
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
 * False when `change` updated one object and left its `spec` the very object the cache held, so
 * only status or metadata moved (status churn once cost most of the controller's CPU).
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
 * A `DesiredSetMemo` keyed by the spec. An entry holding refusals or skipped wildcards is a hit
 * only for that object version, so each is said again after any change of the object.
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

/** Recomputes the desired set for one loop, saying each refusal once per object change. */
export class DesiredRecompute {
  readonly #options: DesiredSetOptions;
  readonly #log: Log;
  readonly #memo = new SpecMemo();
  readonly #rejections = new RejectionLog();
  readonly #skippedWildcards = new RejectionLog();
  /** Hostnames in the set at the last recompute. */
  hosts = 0;
  /** Refused hostname values at the last recompute. */
  rejected = 0;
  /** Wildcards left out at the last recompute because the mode cannot write them. */
  skippedWildcards = 0;

  /** `log` gets the refusal WARNs. */
  constructor(options: DesiredSetOptions, log: Log) {
    this.#options = options;
    this.#log = log;
  }

  /** The desired set from `lists`, logging each newly refused value. Throws only for a bug. */
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
