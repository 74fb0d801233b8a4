/**
 * Which backend a hostname a client sent is routed to, asked once per connection.
 *
 * The table is compiled into two `Map`s once per table, so a lookup is at most two probes: the
 * exact name, then the wildcard of its parent. The wildcard rule is `hostnames/wildcard.ts`'s (as
 * TLS, RFC 6125 §6.4.3, and Gateway API listeners): the `*` is exactly one label, so
 * `*.example.com` matches `shop.example.com`, not `example.com` nor `a.shop.example.com`. So at
 * most one wildcard can match a name, and an exact name always wins over it.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { normaliseHostname } from "../hostnames/hostname.ts";
import { parentDomain, wildcardDomain } from "../hostnames/wildcard.ts";
import type { RouteBackend, RouteTable } from "./route_table.ts";

/** A backend with its name, the `route` label of its connections; one object per backend. */
export interface RouteTarget {
  readonly name: string;
  readonly backend: RouteBackend;
}

/** A table ready for lookups: exact names, and wildcards by the domain under their `*.`. */
export interface CompiledRoutes {
  readonly exact: ReadonlyMap<string, RouteTarget>;
  readonly wildcards: ReadonlyMap<string, RouteTarget>;
}

/** Compiles a parsed table; a route naming no backend (impossible after parsing) is skipped. */
export function compileRoutes(table: RouteTable): CompiledRoutes {
  const targets = new Map<string, RouteTarget>();
  for (const [name, backend] of table.backends) targets.set(name, { name, backend });
  const exact = new Map<string, RouteTarget>();
  const wildcards = new Map<string, RouteTarget>();
  for (const { host, backend } of table.routes) {
    const target = targets.get(backend);
    if (target === undefined) continue;
    const domain = wildcardDomain(host);
    if (domain === undefined) exact.set(host, target);
    else wildcards.set(domain, target);
  }
  return { exact, wildcards };
}

/**
 * The target of `hostname` (any case, trailing dot ignored): its exact route, else the wildcard
 * of its parent domain, else `undefined` for the default target.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compileRoutes, lookupRoute } from "./route_lookup.ts";
 *
 * const gateway = { address: "10.96.0.12", httpPort: 80, httpsPort: 443, proxyProtocol: "v2" } as const;
 * const routes = compileRoutes({
 *   routes: [{ host: "*.example.com", backend: "gateway" }],
 *   backends: new Map([["gateway", gateway]]),
 * });
 * assert.equal(lookupRoute(routes, "Shop.Example.com.")?.name, "gateway");
 * assert.equal(lookupRoute(routes, "a.shop.example.com"), undefined);
 * ```
 */
export function lookupRoute(routes: CompiledRoutes, hostname: string): RouteTarget | undefined {
  const name = normaliseHostname(hostname);
  const exact = routes.exact.get(name);
  if (exact !== undefined || routes.wildcards.size === 0) return exact;
  const parent = parentDomain(name);
  return parent === undefined ? undefined : routes.wildcards.get(parent);
}
