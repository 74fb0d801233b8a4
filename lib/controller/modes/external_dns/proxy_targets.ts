/**
 * Where external-dns mode's records point: `--external-dns-proxy-ip`, or the cluster IPs of the
 * proxy Service as the controller's cache of that one Service holds them now. Reading the cache
 * instead of asking the API server once at start-up (as the original did) means a re-created or
 * re-addressed proxy Service re-targets every record on the next reconcile, and a Service that
 * is headless, has no cluster IP yet or is missing is a reason the records cannot be written,
 * reported by the sink until it is fixed, not a crash loop.
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

/**
 * The targets now: `undefined` while the Service cache has not listed yet (nothing may be
 * decided then), otherwise resolved addresses or the reason there are none.
 *
 * @example
 * ```ts
 * import { currentTargets } from "./proxy_targets.ts";
 *
 * currentTargets({ kind: "address", address: "10.96.0.7" });
 * // { kind: "resolved", targets: { ipv4: ["10.96.0.7"], ipv6: [] }, origin: "--external-dns-proxy-ip" }
 * ```
 */
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
 * What a pass says about its targets: one INFO when they first resolve and one each time the
 * addresses change, nothing while they stay the same. An unusable state is remembered (so the way
 * out of it is said) but not said here: the pass is refused with its problem and message, and
 * the controller logs that refusal.
 *
 * @example
 * ```ts
 * import { currentTargets, targetNotices } from "./proxy_targets.ts";
 *
 * const origin = { kind: "address", address: "10.96.0.7" } as const;
 * const first = targetNotices(undefined, currentTargets(origin));
 * // first.notices: [{ level: "info", message: "external-dns: records point at the proxy's addresses", … }]
 * targetNotices(first.key, currentTargets(origin)).notices; // [] while nothing changed
 * ```
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
