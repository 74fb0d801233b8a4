/**
 * Whether a reconcile must call the sink, or can drop a recompute without a request to the API
 * server: only a new desired set or a trigger other than `sources` calls it, so a burst that
 * changes no hostname (status-only updates) costs a recompute and nothing else.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { HostSource } from "../hostnames/sources.ts";
import type { Trigger } from "./trigger.ts";

/** A desired set as handed to the sink: the hostnames and the kinds each came from. */
export interface DesiredInput {
  readonly hosts: readonly string[];
  readonly sources: ReadonlyMap<string, readonly HostSource[]>;
}

/** The inputs of {@linkcode sinkCallNeeded}. */
export interface SinkCallInput {
  readonly trigger: Trigger;
  /** The set the sink last accepted; `undefined` before the first and after a failure. */
  readonly accepted: DesiredInput | undefined;
  readonly desired: DesiredInput;
}

/**
 * True when the sink must be called (see the module doc).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NO_TRIGGER } from "./trigger.ts";
 * import { type DesiredInput, sinkCallNeeded } from "./sink_call_needed.ts";
 *
 * const accepted: DesiredInput = {
 *   hosts: ["a.example.com"],
 *   sources: new Map([["a.example.com", ["ingress"]]]),
 * };
 * const unchanged = { accepted, desired: accepted };
 * assert.equal(sinkCallNeeded({ trigger: { ...NO_TRIGGER, sources: true }, ...unchanged }), false);
 * assert.equal(sinkCallNeeded({ trigger: { ...NO_TRIGGER, resync: true }, ...unchanged }), true);
 * ```
 */
export function sinkCallNeeded(input: SinkCallInput): boolean {
  const { trigger, accepted } = input;
  return trigger.target || trigger.prerequisite || trigger.resync || trigger.retry || trigger.leadership ||
    trigger.recheck ||
    accepted === undefined || !sameDesired(accepted, input.desired);
}

function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

function sameDesired(a: DesiredInput, b: DesiredInput): boolean {
  if (!sameList(a.hosts, b.hosts) || a.sources.size !== b.sources.size) return false;
  for (const [host, kinds] of a.sources) {
    const other = b.sources.get(host);
    if (other === undefined || !sameList(kinds, other)) return false;
  }
  return true;
}
