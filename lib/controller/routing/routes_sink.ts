/**
 * `--routes`: keeps the route table ConfigMap (`<release>-routes`, key `routes.json`) equal to the
 * table planned from the caches, so the proxy sends each hostname to the Service behind the load
 * balancer its owner reports. It runs beside the mode's sink, in the same pass, with the same
 * guards: the fenced client under leader election, `--dry-run` previews, `--once`.
 *
 * Decisions a reader could not guess:
 * - The ConfigMap is created by the controller and carries the release's ownership labels (those
 *   of external-dns records). One without them is foreign: refused, never overwritten. The chart
 *   does not create it, so Helm never reverts what the controller wrote.
 * - The current value is read from the watched ConfigMap (a change to it wakes the loop), so a
 *   pass whose table did not change makes no request. A stale cache costs one redundant patch.
 * - The table's bytes are stable for a given table, so "unchanged" is a text comparison.
 * - Another writer first (a 409: every node's controller in etc-hosts mode writes the same table)
 *   is not a failure: its change reaches the watched ConfigMap, which calls this sink again to
 *   compare; the pass answers `unchanged` with a DEBUG notice instead of a WARN and a retry.
 * - Hostnames left to the default target are said once per change of that list (a WARN naming
 *   each with its reason), and counted by reason through `report` on every pass.
 *
 * Effects: HTTP through the injected client.
 *
 * @module
 */

import { isAlreadyExists, isConflict, isInvalid, isNotFound } from "../../kube/errors.ts";
import type { KubeClient } from "../../kube/client.ts";
import type { StoreView } from "../../reflector/store.ts";
import { type ObjectOwnership, otherInstance, ownerLabels } from "../../publisher/object_ownership.ts";
import { isOwnedBy } from "../../publisher/object_ownership.ts";
import { CONFIG_MAP, type ConfigMap } from "../../resources/config_map.ts";
import { objectKey } from "../../resources/kube_object.ts";
import type { RouteFallback, RoutePlan } from "../../routes/route_plan.ts";
import { parseRouteTable, renderRouteTable, ROUTE_TABLE_KEY } from "../../routes/route_table.ts";
import { errorMessage } from "../../util/error_message.ts";
import { unifiedDiff } from "../../util/unified_diff.ts";
import { transientFailure } from "../modes/coredns/transient_failure.ts";
import { hostnameChange, type Notice, type Sink, type SinkOutcome } from "../modes/sink.ts";

/** The most fallbacks one WARN lists by name; the rest are counted. */
const LISTED_FALLBACKS = 20;

/** Where the table is written, and by whom. */
export interface RoutesTarget {
  readonly namespace: string;
  readonly name: string;
  readonly ownership: ObjectOwnership;
}

/** Options for {@linkcode RoutesSink}. */
export interface RoutesSinkOptions {
  readonly client: Pick<KubeClient, "create" | "mergePatch">;
  readonly target: RoutesTarget;
  /** The watched ConfigMap (by name). */
  readonly current: StoreView<ConfigMap>;
  /** Plans the table from the caches as they are now. */
  readonly plan: () => RoutePlan;
  /** Told each pass's plan (the metrics). */
  readonly report?: (plan: RoutePlan) => void;
  readonly dryRun?: boolean;
}

/** The problems the routes sink refuses with (metric labels). */
export const ROUTES_REFUSAL_PROBLEMS = [
  "routes-configmap-foreign",
  "routes-configmap-immutable",
  "routes-rejected",
];

/** The route table's writer. */
export class RoutesSink implements Sink {
  readonly description: string;
  readonly #options: RoutesSinkOptions;
  readonly #where: string;
  /** The fallbacks last said, so a WARN comes once per change. */
  #saidFallbacks = "[]";

  constructor(options: RoutesSinkOptions) {
    this.#options = options;
    this.#where = `${options.target.namespace}/${options.target.name}`;
    this.description = `routes ${this.#where}[${ROUTE_TABLE_KEY}]`;
  }

  /** Makes the ConfigMap hold the table planned now; `hosts` are the mode's (not used). */
  async reconcile(_hosts: readonly string[], signal: AbortSignal): Promise<SinkOutcome> {
    signal.throwIfAborted();
    const { target, client } = this.#options;
    const plan = this.#options.plan();
    this.#options.report?.(plan);
    const notices = this.#fallbackNotices(plan.fallbacks);
    const text = renderRouteTable(plan.table);
    const current = this.#options.current.get(objectKey(target));
    const before = current?.data[ROUTE_TABLE_KEY];
    const hosts = plan.table.routes.length;
    const with_ = (outcome: SinkOutcome): SinkOutcome =>
      notices.length === 0 ? outcome : { ...outcome, notices };
    if (current !== undefined) {
      if (!isOwnedBy(current.metadata.labels, target.ownership)) return with_(this.#foreign(current));
      if (before === text) return with_({ kind: "unchanged", hosts });
      if (current.immutable) {
        return with_({
          kind: "refused",
          problem: "routes-configmap-immutable",
          scope: "nothing-written",
          message: `ConfigMap ${this.#where} is immutable, so the route table cannot change; delete it and ` +
            "the controller creates it again",
        });
      }
    }
    const counted = {
      hosts,
      ...hostnameChange(routeHosts(before), plan.table.routes.map((route) => route.host)),
      diff: unifiedDiff(before ?? "", text, { label: `${this.#where}[${ROUTE_TABLE_KEY}]` }),
    };
    if (this.#options.dryRun === true) return with_({ kind: "previewed", ...counted });
    const ref = { namespace: target.namespace, name: target.name };
    try {
      if (current === undefined) {
        await client.create(CONFIG_MAP, {
          metadata: { ...ref, labels: ownerLabels(target.ownership) },
          data: { [ROUTE_TABLE_KEY]: text },
        }, { signal });
      } else {
        // Conditional on the version read: a relabelling in between is a 409, never overwritten.
        await client.mergePatch(CONFIG_MAP, ref, { data: { [ROUTE_TABLE_KEY]: text } }, {
          signal,
          resourceVersion: current.metadata.resourceVersion,
        });
      }
    } catch (error) {
      if (isConflict(error) || isAlreadyExists(error)) {
        return {
          kind: "unchanged",
          hosts,
          notices: [...notices, {
            level: "debug",
            message:
              "another writer changed the route table first; its change calls this sink again to compare",
            properties: { configMap: this.#where },
          }],
        };
      }
      if (isInvalid(error)) {
        return with_({
          kind: "refused",
          problem: "routes-rejected",
          scope: "nothing-written",
          message: `the API server refused the route table in ConfigMap ${this.#where}: ${
            errorMessage(error)
          }`,
        });
      }
      if (isNotFound(error)) {
        return with_({ kind: "failed", message: `ConfigMap ${this.#where} was deleted` });
      }
      return with_(transientFailure(error, signal));
    }
    return with_({ kind: "written", ...counted });
  }

  #foreign(current: ConfigMap): SinkOutcome {
    const other = otherInstance(current.metadata.labels, this.#options.target.ownership);
    const holder = other === undefined ? "it is not ouroboros's" : `release ${JSON.stringify(other)} owns it`;
    return {
      kind: "refused",
      problem: "routes-configmap-foreign",
      scope: "nothing-written",
      message: `ConfigMap ${this.#where} exists and ${holder}, so the route table is not written there; ` +
        "delete it, or give another name with --routes-configmap",
    };
  }

  #fallbackNotices(fallbacks: readonly RouteFallback[]): Notice[] {
    const said = JSON.stringify(fallbacks);
    if (said === this.#saidFallbacks) return [];
    const hadSome = this.#saidFallbacks !== "[]";
    this.#saidFallbacks = said;
    if (fallbacks.length === 0) {
      return hadSome
        ? [{ level: "info", message: "every routed hostname has its own backend again", properties: {} }]
        : [];
    }
    return [{
      level: "warn",
      message:
        "hostnames routed to the proxy's default target (--target-host): their owner's backend was not found",
      properties: {
        count: fallbacks.length,
        hostnames: fallbacks.slice(0, LISTED_FALLBACKS).map(({ host, reason, detail }) => ({
          host,
          reason,
          detail,
        })),
        ...(fallbacks.length > LISTED_FALLBACKS ? { notListed: fallbacks.length - LISTED_FALLBACKS } : {}),
      },
    }];
  }
}

/** The hosts of a table's text; none when it is absent or unreadable (everything counts as added). */
function routeHosts(text: string | undefined): string[] {
  if (text === undefined) return [];
  const parsed = parseRouteTable(text);
  return parsed.ok ? parsed.table.routes.map((route) => route.host) : [];
}
