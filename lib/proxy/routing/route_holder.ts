/**
 * The route table a running proxy (or one worker) serves with, swapped whole: a connection takes
 * the table once, after its first bytes, so a swap never changes a connection's backend midway
 * and never touches one in flight.
 *
 * Decisions a reader could not guess:
 * - A table with no routes is no table: connections then skip reading ahead and overlap their
 *   first read with the dial, as without `--routes-file`.
 * - Each backend's counter series is resolved once per table, so a connection bumps a number and
 *   builds no label key. Series of backends a newer table dropped stay (counters never go back).
 *
 * Effects: none beyond its own state and the metric series it creates.
 *
 * @module
 */

import type { NumberFamily, NumberSeries } from "../../util/metrics.ts";
import {
  type CompiledRoutes,
  compileRoutes,
  lookupRoute,
  type RouteTarget,
} from "../../routes/route_lookup.ts";
import { DEFAULT_ROUTE, type RouteTable } from "../../routes/route_table.ts";

/** Where one connection goes: a table's backend, or `undefined` for the default target. */
export interface RouteChoice {
  readonly target: RouteTarget | undefined;
  /** The `route` series of the choice (`default` for the default target). */
  readonly connections: NumberSeries;
}

interface ServingTable {
  readonly routes: CompiledRoutes;
  readonly choices: ReadonlyMap<RouteTarget, RouteChoice>;
}

/** The table being served, and the connection counter per route. */
export class RouteHolder {
  readonly #family: NumberFamily<"route">;
  readonly #defaultChoice: RouteChoice;
  #serving: ServingTable | undefined;

  /** `family` is `ouroboros_proxy_route_connections_total`; its `default` series starts at zero. */
  constructor(family: NumberFamily<"route">) {
    this.#family = family;
    this.#defaultChoice = { target: undefined, connections: family.labels({ route: DEFAULT_ROUTE }) };
  }

  /** Serves `table` from the next connection on. */
  set(table: RouteTable): void {
    const routes = compileRoutes(table);
    if (routes.exact.size === 0 && routes.wildcards.size === 0) {
      this.#serving = undefined;
      return;
    }
    const choices = new Map<RouteTarget, RouteChoice>();
    for (const target of [...routes.exact.values(), ...routes.wildcards.values()]) {
      if (!choices.has(target)) {
        choices.set(target, { target, connections: this.#family.labels({ route: target.name }) });
      }
    }
    this.#serving = { routes, choices };
  }

  /** Whether a table with at least one route is served: connections read their first bytes. */
  get active(): boolean {
    return this.#serving !== undefined;
  }

  /** The choice for `name` (a normalised hostname), or the default for `undefined`. */
  choose(name: string | undefined): RouteChoice {
    const serving = this.#serving;
    if (serving === undefined || name === undefined) return this.#defaultChoice;
    const target = lookupRoute(serving.routes, name);
    return target === undefined ? this.#defaultChoice : serving.choices.get(target) ?? this.#defaultChoice;
  }
}
