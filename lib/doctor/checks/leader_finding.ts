/**
 * The health check's judgement of leader election: who holds the Lease, and whether it renews.
 * A renew older than one lease duration is a problem (followers would have taken over); a fresh
 * holder that is no current controller pod is a warning (another process leads).
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
  readonly lease: { readonly namespace: string; readonly name: string };
  /** `undefined` when the Lease does not exist. */
  readonly found: Lease | undefined;
  /** Controller pod names; `undefined` when they could not be listed. */
  readonly pods: readonly string[] | undefined;
  /** Unix milliseconds. */
  readonly now: number;
}

/** The pod a holder identity names: the controller's identity is `<pod>_<suffix>`. */
function holderPod(holder: string, pods: readonly string[]): string | undefined {
  return pods.find((pod) => holder === pod || holder.startsWith(`${pod}_`));
}

/** The leader's finding. */
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
