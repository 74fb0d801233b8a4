/**
 * Where external-dns mode's records point: `--external-dns-proxy-ip`, or the proxy Service's
 * cluster IPs as the controller's cache holds them now. Reading the cache, not the API once at
 * start (as the original did), re-targets every record when the Service changes, and a missing or
 * headless Service refuses passes until fixed instead of crash-looping.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { StoreView } from "../../../reflector/store.ts";
import type { Notice } from "../sink.ts";
import type { Service } from "../../../resources/service.ts";
import { targetsFromAddresses, targetsFromService, type TargetsResult } from "./targets.ts";
import type { ObjectRef } from "../../../kube/client.ts";

/** Where the targets come from. */
export type TargetOrigin =
  /** `--external-dns-proxy-ip`: fixed for the life of the process. */
  | { readonly kind: "address"; readonly address: string }
  /** The proxy Service `ref`, as the cache holds it. */
  | { readonly kind: "service"; readonly ref: Required<ObjectRef>; readonly store: StoreView<Service> };

/** The targets now; `undefined` until the Service cache has listed (nothing may be decided). */
export function currentTargets(origin: TargetOrigin): TargetsResult | undefined {
  if (origin.kind === "address") return targetsFromAddresses([origin.address], "--external-dns-proxy-ip");
  const { store, ref } = origin;
  if (!store.synced) return undefined;
  const service = store.get(`${ref.namespace}/${ref.name}`);
  if (service !== undefined) return targetsFromService(service);
  return {
    kind: "unusable",
    problem: "service-not-found",
    message:
      `the proxy Service ${ref.namespace}/${ref.name} does not exist; check --external-dns-proxy-service ` +
      "and the namespace it is looked up in, or set --external-dns-proxy-ip",
  };
}

/** One line for logs: `10.96.0.7, fd00::7 (Service ouroboros/ouroboros-proxy)`. */
export function describeTargets(result: Extract<TargetsResult, { kind: "resolved" }>): string {
  return `${[...result.targets.ipv4, ...result.targets.ipv6].join(", ")} (${result.origin})`;
}

/** What {@linkcode targetNotices} says, and what to remember for the next pass. */
export interface TargetAnnouncement {
  /** The targets as a comparable string: pass it back as `previous` next time. */
  readonly key: string | undefined;
  readonly notices: readonly Notice[];
}

/**
 * What a pass says about its targets: one INFO when they first resolve and at each change. An
 * unusable state is remembered but not said here: the refused pass carries it.
 */
export function targetNotices(
  previous: string | undefined,
  targets: TargetsResult | undefined,
): TargetAnnouncement {
  if (targets === undefined) return { key: previous, notices: [] };
  const key = JSON.stringify(targets);
  if (key === previous || targets.kind === "unusable") return { key, notices: [] };
  return {
    key,
    notices: [{
      level: "info",
      message: previous === undefined
        ? "external-dns: records point at the proxy's addresses"
        : "external-dns: the proxy's addresses changed; re-targeting the records",
      properties: {
        targets: describeTargets(targets),
        ipv4: targets.targets.ipv4,
        ipv6: targets.targets.ipv6,
      },
    }],
  };
}
