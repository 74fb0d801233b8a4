/**
 * `--routes`' metrics: the routes in the table the controller publishes, and the hostnames left
 * to the proxy's default target by reason (each reason from zero, so an alert sees the series).
 *
 * Pure: in-memory series.
 *
 * @module
 */

import { ROUTE_FALLBACK_REASONS, type RoutePlan } from "../../routes/route_plan.ts";
import type { MetricsRegistry } from "../../util/metrics.ts";

/** Registers the families on `registry`; the returned function records one plan. */
export function registerRoutesMetrics(registry: MetricsRegistry): (plan: RoutePlan) => void {
  const routes = registry.gauge(
    "ouroboros_controller_routes",
    "Hostnames in the route table, each with the backend of its own load balancer (--routes).",
  ).labels({});
  const fallbacks = registry.gauge(
    "ouroboros_controller_route_fallbacks",
    "Hairpinned hostnames the route table leaves to the proxy's default target, by reason (--routes).",
    ["reason"],
  );
  const byReason = new Map(ROUTE_FALLBACK_REASONS.map((reason) => [reason, fallbacks.labels({ reason })]));
  return (plan) => {
    routes.value = plan.table.routes.length;
    for (const series of byReason.values()) series.value = 0;
    for (const { reason } of plan.fallbacks) byReason.get(reason)!.value += 1;
  };
}
