/**
 * Why the controller's loop runs a pass: the loop's own reasons plus the controller's (a source
 * changed, the sink's target changed, a prerequisite changed), and their wording for logs.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { LoopTrigger } from "../daemon/loop_step.ts";

/** Why a reconcile runs; several reasons can be pending at once. */
export interface Trigger extends LoopTrigger {
  /** A source cache changed (or the first sync): recompute, call the sink if the set moved. */
  readonly sources: boolean;
  /** The sink's target changed (someone edited the ConfigMap): call the sink. */
  readonly target: boolean;
  /** A prerequisite changed (the proxy Service): call the sink, its input moved. */
  readonly prerequisite: boolean;
  /** The periodic resync: call the sink, which repairs drift and writes only if needed. */
  readonly resync: boolean;
  /** The previous call failed: call the sink again. */
  readonly retry: boolean;
  /** This replica just became the leader: call the sink, its last accepted set may be stale. */
  readonly leadership: boolean;
  /** A hold-off the sink asked for (`recheckAfterMs`) has ended: call the sink again. */
  readonly recheck: boolean;
}

/** The reasons of a {@linkcode Trigger}, in the order logs list them. */
export const TRIGGER_REASONS = [
  "sources",
  "target",
  "prerequisite",
  "resync",
  "retry",
  "leadership",
  "recheck",
] as const;

/** Nothing pending. */
export const NO_TRIGGER: Trigger = {
  sources: false,
  target: false,
  prerequisite: false,
  resync: false,
  retry: false,
  leadership: false,
  recheck: false,
};

/** The reasons set in `trigger`, comma-separated, for logs (`"sources,resync"`). */
export function triggerReasons(trigger: Trigger): string {
  return TRIGGER_REASONS.filter((name) => trigger[name]).join(",");
}
