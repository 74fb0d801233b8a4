/**
 * The routes of every subcommand's health listener: `/healthz`, `/readyz` and `/metrics`. Each
 * subcommand supplies only its readiness and metrics answers.
 *
 * Pure: no I/O of its own; the routes may do some (the proxy's readiness dials its backend).
 *
 * @module
 */

import { METRICS_CONTENT_TYPE } from "../util/metrics.ts";

/** `/readyz`'s answer: 200 `ok`, or 503 with a one-line text saying why not. */
export type ReadyzAnswer =
  | { readonly ready: true }
  | {
    readonly ready: false;
    /** The 503 body, one line without its line break, such as `shutting down`. */
    readonly text: string;
  };

/** The two answers a subcommand gives its health listener. */
export interface HealthRoutes {
  readiness(): ReadyzAnswer | Promise<ReadyzAnswer>;
  /** The Prometheus exposition, rendered now. */
  metrics(): string | Promise<string>;
}

const TEXT = { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" };

/** The plain-text answer for `status`. */
function text(body: string, status: number): Response {
  return new Response(`${body}\n`, { status, headers: TEXT });
}

/**
 * The request handler of a health listener; other paths answer 404 naming the three.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { healthHandler } from "./health_handler.ts";
 *
 * const readiness = () => ({ ready: false, text: "starting" }) as const;
 * const handler = healthHandler({ readiness, metrics: () => "" });
 * const response = await handler(new Request("http://health/readyz"));
 * assert.equal(response.status, 503);
 * assert.equal(await response.text(), "starting\n");
 * ```
 */
export function healthHandler(routes: HealthRoutes): (request: Request) => Promise<Response> {
  return async (request: Request): Promise<Response> => {
    switch (new URL(request.url).pathname) {
      case "/healthz":
        return text("ok", 200);
      case "/readyz": {
        const answer = await routes.readiness();
        return answer.ready ? text("ok", 200) : text(answer.text, 503);
      }
      case "/metrics":
        return new Response(await routes.metrics(), {
          status: 200,
          headers: { "content-type": METRICS_CONTENT_TYPE },
        });
      default:
        return text("not found; try /healthz, /readyz or /metrics", 404);
    }
  };
}
