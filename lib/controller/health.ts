/**
 * The controller's answers on the shared health listener (`--listen-health`, default `:8082`,
 * served by `daemon/health_listener.ts`): `/readyz` is 200 once every source cache has synced
 * and a reconcile has succeeded, 503 with `not ready: <reason>` otherwise; `/metrics` renders
 * the controller's registry. `/healthz` is the listener's own.
 *
 * Pure: maps the runtime's view to the listener's routes.
 *
 * @module
 */

import type { HealthRoutes } from "../daemon/health_handler.ts";
import type { Readiness } from "./readiness.ts";

/** What the routes read. */
export interface HealthView {
  readiness(): Readiness;
  /** The Prometheus exposition, rendered now. */
  metrics(): string;
}

/**
 * The controller's routes for the health listener.
 *
 * @example
 * ```ts
 * import { controllerHealthRoutes } from "./health.ts";
 *
 * const routes = controllerHealthRoutes({
 *   readiness: () => ({ ready: false, reason: "no reconcile has finished yet" }),
 *   metrics: () => "",
 * });
 * routes.readiness(); // { ready: false, text: "not ready: no reconcile has finished yet" }
 * ```
 */
export function controllerHealthRoutes(view: HealthView): HealthRoutes {
  return {
    readiness() {
      const readiness = view.readiness();
      return readiness.ready ? readiness : { ready: false, text: `not ready: ${readiness.reason}` };
    },
    metrics: () => view.metrics(),
  };
}
