import assert from "node:assert/strict";
import {
  desiredHostnames,
  type DesiredSetOptions,
  type HostnameSources,
} from "../../lib/hostnames/desired_set.ts";
import { decodeGateway, type Gateway } from "../../lib/resources/gateway.ts";
import type { GatewayRoute } from "../../lib/resources/gateway_route.ts";
import { decodeGrpcRoute } from "../../lib/resources/grpc_route.ts";
import { decodeHttpRoute } from "../../lib/resources/http_route.ts";
import { decodeIngress, type Ingress } from "../../lib/resources/ingress.ts";
import type { Decoded } from "../../lib/resources/json.ts";
import { decodeService, type Service } from "../../lib/resources/service.ts";
import { decodeTlsRoute } from "../../lib/resources/tls_route.ts";
import {
  planRoutes,
  PROXY_PROTOCOL_ANNOTATION,
  ROUTE_FALLBACK_REASONS,
  type RouteFallback,
  type RoutePlan,
} from "../../lib/routes/route_plan.ts";
import { parseRouteTable, renderRouteTable, type RouteBackend } from "../../lib/routes/route_table.ts";
import { prng } from "../support/random.ts";

const OPTIONS: DesiredSetOptions = { clusterDomain: "cluster.local" };

function value<T>(decoded: Decoded<T>): T {
  if (!decoded.ok) throw new Error(decoded.reason);
  return decoded.value;
}

/** `namespace/name` as decoder metadata. */
function metadata(key: string, annotations: Record<string, string> = {}) {
  const [namespace = "", name = ""] = key.split("/");
  return { name, namespace, resourceVersion: "1", annotations };
}

/** A load-balancer status entry: an IP address, or `host:<name>` for a hostname-only entry. */
function lbEntry(address: string): { ip: string } | { hostname: string } {
  return address.startsWith("host:") ? { hostname: address.slice(5) } : { ip: address };
}

function ingress(
  key: string,
  hosts: readonly string[],
  lb: readonly string[] = [],
  className?: string,
): Ingress {
  return value(decodeIngress({
    metadata: metadata(key),
    spec: { ...(className === undefined ? {} : { ingressClassName: className }), tls: [{ hosts }] },
    status: { loadBalancer: { ingress: lb.map(lbEntry) } },
  }));
}

/** A Gateway with one listener per hostname; `host:<name>` addresses are of type Hostname. */
function gateway(
  key: string,
  hosts: readonly string[],
  addresses: readonly string[] = [],
  className = "gw",
): Gateway {
  return value(decodeGateway({
    metadata: metadata(key),
    spec: {
      gatewayClassName: className,
      listeners: hosts.map((hostname, index) => ({
        name: `l${index}`,
        hostname,
        protocol: "HTTPS",
        port: 443,
      })),
    },
    status: {
      addresses: addresses.map((address) =>
        address.startsWith("host:")
          ? { type: "Hostname", value: address.slice(5) }
          : { type: "IPAddress", value: address }
      ),
    },
  }));
}

/** A route's raw form, parented by `namespace/name` Gateways. */
function rawRoute(key: string, hostnames: readonly string[], parents: readonly string[]) {
  const parentRefs = parents.map((parent) => {
    const [namespace = "", name = ""] = parent.split("/");
    return { namespace, name };
  });
  return { metadata: metadata(key), spec: { hostnames, parentRefs } };
}

function httpRoute(key: string, hostnames: readonly string[], parents: readonly string[]): GatewayRoute {
  return value(decodeHttpRoute(rawRoute(key, hostnames, parents)));
}

interface ServiceFields {
  readonly ips?: readonly string[];
  readonly clusterIP?: string;
  readonly ports?: readonly { port: number; name?: string; protocol?: string }[];
  readonly annotations?: Record<string, string>;
  readonly type?: string;
}

const WEB_PORTS = [{ port: 80, name: "http" }, { port: 443, name: "https" }];

function service(key: string, fields: ServiceFields = {}): Service {
  return value(decodeService({
    metadata: metadata(key, fields.annotations),
    spec: {
      type: fields.type ?? "LoadBalancer",
      ...(fields.clusterIP === undefined ? {} : { clusterIP: fields.clusterIP }),
      ports: fields.ports ?? WEB_PORTS,
    },
    status: { loadBalancer: { ingress: (fields.ips ?? []).map(lbEntry) } },
  }));
}

function sources(fields: Partial<HostnameSources>): HostnameSources {
  return { ingresses: [], gateways: [], routes: [], ...fields };
}

/** Plans, and checks the table round-trips through the proxy's parser. */
function plan(
  from: Partial<HostnameSources>,
  services: readonly Service[],
  options: DesiredSetOptions = OPTIONS,
): RoutePlan {
  const planned = planRoutes({ sources: sources(from), services, options, defaultProxyProtocol: "v2" });
  const parsed = parseRouteTable(renderRouteTable(planned.table));
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.problems.join("\n"));
  return planned;
}

function backend(address: string, fields: Partial<RouteBackend> = {}): RouteBackend {
  return { address, httpPort: 80, httpsPort: 443, proxyProtocol: "v2", ...fields };
}

const NGINX = service("ingress-nginx/controller", { ips: ["203.0.113.7"], clusterIP: "10.96.0.10" });
const ENVOY = service("envoy/gateway", { ips: ["203.0.113.9"], clusterIP: "10.96.0.20" });

Deno.test("ROUTE_FALLBACK_REASONS lists every reason once, in the order a name gets stuck", () => {
  assert.deepEqual(ROUTE_FALLBACK_REASONS, [
    "no-owner",
    "no-address",
    "hostname-only",
    "no-service",
    "two-services",
    "no-port",
    "bad-annotation",
    "bad-backend",
    "conflict",
  ]);
});

Deno.test("planRoutes: hostnames to the LoadBalancer Service behind their owner's address", async (t) => {
  const cases: readonly {
    name: string;
    sources: Partial<HostnameSources>;
    services: readonly Service[];
    options?: DesiredSetOptions;
    routes: readonly (readonly [string, string])[];
    backends: readonly (readonly [string, RouteBackend])[];
    fallbacks?: readonly RouteFallback[];
  }[] = [
    {
      name: "an Ingress and a Gateway, each with its own Service: two backends",
      sources: {
        ingresses: [ingress("shop/web", ["shop.example.com"], ["203.0.113.7"])],
        gateways: [gateway("infra/gw", ["api.example.com"], ["203.0.113.9"])],
      },
      services: [ENVOY, NGINX, service("other/db", { ips: ["203.0.113.50"], clusterIP: "10.96.0.99" })],
      routes: [["api.example.com", "envoy/gateway"], ["shop.example.com", "ingress-nginx/controller"]],
      backends: [["envoy/gateway", backend("10.96.0.20")], [
        "ingress-nginx/controller",
        backend("10.96.0.10"),
      ]],
    },
    {
      name: "HTTPRoute, GRPCRoute and TLSRoute through their parent Gateway (sectionName ignored)",
      sources: {
        gateways: [gateway("infra/gw", [], ["203.0.113.9"])],
        routes: [httpRoute("shop/web", ["web.example.com"], ["infra/gw"])],
        grpcRoutes: [value(decodeGrpcRoute(rawRoute("shop/rpc", ["rpc.example.com"], ["infra/gw"])))],
        tlsRoutes: [value(decodeTlsRoute({
          ...rawRoute("shop/tls", ["tls.example.com"], []),
          spec: {
            hostnames: ["tls.example.com"],
            parentRefs: [{ namespace: "infra", name: "gw", sectionName: "https" }],
          },
        }))],
      },
      services: [ENVOY],
      routes: [
        ["rpc.example.com", "envoy/gateway"],
        ["tls.example.com", "envoy/gateway"],
        ["web.example.com", "envoy/gateway"],
      ],
      backends: [["envoy/gateway", backend("10.96.0.20")]],
    },
    {
      name: "a route whose parent is not a Gateway in the caches: no-owner",
      sources: { routes: [httpRoute("shop/web", ["web.example.com"], ["infra/gone"])] },
      services: [ENVOY],
      routes: [],
      backends: [],
      fallbacks: [{
        host: "web.example.com",
        reason: "no-owner",
        detail: "HTTPRoute shop/web has no parent Gateway ouroboros watches; attach it to one",
      }],
    },
    {
      name: "a wildcard listener is a wildcard route with wildcards: include",
      sources: {
        gateways: [gateway("infra/gw", ["*.apps.example.com", "apps.example.com"], ["203.0.113.9"])],
      },
      services: [ENVOY],
      options: { ...OPTIONS, wildcards: "include" },
      routes: [["*.apps.example.com", "envoy/gateway"], ["apps.example.com", "envoy/gateway"]],
      backends: [["envoy/gateway", backend("10.96.0.20")]],
    },
    {
      name: "a wildcard listener is left out without wildcards: include, as the desired set leaves it",
      sources: {
        gateways: [gateway("infra/gw", ["*.apps.example.com", "apps.example.com"], ["203.0.113.9"])],
      },
      services: [ENVOY],
      options: { ...OPTIONS, wildcards: "exclude" },
      routes: [["apps.example.com", "envoy/gateway"]],
      backends: [["envoy/gateway", backend("10.96.0.20")]],
    },
    {
      name: "a load balancer that reports only a hostname",
      sources: {
        ingresses: [ingress("shop/web", ["shop.example.com"], ["host:lb.example.net"])],
        gateways: [gateway("infra/gw", ["api.example.com"], ["host:gw.example.net"])],
      },
      services: [NGINX, ENVOY],
      routes: [],
      backends: [],
      fallbacks: [{
        host: "api.example.com",
        reason: "hostname-only",
        detail: "Gateway infra/gw reports only the hostname gw.example.net; a route needs the load " +
          "balancer's IP address",
      }, {
        host: "shop.example.com",
        reason: "hostname-only",
        detail: "Ingress shop/web reports only the hostname lb.example.net; a route needs the load " +
          "balancer's IP address",
      }],
    },
    {
      name: "no address yet",
      sources: {
        ingresses: [ingress("shop/web", ["shop.example.com"])],
        gateways: [gateway("infra/gw", ["api.example.com"])],
      },
      services: [NGINX],
      routes: [],
      backends: [],
      fallbacks: [{
        host: "api.example.com",
        reason: "no-address",
        detail: "Gateway infra/gw reports no address in status.addresses yet; the name is routed once its " +
          "controller publishes one",
      }, {
        host: "shop.example.com",
        reason: "no-address",
        detail:
          "Ingress shop/web reports no address in status.loadBalancer.ingress yet; the name is routed once " +
          "its controller publishes one",
      }],
    },
    {
      name: "no Service holds the address (a ClusterIP Service holding it does not count)",
      sources: { ingresses: [ingress("shop/web", ["shop.example.com"], ["203.0.113.7"])] },
      services: [service("ingress-nginx/controller", { ips: ["203.0.113.7"], type: "ClusterIP" }), ENVOY],
      routes: [],
      backends: [],
      fallbacks: [{
        host: "shop.example.com",
        reason: "no-service",
        detail: "Ingress shop/web reports 203.0.113.7; no LoadBalancer Service has it: check the Service " +
          "in front of its controller",
      }],
    },
    {
      name: "two Services claim one address",
      sources: { ingresses: [ingress("shop/web", ["shop.example.com"], ["203.0.113.7"])] },
      services: [NGINX, service("kube-system/twin", { ips: ["203.0.113.7"], clusterIP: "10.96.0.11" })],
      routes: [],
      backends: [],
      fallbacks: [{
        host: "shop.example.com",
        reason: "two-services",
        detail: "Ingress shop/web reports 203.0.113.7, which LoadBalancer Services " +
          "ingress-nginx/controller and kube-system/twin all claim; leave it to one of them",
      }],
    },
    {
      name: "ports named http and https when none is 80 or 443; UDP ports do not count",
      sources: { ingresses: [ingress("shop/web", ["shop.example.com"], ["203.0.113.7"])] },
      services: [service("ingress-nginx/controller", {
        ips: ["203.0.113.7"],
        clusterIP: "10.96.0.10",
        ports: [
          { port: 80, protocol: "UDP" },
          { port: 8080, name: "http" },
          { port: 8443, name: "https" },
        ],
      })],
      routes: [["shop.example.com", "ingress-nginx/controller"]],
      backends: [["ingress-nginx/controller", backend("10.96.0.10", { httpPort: 8080, httpsPort: 8443 })]],
    },
    {
      name: "a Service with neither port 443 nor one named https",
      sources: { ingresses: [ingress("shop/web", ["shop.example.com"], ["203.0.113.7"])] },
      services: [service("ingress-nginx/controller", {
        ips: ["203.0.113.7"],
        ports: [{ port: 80 }, { port: 8443, name: "tls" }],
      })],
      routes: [],
      backends: [],
      fallbacks: [{
        host: "shop.example.com",
        reason: "no-port",
        detail: "Ingress shop/web reports 203.0.113.7, the address of Service ingress-nginx/controller, " +
          "which has no TCP port 443 or one named https; add it",
      }],
    },
    {
      name: "no ClusterIP, or None: the Service's DNS name",
      sources: {
        ingresses: [ingress("shop/web", ["shop.example.com"], ["203.0.113.7"])],
        gateways: [gateway("infra/gw", ["api.example.com"], ["203.0.113.9"])],
      },
      services: [
        service("ingress-nginx/controller", { ips: ["203.0.113.7"] }),
        service("envoy/gateway", { ips: ["203.0.113.9"], clusterIP: "None" }),
      ],
      options: { clusterDomain: "Cluster.Local." },
      routes: [["api.example.com", "envoy/gateway"], ["shop.example.com", "ingress-nginx/controller"]],
      backends: [
        ["envoy/gateway", backend("gateway.envoy.svc.cluster.local")],
        ["ingress-nginx/controller", backend("controller.ingress-nginx.svc.cluster.local")],
      ],
    },
    {
      name: "two owners leading to different Services: conflict",
      sources: {
        ingresses: [ingress("shop/web", ["shop.example.com"], ["203.0.113.7"])],
        gateways: [gateway("infra/gw", ["shop.example.com"], ["203.0.113.9"])],
      },
      services: [NGINX, ENVOY],
      routes: [],
      backends: [],
      fallbacks: [{
        host: "shop.example.com",
        reason: "conflict",
        detail: "its owners lead to different Services: Gateway infra/gw (203.0.113.9) to envoy/gateway, " +
          "Ingress shop/web (203.0.113.7) to ingress-nginx/controller; serve the name from one load balancer",
      }],
    },
    {
      name: "two owners on one Service agree, and an address no Service holds does not hold them back",
      sources: {
        ingresses: [ingress("shop/web", ["shop.example.com"], ["203.0.113.7"])],
        gateways: [gateway("infra/gw", ["shop.example.com"], ["203.0.113.7", "198.51.100.1"])],
      },
      services: [NGINX],
      routes: [["shop.example.com", "ingress-nginx/controller"]],
      backends: [["ingress-nginx/controller", backend("10.96.0.10")]],
    },
    {
      name: "class filters: only the hostnames the desired set keeps",
      sources: {
        ingresses: [
          ingress("shop/kept", ["kept.example.com"], ["203.0.113.7"], "nginx"),
          ingress("shop/other", ["other.example.com"], ["203.0.113.7"], "traefik"),
        ],
        gateways: [
          gateway("infra/gw", ["gw.example.com"], ["203.0.113.9"], "cilium"),
          gateway("infra/istio", ["istio.example.com"], ["203.0.113.9"], "istio"),
        ],
        routes: [
          httpRoute("shop/attached", ["attached.example.com"], ["infra/gw"]),
          httpRoute("shop/detached", ["detached.example.com"], ["infra/istio"]),
        ],
      },
      services: [NGINX, ENVOY],
      options: { ...OPTIONS, ingressClass: "nginx", gatewayClass: "cilium" },
      routes: [
        ["attached.example.com", "envoy/gateway"],
        ["gw.example.com", "envoy/gateway"],
        ["kept.example.com", "ingress-nginx/controller"],
      ],
      backends: [["envoy/gateway", backend("10.96.0.20")], [
        "ingress-nginx/controller",
        backend("10.96.0.10"),
      ]],
    },
    {
      name:
        "IPv6 addresses match in any spelling, IPv4-mapped as IPv4; v4 and v6 of one Service are one backend",
      sources: {
        ingresses: [
          ingress("shop/web", ["shop.example.com"], ["2001:DB8:0:0:0:0:0:7", "::ffff:203.0.113.7"]),
        ],
      },
      services: [service("ingress-nginx/controller", {
        ips: ["203.0.113.7", "2001:db8::7"],
        clusterIP: "FD00:0:0:0:0:0:0:10",
      })],
      routes: [["shop.example.com", "ingress-nginx/controller"]],
      backends: [["ingress-nginx/controller", backend("fd00::10")]],
    },
    {
      name: "a proxy-protocol annotation other than v1 or v2",
      sources: { ingresses: [ingress("shop/web", ["shop.example.com"], ["203.0.113.7"])] },
      services: [service("ingress-nginx/controller", {
        ips: ["203.0.113.7"],
        annotations: { [PROXY_PROTOCOL_ANNOTATION]: "V1" },
      })],
      routes: [],
      backends: [],
      fallbacks: [{
        host: "shop.example.com",
        reason: "bad-annotation",
        detail: "Ingress shop/web reports 203.0.113.7, the address of Service ingress-nginx/controller, " +
          'which has ouroboros.lexfrei.tech/proxy-protocol: "V1"; give "v1" or "v2", or remove it',
      }],
    },
    {
      name: "the proxy-protocol annotation v1 overrides the default",
      sources: { ingresses: [ingress("shop/web", ["shop.example.com"], ["203.0.113.7"])] },
      services: [service("ingress-nginx/controller", {
        ips: ["203.0.113.7"],
        clusterIP: "10.96.0.10",
        annotations: { [PROXY_PROTOCOL_ANNOTATION]: "v1" },
      })],
      routes: [["shop.example.com", "ingress-nginx/controller"]],
      backends: [["ingress-nginx/controller", backend("10.96.0.10", { proxyProtocol: "v1" })]],
    },
    {
      name: "a Service whose name is no backend name",
      sources: { ingresses: [ingress("shop/web", ["shop.example.com"], ["203.0.113.7"])] },
      services: [service("/controller", { ips: ["203.0.113.7"], clusterIP: "10.96.0.10" })],
      routes: [],
      backends: [],
      fallbacks: [{
        host: "shop.example.com",
        reason: "bad-backend",
        detail: "Ingress shop/web reports 203.0.113.7, the address of Service /controller, which cannot " +
          `be a backend: $.backends["/controller"]: "/controller" is not a backend name; give 1–128 of ` +
          `a-z, 0-9, '.', '/', '-' (a letter or digit at either end), not "default"`,
      }],
    },
    {
      name: "with no backend, the reason that got furthest, from the first owner",
      sources: {
        ingresses: [
          ingress("a/pending", ["shop.example.com"]),
          ingress("b/nowhere", ["shop.example.com"], ["198.51.100.1"]),
          ingress("c/noport", ["shop.example.com"], ["203.0.113.7"]),
          ingress("d/noport", ["shop.example.com"], ["203.0.113.7"]),
        ],
      },
      services: [service("ingress-nginx/controller", { ips: ["203.0.113.7"], ports: [] })],
      routes: [],
      backends: [],
      fallbacks: [{
        host: "shop.example.com",
        reason: "no-port",
        detail: "Ingress c/noport reports 203.0.113.7, the address of Service ingress-nginx/controller, " +
          "which has no TCP port 80 or one named http, nor port 443 or one named https; add it",
      }],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const planned = plan(c.sources, c.services, c.options);
      assert.deepEqual(
        planned.table.routes,
        c.routes.map(([host, backend]) => ({ host, backend })),
      );
      assert.deepEqual(planned.table.backends, new Map(c.backends));
      assert.deepEqual(planned.fallbacks, c.fallbacks ?? []);
    });
  }
});

Deno.test("planRoutes follows an address that moves to another Service", () => {
  const from = { ingresses: [ingress("shop/web", ["shop.example.com"], ["203.0.113.7"])] };
  const before = plan(from, [NGINX, service("ingress-nginx/next", { clusterIP: "10.96.0.30" })]);
  assert.deepEqual(before.table.routes, [{ host: "shop.example.com", backend: "ingress-nginx/controller" }]);
  const after = plan(from, [
    service("ingress-nginx/controller", { clusterIP: "10.96.0.10" }),
    service("ingress-nginx/next", { ips: ["203.0.113.7"], clusterIP: "10.96.0.30" }),
  ]);
  assert.deepEqual(after.table.routes, [{ host: "shop.example.com", backend: "ingress-nginx/next" }]);
  assert.deepEqual([...after.table.backends.keys()], ["ingress-nginx/next"]);
});

// Property tests: random caches, drawn from small pools (weighted by repeating an item) so that
// names, owners, addresses and Services meet, and every outcome occurs.

const HOSTS = [
  "a.example.com",
  "b.example.com",
  "c.example.com",
  "*.example.com",
  "x.svc.cluster.local",
  "bad host",
];
const ADDRESSES = [
  "203.0.113.1",
  "203.0.113.2",
  "::ffff:203.0.113.1",
  "2001:db8::1",
  "2001:DB8:0::1",
  "host:lb.net",
];
const NAMESPACES = ["a", "b", "a", "b", ""];
const NAMED_PORTS = [{ port: 8080, name: "http" }, { port: 8443, name: "https" }];
const PORT_SETS = [WEB_PORTS, WEB_PORTS, WEB_PORTS, NAMED_PORTS, [{ port: 80 }], []];
const ANNOTATIONS = [{}, {}, {}, { [PROXY_PROTOCOL_ANNOTATION]: "v1" }, {
  [PROXY_PROTOCOL_ANNOTATION]: "v3",
}];
/** `""`: no ClusterIP. */
const CLUSTER_IPS = ["", "None", "10.96.0.1", "FD00::1"];
const SEEDS = Array.from({ length: 400 }, (_, index) => 7000 + index);

function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("empty list");
  return item;
}

/** From `least` to `most` items drawn from `items`. */
function some<T>(random: () => number, items: readonly T[], least: number, most: number): T[] {
  return Array.from({ length: least + Math.floor(random() * (most - least + 1)) }, () => pick(random, items));
}

function shuffled<T>(random: () => number, items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

interface RandomCaches {
  readonly sources: HostnameSources;
  readonly services: readonly Service[];
  readonly options: DesiredSetOptions;
}

function randomService(random: () => number, index: number): Service {
  const clusterIP = pick(random, CLUSTER_IPS);
  return service(`${pick(random, NAMESPACES)}/s${index}`, {
    ips: some(random, ADDRESSES, 1, 2),
    ...(clusterIP === "" ? {} : { clusterIP }),
    ports: pick(random, PORT_SETS),
    annotations: pick(random, ANNOTATIONS),
    type: random() < 0.9 ? "LoadBalancer" : "ClusterIP",
  });
}

function randomCaches(random: () => number): RandomCaches {
  const lb = () => some(random, ADDRESSES, 0, 2);
  const hosts = () => some(random, HOSTS, 0, 3);
  const ingresses = Array.from(
    { length: Math.floor(random() * 4) },
    (_, index) => ingress(`${pick(random, ["a", "b"])}/i${index}`, hosts(), lb(), pick(random, ["x", "y"])),
  );
  const gateways = Array.from(
    { length: Math.floor(random() * 3) },
    (_, index) => gateway(`infra/g${index}`, hosts(), lb(), pick(random, ["x", "y"])),
  );
  const parents = ["infra/g0", "infra/g1", "infra/gone"];
  const routes = Array.from(
    { length: Math.floor(random() * 3) },
    (_, index) => httpRoute(`a/r${index}`, hosts(), some(random, parents, 0, 2)),
  );
  const services = Array.from(
    { length: Math.floor(random() * 5) },
    (_, index) => randomService(random, index),
  );
  const options: DesiredSetOptions = {
    clusterDomain: "cluster.local",
    ...(random() < 0.5 ? {} : { wildcards: pick(random, ["include", "exclude"] as const) }),
    ...(random() < 0.7 ? {} : { ingressClass: "x" }),
    ...(random() < 0.7 ? {} : { gatewayClass: "x" }),
  };
  return { sources: { ingresses, gateways, routes }, services, options };
}

Deno.test("planRoutes property: every desired hostname once, sorted, and a table the proxy reads back", () => {
  const seen = new Set<string>();
  for (const seed of SEEDS) {
    const { sources, services, options } = randomCaches(prng(seed));
    const planned = planRoutes({ sources, services, options, defaultProxyProtocol: "v1" });
    const parsed = parseRouteTable(renderRouteTable(planned.table));
    assert.ok(parsed.ok, `seed ${seed}: ${parsed.ok ? "" : parsed.problems.join("\n")}`);
    assert.deepEqual(parsed.table.routes, planned.table.routes, `seed ${seed}`);
    assert.deepEqual(parsed.table.backends, planned.table.backends, `seed ${seed}`);
    const routed = planned.table.routes.map((route) => route.host);
    const fallen = planned.fallbacks.map((fallback) => fallback.host);
    assert.deepEqual(routed, [...routed].sort(), `seed ${seed}`);
    assert.deepEqual(fallen, [...fallen].sort(), `seed ${seed}`);
    assert.deepEqual([...routed, ...fallen].sort(), desiredHostnames(sources, options).hosts, `seed ${seed}`);
    const named = new Set(planned.table.routes.map((route) => route.backend));
    assert.deepEqual([...planned.table.backends.keys()], [...named].sort(), `seed ${seed}`);
    if (routed.length > 0) seen.add("route");
    if (routed.some((host) => host.startsWith("*."))) seen.add("wildcard route");
    for (const fallback of planned.fallbacks) seen.add(fallback.reason);
  }
  assert.deepEqual([...seen].sort(), [...ROUTE_FALLBACK_REASONS, "route", "wildcard route"].sort());
});

Deno.test("planRoutes property: the same caches in any order give the same plan", () => {
  for (const seed of SEEDS) {
    const random = prng(seed);
    const { sources, services, options } = randomCaches(random);
    const expected = planRoutes({ sources, services, options, defaultProxyProtocol: "v2" });
    const reordered = planRoutes({
      sources: {
        ingresses: shuffled(random, sources.ingresses),
        gateways: shuffled(random, sources.gateways),
        routes: shuffled(random, sources.routes),
      },
      services: shuffled(random, services),
      options,
      defaultProxyProtocol: "v2",
    });
    assert.deepEqual(reordered, expected, `seed ${seed}`);
    assert.equal(renderRouteTable(reordered.table), renderRouteTable(expected.table), `seed ${seed}`);
  }
});
