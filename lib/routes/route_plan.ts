/**
 * The route table the controller publishes (issue 30), planned from its caches: each hairpinned
 * hostname goes to the LoadBalancer Service behind the address its owner reports, or to the
 * default target with a reason (a closed list, so the controller can count it as a metric label).
 *
 * A hostname's owners are the Ingresses and Gateways it comes from; an HTTPRoute, GRPCRoute or
 * TLSRoute lends its names to each parent Gateway found among the class-filtered ones (by
 * namespace and name; `sectionName` ignored, addresses are per Gateway). An owner reports the
 * `ip`s of an Ingress's `status.loadBalancer.ingress[]`, or a Gateway's `status.addresses[]` of
 * type `IPAddress`; an entry with only a `hostname` (type `Hostname`) is hostname-only, and other
 * types, and values that are no IP address, are ignored. A route none of whose parents is found
 * owns its names itself and reports nothing (`no-owner`).
 *
 * Decisions a reader could not guess:
 * - The names are the desired set's: each kept object's accepted names come from
 *   `desiredHostnames` itself, read back per object from a fresh memo, so filters, checks and
 *   wildcards (routed only with `wildcards: "include"`) are never restated here.
 * - Addresses compare canonically (`formatIp`), an IPv4-mapped IPv6 address as its IPv4 address.
 * - Each address of each owner leads to a backend (the one LoadBalancer Service, any namespace,
 *   whose status holds it) or to a reason. A hostname whose addresses lead to exactly one backend
 *   is routed there, whatever its other addresses lead to: a v4 and a v6 address of one Service
 *   are one backend, and an address no Service holds yet (or two do) does not hold the other back.
 *   Two or more backends: `conflict`. None: the reason latest in {@linkcode ROUTE_FALLBACK_REASONS}
 *   (the furthest the name got), from the first owner and address in code-unit order.
 * - A backend is named `<namespace>/<name>`; its address is the ClusterIP, else (absent or `None`)
 *   `<name>.<namespace>.svc.<clusterDomain>`; its ports are the Service's own TCP `port`s: 80, else
 *   the one named `http`, and 443, else `https` (a LoadBalancer Service cannot be headless, so
 *   either address reaches the Service port). Each backend is checked by `parseRouteTable` itself,
 *   so a plan always renders to a table the proxy reads.
 *
 * Pure: no I/O.
 *
 * @module
 */

import {
  createDesiredSetMemo,
  desiredHostnames,
  type DesiredSetOptions,
  type HostnameSources,
} from "../hostnames/desired_set.ts";
import { filterGatewayApi, filterIngresses, parentGatewayKey } from "../hostnames/filters.ts";
import { normaliseHostname } from "../hostnames/hostname.ts";
import type { Gateway } from "../resources/gateway.ts";
import type { GatewayRoute } from "../resources/gateway_route.ts";
import type { Ingress } from "../resources/ingress.ts";
import { objectKey } from "../resources/kube_object.ts";
import type { Service } from "../resources/service.ts";
import { formatIp, parseIp, unmapIpv4 } from "../util/ip.ts";
import {
  parseRouteTable,
  renderRouteTable,
  type Route,
  type RouteBackend,
  type RouteTable,
} from "./route_table.ts";

/** Why a hostname goes to the default target, from the earliest step a name can stop at to the last. */
export const ROUTE_FALLBACK_REASONS = [
  "no-owner",
  "no-address",
  "hostname-only",
  "no-service",
  "two-services",
  "no-port",
  "bad-annotation",
  "bad-backend",
  "conflict",
] as const;

/** One of {@linkcode ROUTE_FALLBACK_REASONS}. */
export type RouteFallbackReason = typeof ROUTE_FALLBACK_REASONS[number];

/** The Service annotation that overrides the default PROXY protocol version: `v1` or `v2`. */
export const PROXY_PROTOCOL_ANNOTATION = "ouroboros.lexfrei.tech/proxy-protocol";

/** A hostname left to the default target: why, and a sentence naming the objects and the fix. */
export interface RouteFallback {
  readonly host: string;
  readonly reason: RouteFallbackReason;
  readonly detail: string;
}

/** The outcome of {@linkcode planRoutes}: every hostname is in exactly one of the two lists. */
export interface RoutePlan {
  /** Routes sorted by host; backends (sorted by name) are only those a route names. */
  readonly table: RouteTable;
  /** Sorted by host. */
  readonly fallbacks: readonly RouteFallback[];
}

/** What {@linkcode planRoutes} reads: the controller's caches and settings. */
export interface RoutePlanInput {
  readonly sources: HostnameSources;
  /** Every Service in the caches; only those of type LoadBalancer are read. */
  readonly services: readonly Service[];
  /** The options the controller computes its desired set with. */
  readonly options: DesiredSetOptions;
  /** Each backend's PROXY version, unless its Service's {@linkcode PROXY_PROTOCOL_ANNOTATION} says. */
  readonly defaultProxyProtocol: "v1" | "v2";
}

/** Why a hostname, an owner or an address reaches no backend. */
type Problem = Omit<RouteFallback, "host">;

/** An owner: its label (`Ingress shop/web`), the status field it reports in, and what it reports. */
interface Owner {
  readonly label: string;
  readonly field: string;
  /** Canonical IP addresses. */
  readonly ips: readonly string[];
  /** Load-balancer entries with a hostname and no IP address. */
  readonly hostnames: readonly string[];
  /** A route none of whose parents was found: it owns its names itself, and reports nothing. */
  readonly parentless?: boolean;
}

/** Where one address (`at`) of one owner leads: a backend's name, or why none. */
type Lead = { readonly owner: string; readonly at: string } & ({ readonly backend: string } | Problem);

/** A Service as a backend, or why it cannot be one (`detail` continues "Service x/y, which …"). */
type ServiceOutcome = { readonly backend: RouteBackend } | Problem;

/** Canonical IP address → the LoadBalancer Services whose status holds it, by backend name. */
type Holders = ReadonlyMap<string, ReadonlyMap<string, ServiceOutcome>>;

/**
 * Plans the route table: see the module doc for the rules. The same input in any order gives the
 * same plan.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeIngress } from "../resources/ingress.ts";
 * import { decodeService } from "../resources/service.ts";
 * import { planRoutes } from "./route_plan.ts";
 *
 * const ingress = decodeIngress({
 *   metadata: { name: "web", namespace: "shop", resourceVersion: "1" },
 *   spec: { tls: [{ hosts: ["shop.example.com"] }] },
 *   status: { loadBalancer: { ingress: [{ ip: "203.0.113.7" }] } },
 * });
 * const service = decodeService({
 *   metadata: { name: "controller", namespace: "ingress-nginx", resourceVersion: "1" },
 *   spec: { type: "LoadBalancer", clusterIP: "10.96.0.10", ports: [{ port: 80 }, { port: 443 }] },
 *   status: { loadBalancer: { ingress: [{ ip: "203.0.113.7" }] } },
 * });
 * assert.ok(ingress.ok && service.ok);
 * const { table, fallbacks } = planRoutes({
 *   sources: { ingresses: [ingress.value], gateways: [], routes: [] },
 *   services: [service.value],
 *   options: { clusterDomain: "cluster.local" },
 *   defaultProxyProtocol: "v2",
 * });
 * assert.deepEqual(table.routes, [{ host: "shop.example.com", backend: "ingress-nginx/controller" }]);
 * assert.equal(table.backends.get("ingress-nginx/controller")?.address, "10.96.0.10");
 * assert.deepEqual(fallbacks, []);
 * ```
 */
export function planRoutes(input: RoutePlanInput): RoutePlan {
  const holders = servicesByAddress(input);
  const routes: Route[] = [];
  const fallbacks: RouteFallback[] = [];
  const owners = [...ownersByHost(input.sources, input.options)].sort(([a], [b]) => compareText(a, b));
  for (const [host, hostOwners] of owners) {
    const leads = [...hostOwners].flatMap((owner) => ownerLeads(owner, holders)).sort(byOwnerThenAddress);
    const outcome = hostOutcome(leads);
    if ("backend" in outcome) routes.push({ host, backend: outcome.backend });
    else fallbacks.push({ host, reason: outcome.reason, detail: outcome.detail });
  }
  const named = new Set(routes.map((route) => route.backend));
  const backends = new Map<string, RouteBackend>();
  for (const [name, outcome] of [...holders.values()].flatMap((held) => [...held])) {
    if ("backend" in outcome && named.has(name)) backends.set(name, outcome.backend);
  }
  const sorted = new Map([...backends].sort(([a], [b]) => compareText(a, b)));
  return { table: { routes, backends: sorted }, fallbacks };
}

/** Each accepted hostname and its owners (a route whose parents are not found owns its names). */
function ownersByHost(sources: HostnameSources, options: DesiredSetOptions): Map<string, Set<Owner>> {
  const memo = createDesiredSetMemo();
  desiredHostnames(sources, { ...options, memo });
  const byHost = new Map<string, Set<Owner>>();
  const own = (object: object, owners: readonly Owner[]) => {
    for (const host of memo.get(object)?.accepted ?? []) {
      const set = byHost.get(host) ?? new Set();
      byHost.set(host, set);
      for (const owner of owners) set.add(owner);
    }
  };
  for (const ingress of filterIngresses(sources.ingresses, options.ingressClass ?? "")) {
    own(ingress, [ingressOwner(ingress)]);
  }
  const api = filterGatewayApi(sources, options.gatewayClass ?? "");
  const pairs = api.gateways.map((gateway) => [gateway, gatewayOwner(gateway)] as const);
  for (const [gateway, owner] of pairs) own(gateway, [owner]);
  const gateways = new Map(pairs.map(([gateway, owner]) => [objectKey(gateway.metadata), owner]));
  const routes = { HTTPRoute: api.routes, GRPCRoute: api.grpcRoutes, TLSRoute: api.tlsRoutes };
  for (const [kind, list] of Object.entries(routes)) {
    for (const route of list) {
      own(route, routeOwners(`${kind} ${objectKey(route.metadata)}`, route, gateways));
    }
  }
  return byHost;
}

function ingressOwner(ingress: Ingress): Owner {
  const entries = ingress.status.loadBalancer.ingress;
  return {
    label: `Ingress ${objectKey(ingress.metadata)}`,
    field: "status.loadBalancer.ingress",
    ips: entries.flatMap(({ ip }) => canonicalIp(ip) ?? []),
    hostnames: entries.flatMap(({ ip, hostname }) => canonicalIp(ip) === undefined ? hostname ?? [] : []),
  };
}

function gatewayOwner(gateway: Gateway): Owner {
  const { addresses } = gateway.status;
  return {
    label: `Gateway ${objectKey(gateway.metadata)}`,
    field: "status.addresses",
    ips: addresses.flatMap(({ type, value }) => type === "IPAddress" ? canonicalIp(value) ?? [] : []),
    hostnames: addresses.flatMap(({ type, value }) => type === "Hostname" ? [value] : []),
  };
}

function routeOwners(label: string, route: GatewayRoute, gateways: ReadonlyMap<string, Owner>): Owner[] {
  const keys = route.spec.parentRefs.map((ref) => parentGatewayKey(ref, route.metadata.namespace) ?? "");
  const found = keys.flatMap((key) => gateways.get(key) ?? []);
  return found.length > 0
    ? found
    : [{ label, field: "spec.parentRefs", ips: [], hostnames: [], parentless: true }];
}

function servicesByAddress(input: RoutePlanInput): Holders {
  const holders = new Map<string, Map<string, ServiceOutcome>>();
  for (const service of input.services) {
    if (service.spec.type !== "LoadBalancer") continue;
    const name = `${service.metadata.namespace}/${service.metadata.name}`;
    const outcome = serviceOutcome(name, service, input);
    for (const { ip } of service.status.loadBalancer.ingress) {
      const at = canonicalIp(ip);
      if (at !== undefined) holders.set(at, (holders.get(at) ?? new Map()).set(name, outcome));
    }
  }
  return holders;
}

function serviceOutcome(name: string, service: Service, input: RoutePlanInput): ServiceOutcome {
  const httpPort = portOf(service, 80, "http");
  const httpsPort = portOf(service, 443, "https");
  if (httpPort === undefined || httpsPort === undefined) {
    const missing = [httpPort ?? "80 or one named http", httpsPort ?? "443 or one named https"];
    const text = missing.filter((entry) => typeof entry === "string").join(", nor port ");
    return { reason: "no-port", detail: `has no TCP port ${text}; add it` };
  }
  const proxyProtocol = service.metadata.annotations[PROXY_PROTOCOL_ANNOTATION] ?? input.defaultProxyProtocol;
  if (proxyProtocol !== "v1" && proxyProtocol !== "v2") {
    const value = JSON.stringify(proxyProtocol);
    const detail = `has ${PROXY_PROTOCOL_ANNOTATION}: ${value}; give "v1" or "v2", or remove it`;
    return { reason: "bad-annotation", detail };
  }
  const { name: serviceName, namespace } = service.metadata;
  const dnsName = [serviceName, namespace, "svc", normaliseHostname(input.options.clusterDomain)];
  const address = canonicalIp(service.spec.clusterIP) ?? dnsName.filter((label) => label !== "").join(".");
  const backend = { address, httpPort, httpsPort, proxyProtocol } as const;
  const parsed = parseRouteTable(renderRouteTable({ routes: [], backends: new Map([[name, backend]]) }));
  if (parsed.ok) return { backend };
  return { reason: "bad-backend", detail: `cannot be a backend: ${parsed.problems.join("; ")}` };
}

/** The TCP Service port numbered `number`, else the one named `name`. */
function portOf(service: Service, number: number, name: string): number | undefined {
  const tcp = service.spec.ports.filter((port) => port.protocol === "TCP");
  return (tcp.find((port) => port.port === number) ?? tcp.find((port) => port.name === name))?.port;
}

type OwnerReason = "no-owner" | "no-address" | "hostname-only" | "no-service" | "two-services";

/** What each reason an owner's address stops at says: `at` is the address, `more` the Services. */
const SENTENCES: Readonly<Record<OwnerReason, (owner: Owner, at: string, more: string) => string>> = {
  "no-owner": ({ label }) => `${label} has no parent Gateway ouroboros watches; attach it to one`,
  "no-address": ({ label, field }) =>
    `${label} reports no address in ${field} yet; the name is routed once its controller publishes one`,
  "hostname-only": ({ label }, at) =>
    `${label} reports only the hostname ${at}; a route needs the load balancer's IP address`,
  "no-service": ({ label }, at) =>
    `${label} reports ${at}; no LoadBalancer Service has it: check the Service in front of its controller`,
  "two-services": ({ label }, at, more) =>
    `${label} reports ${at}, which LoadBalancer Services ${more} all claim; leave it to one of them`,
};

function problem(owner: Owner, at: string, reason: OwnerReason, more = ""): Lead {
  return { owner: owner.label, at, reason, detail: SENTENCES[reason](owner, at, more) };
}

function ownerLeads(owner: Owner, holders: Holders): Lead[] {
  if (owner.parentless === true) return [problem(owner, "", "no-owner")];
  if (owner.ips.length + owner.hostnames.length === 0) return [problem(owner, "", "no-address")];
  const hostnameOnly = owner.hostnames.map((hostname) => problem(owner, hostname, "hostname-only"));
  return [...hostnameOnly, ...owner.ips.map((ip) => addressLead(owner, ip, holders))];
}

function addressLead(owner: Owner, ip: string, holders: Holders): Lead {
  const held = [...holders.get(ip) ?? []].sort(([a], [b]) => compareText(a, b));
  const [only, second] = held;
  if (only === undefined) return problem(owner, ip, "no-service");
  const names = held.map(([name]) => name).join(" and ");
  if (second !== undefined) return problem(owner, ip, "two-services", names);
  const [name, outcome] = only;
  if ("backend" in outcome) return { owner: owner.label, at: ip, backend: name };
  const detail = `${owner.label} reports ${ip}, the address of Service ${name}, which ${outcome.detail}`;
  return { owner: owner.label, at: ip, reason: outcome.reason, detail };
}

/** A route to the one backend the leads reach, else a fallback. `leads` is sorted and not empty. */
function hostOutcome(leads: readonly Lead[]): { readonly backend: string } | Problem {
  const reached = new Map<string, Lead>();
  for (const lead of leads) {
    if ("backend" in lead && !reached.has(lead.backend)) reached.set(lead.backend, lead);
  }
  const [only, ...more] = reached.keys();
  if (only !== undefined && more.length === 0) return { backend: only };
  if (only === undefined) {
    const problems = leads.filter((lead): lead is Lead & Problem => "reason" in lead);
    return problems.reduce((worst, lead) => rank(lead.reason) > rank(worst.reason) ? lead : worst);
  }
  const each = [...reached].map(([backend, { owner, at }]) => `${owner} (${at}) to ${backend}`);
  const list = each.join(", ");
  const detail = `its owners lead to different Services: ${list}; serve the name from one load balancer`;
  return { reason: "conflict", detail };
}

function rank(reason: RouteFallbackReason): number {
  return ROUTE_FALLBACK_REASONS.indexOf(reason);
}

function canonicalIp(text: string | undefined): string | undefined {
  const ip = text === undefined ? undefined : parseIp(text);
  return ip === undefined ? undefined : formatIp(unmapIpv4(ip));
}

function byOwnerThenAddress(a: Lead, b: Lead): number {
  return compareText(a.owner, b.owner) || compareText(a.at, b.at);
}

/** Code-unit order, the same on every machine and locale. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
