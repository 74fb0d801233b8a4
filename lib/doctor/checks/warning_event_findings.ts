/**
 * The health check's judgement of the Warning Events ouroboros recorded within the window (an
 * hour, the API server's default Event TTL): newest first, at most {@linkcode EVENT_LIMIT}.
 *
 * Pure: no I/O; the time is passed in.
 *
 * @module
 */

import type { TimedEvent } from "../../resources/timed_event.ts";
import type { Finding } from "../doctor_check.ts";
import { ago, healthFinding } from "./health_findings.ts";

/** `source.component` / `reportingComponent` of the Events ouroboros records. */
export const EVENT_COMPONENT = "ouroboros";

/** How many Events become findings before the rest are counted. */
export const EVENT_LIMIT = 10;

/** What {@linkcode warningEventFindings} decides from. */
export interface WarningEventInput {
  /** Any type and component: the filter is here. */
  readonly events: readonly TimedEvent[];
  readonly namespaces: readonly string[];
  /** Unix milliseconds. */
  readonly now: number;
  /** How far back. @default 3_600_000 */
  readonly windowMs?: number;
}

/**
 * The findings about recent Warning Events from ouroboros.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { warningEventFindings } from "./warning_event_findings.ts";
 *
 * const findings = warningEventFindings({ events: [], namespaces: ["kube-system"], now: Date.now() });
 * assert.equal(findings[0]?.verdict, "ok");
 * ```
 */
export function warningEventFindings(input: WarningEventInput): Finding[] {
  const windowMs = input.windowMs ?? 3_600_000;
  const recent = input.events
    .filter((event) => event.type === "Warning" && event.component === EVENT_COMPONENT)
    .map((event) => ({ event, at: event.lastSeen === undefined ? Number.NaN : Date.parse(event.lastSeen) }))
    .filter(({ at }) => !Number.isNaN(at) && input.now - at <= windowMs)
    .sort((a, b) => b.at - a.at);
  const where = input.namespaces.join(", ");
  if (recent.length === 0) {
    return [healthFinding(`Events in ${where}`, [
      "ok",
      `no Warning Events from ouroboros in the last ${ago(windowMs)}`,
    ])];
  }
  const findings = recent.slice(0, EVENT_LIMIT).map(({ event, at }) => {
    const object = event.involvedObject;
    const times = event.count > 1 ? `×${event.count}, ` : "";
    return healthFinding(`Event on ${object.kind} ${object.namespace}/${object.name}`, [
      "warning",
      `${event.reason} (${times}last ${ago(input.now - at)} ago): ${event.message}`,
      `fix what it says; kubectl get events -n ${event.metadata.namespace} --field-selector ` +
      `type=Warning,reason=${event.reason}`,
    ]);
  });
  if (recent.length > EVENT_LIMIT) {
    findings.push(healthFinding(`Events in ${where}`, [
      "warning",
      `${recent.length - EVENT_LIMIT} more Warning Events from ouroboros in the last ${ago(windowMs)}`,
      "kubectl get events -A --field-selector type=Warning",
    ]));
  }
  return findings;
}
