/**
 * The leader-election judge of the real-component suite: from the apiserver's own record of
 * requests (its audit log), every successful write to the guarded object must come from the
 * replica whose successful Lease write (create, renew or take-over) was the last to complete
 * before the apiserver received that write. A replica that wakes from SIGSTOP, or comes back
 * from a partition, and writes before it has renewed, writes outside its leadership: the judge
 * names that write.
 *
 * Replicas are told apart by the uid of their token (they share one ServiceAccount user).
 *
 * Pure: audited requests in, violations out.
 *
 * @module
 */

import type { AuditedRequest } from "./rbac_usage.ts";

/** Which requests are writes to the guarded object, and which are writes to the Lease. */
export interface SingleWriterRules {
  readonly isGuardedWrite: (request: AuditedRequest) => boolean;
  readonly isLeaseWrite: (request: AuditedRequest) => boolean;
}

/** A guarded write made by a replica that did not hold the Lease's latest write. */
export interface Violation {
  readonly write: AuditedRequest;
  /** The uid of the last Lease writer before it, if any. */
  readonly leaseHolder: string | undefined;
}

const successful = (request: AuditedRequest) => request.code >= 200 && request.code < 300;

/**
 * The guarded writes made outside leadership, in the order received.
 *
 * @example
 * ```ts
 * import { writesOutsideLeadership } from "./single_writer.ts";
 * declare const requests: import("./rbac_usage.ts").AuditedRequest[];
 * writesOutsideLeadership(requests, {
 *   isGuardedWrite: (r) => r.verb === "patch" && r.resource === "configmaps",
 *   isLeaseWrite: (r) => r.resource === "leases" && (r.verb === "update" || r.verb === "create"),
 * }); // [] when one writer held the lease at every write
 * ```
 */
export function writesOutsideLeadership(
  requests: readonly AuditedRequest[],
  rules: SingleWriterRules,
): Violation[] {
  const leaseWrites = requests.filter((request) => successful(request) && rules.isLeaseWrite(request))
    .sort((a, b) => a.completed.localeCompare(b.completed));
  const violations: Violation[] = [];
  const writes = requests.filter((request) => successful(request) && rules.isGuardedWrite(request))
    .sort((a, b) => a.received.localeCompare(b.received));
  for (const write of writes) {
    let holder: string | undefined;
    for (const lease of leaseWrites) {
      if (lease.completed > write.received) break;
      holder = lease.uid;
    }
    if (holder !== write.uid) violations.push({ write, leaseHolder: holder });
  }
  return violations;
}

/** The distinct writers of the guarded object, in the order they first wrote. */
export function guardedWriters(requests: readonly AuditedRequest[], rules: SingleWriterRules): string[] {
  const writers: string[] = [];
  const writes = requests.filter((request) => successful(request) && rules.isGuardedWrite(request))
    .sort((a, b) => a.received.localeCompare(b.received));
  for (const write of writes) if (!writers.includes(write.uid)) writers.push(write.uid);
  return writers;
}
