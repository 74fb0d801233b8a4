/**
 * The health check's judgement of leader election (`--leader-elect`): who holds the Lease, and
 * whether it still renews it.
 *
 * Decisions:
 * - The controller's identity is `<pod name>_<random suffix>` (`lib/controller/controller_command.ts`), so
 *   a holder is matched to a pod by that prefix (or the whole name).
 * - A renew older than the lease duration is a problem: replicas take over within a retry
 *   period, so an expired Lease that stays expired means nobody writes. The renew time is the
 *   holder's clock, the age the doctor's: a skew of a few seconds is tolerated by the margin of
 *   one lease duration the followers wait anyway.
 * - A holder that is not a current controller pod, with a fresh renew, is a warning: another
 *   process (another release sharing `--leader-election-id`, a pod the selector misses) leads.
 *
 * Pure: no I/O; the time is passed in.
 *
 * @module
 */

import type { Lease } from "../../resources/lease.ts";
import type { Finding } from "../doctor_check.ts";
import { ago, healthFinding } from "./health_findings.ts";

/** What {@linkcode leaderFinding} decides from. */
export interface LeaderInput {
  /** `--leader-election-namespace` and `--leader-election-id`. */
  readonly lease: { readonly namespace: string; readonly name: string };
  /** The Lease as read; `undefined` when it does not exist. */
  readonly found: Lease | undefined;
  /** Names of the controller pods found now; `undefined` when they could not be listed. */
  readonly pods: readonly string[] | undefined;
  /** Unix milliseconds now. */
  readonly now: number;
}

/** The pod a holder identity names: the pod whose name it is or starts with (`<pod>_<suffix>`). */
function holderPod(holder: string, pods: readonly string[]): string | undefined {
  return pods.find((pod) => holder === pod || holder.startsWith(`${pod}_`));
}

/**
 * The leader's finding.
 *
 * @example
 * ```ts
 * import { leaderFinding } from "./leader_finding.ts";
 *
 * const now = Date.parse("2026-05-01T12:00:00Z");
 * leaderFinding({
 *   lease: { namespace: "ouroboros", name: "ouroboros-controller" },
 *   found: {
 *     metadata: { name: "ouroboros-controller", namespace: "ouroboros", uid: "u", resourceVersion: "1", labels: {}, annotations: {}, ownerReferences: [] },
 *     spec: { holderIdentity: "ctl-7d9f_ab12cd34", leaseDurationSeconds: 15, renewTime: "2026-05-01T11:59:58.000000Z" },
 *   },
 *   pods: ["ctl-7d9f", "ctl-5c2a"],
 *   now,
 * }).verdict; // "ok"
 * ```
 */
export function leaderFinding(input: LeaderInput): Finding {
  const { lease, found, pods, now } = input;
  const subject = `Lease ${lease.namespace}/${lease.name}`;
  const todo = "read the controller pods' logs (election lines); --leader-election-namespace and " +
    "--leader-election-id must be the controller's";
  if (found === undefined) {
    return healthFinding(subject, [
      "problem",
      "the Lease does not exist: no replica has taken the lead",
      todo,
    ]);
  }
  const holder = found.spec.holderIdentity ?? "";
  if (holder === "") {
    return healthFinding(subject, [
      "problem",
      "nobody holds the Lease (it was released and not taken)",
      todo,
    ]);
  }
  const duration = (found.spec.leaseDurationSeconds ?? 15) * 1000;
  const renewed = found.spec.renewTime === undefined ? Number.NaN : Date.parse(found.spec.renewTime);
  const pod = pods === undefined ? holder : holderPod(holder, pods);
  const who = pod === undefined
    ? `${holder}, which is not a current controller pod`
    : pod === holder
    ? holder
    : `pod ${pod} (${holder})`;
  if (Number.isNaN(renewed)) {
    return healthFinding(subject, ["warning", `held by ${who}, with no renew time`, todo]);
  }
  const age = now - renewed;
  const timing = `renewed ${ago(age)} ago, lease duration ${ago(duration)}`;
  if (age > duration) {
    return healthFinding(subject, [
      "problem",
      `held by ${who}, but ${timing}: the leader stopped renewing and nobody took over (or the clocks differ)`,
      todo,
    ]);
  }
  if (pod === undefined) {
    return healthFinding(subject, [
      "warning",
      `held by ${who} (${timing})`,
      "another process leads: check that no other release shares --leader-election-id, and that " +
      "--controller-selector matches every controller pod",
    ]);
  }
  return healthFinding(subject, ["ok", `held by ${who} (${timing})`]);
}
