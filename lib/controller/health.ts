/**
 * The controller's `/readyz` (200, or 503 `not ready: <reason>`) and `/metrics` on the shared
 * health listener, which answers `/healthz` itself.
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

/** The controller's routes for the health listener. */
export function controllerHealthRoutes(view: HealthView): HealthRoutes {
  return {
    readiness() {
      const readiness = view.readiness();
      return readiness.ready ? readiness : { ready: false, text: `not ready: ${readiness.reason}` };
    },
    metrics: () => view.metrics(),
  };
}
