import assert from "node:assert/strict";
import { desiredHostnames, type HostnameSources } from "../../lib/hostnames/desired_set.ts";
import { gateway, ingress, parentRef, route } from "./factories.ts";

const none: HostnameSources = { ingresses: [], gateways: [], routes: [] };
const options = { clusterDomain: "cluster.local" } as const;

Deno.test("desiredHostnames of nothing is empty", () => {
  assert.deepEqual(desiredHostnames(none, options), {
    hosts: [],
    sources: new Map(),
    rejected: [],
    skippedWildcards: [],
  });
});

Deno.test("desiredHostnames merges all three kinds, lower-cased, de-duplicated and sorted (T-3.3)", () => {
  const desired = desiredHostnames({
    ingresses: [
      ingress("shop/web", { tls: ["Foo.example.com", "bar.example.com"] }),
      ingress("blog/web", { tls: ["foo.example.com."] }),
    ],
    gateways: [gateway("infra/gw", "cilium", ["FOO.EXAMPLE.COM", "gw.example.com"], "HTTP")],
    routes: [route("shop/r", ["bar.example.com", "api.example.com"])],
  }, options);
  assert.deepEqual(desired.hosts, [
    "api.example.com",
    "bar.example.com",
    "foo.example.com",
    "gw.example.com",
  ]);
  assert.deepEqual(desired.rejected, []);
});

Deno.test("desiredHostnames sorts by code unit, the same on every machine", () => {
  const desired = desiredHostnames({
    ...none,
    ingresses: [
      ingress("a/b", { tls: ["b.example.com", "a-b.example.com", "a.example.com", "0.example.com"] }),
    ],
  }, options);
  assert.deepEqual(desired.hosts, ["0.example.com", "a-b.example.com", "a.example.com", "b.example.com"]);
});

Deno.test("desiredHostnames: 1,000 Ingresses sharing 10 hosts give exactly 10 names (T-3.9)", () => {
  const ingresses = Array.from(
    { length: 1000 },
    (_, index) => ingress(`ns${index % 37}/web${index}`, { tls: [`host${index % 10}.example.com`] }),
  );
  const desired = desiredHostnames({ ...none, ingresses }, options);
  assert.deepEqual(desired.hosts, Array.from({ length: 10 }, (_, index) => `host${index}.example.com`));
});

Deno.test("desiredHostnames reads rule hosts only in mode all; tls is the default", () => {
  const sources = {
    ...none,
    ingresses: [ingress("shop/web", { tls: ["secure.example.com"], rules: ["plain.example.com"] })],
  };
  assert.deepEqual(desiredHostnames(sources, options).hosts, ["secure.example.com"]);
  assert.deepEqual(desiredHostnames(sources, { ...options, ingressHosts: "tls" }).hosts, [
    "secure.example.com",
  ]);
  assert.deepEqual(desiredHostnames(sources, { ...options, ingressHosts: "all" }).hosts, [
    "plain.example.com",
    "secure.example.com",
  ]);
});

Deno.test("desiredHostnames applies the class filters before reading hostnames (T-3.12)", () => {
  const sources: HostnameSources = {
    ingresses: [
      ingress("shop/nginx", { tls: ["nginx.example.com"], className: "nginx" }),
      ingress("shop/none", { tls: ["none.example.com", "bad host"] }),
    ],
    gateways: [
      gateway("infra/public", "cilium", ["public.example.com"]),
      gateway("infra/other", "istio", ["other.example.com"]),
    ],
    routes: [
      route("shop/attached", ["attached.example.com"], [parentRef("public", { namespace: "infra" })]),
      route("shop/elsewhere", ["elsewhere.example.com", "also bad"], [
        parentRef("other", { namespace: "infra" }),
      ]),
    ],
  };
  const filtered = desiredHostnames(sources, { ...options, ingressClass: "nginx", gatewayClass: "cilium" });
  assert.deepEqual(filtered.hosts, ["attached.example.com", "nginx.example.com", "public.example.com"]);
  assert.deepEqual(filtered.rejected, [], "objects filtered out are not reported either");

  const unfiltered = desiredHostnames(sources, options);
  assert.deepEqual(unfiltered.hosts, [
    "attached.example.com",
    "elsewhere.example.com",
    "nginx.example.com",
    "none.example.com",
    "other.example.com",
    "public.example.com",
  ]);
  assert.deepEqual(unfiltered.rejected.map((entry) => `${entry.source} ${entry.key}`), [
    "Ingress shop/none",
    "HTTPRoute shop/elsewhere",
  ]);
});

Deno.test("desiredHostnames reports refused values with their object, and still keeps the valid ones (T-3.1)", () => {
  const desired = desiredHostnames({
    ingresses: [
      ingress("shop/web", {
        tls: ["shop.example.com", "evil.com\n}", "*.example.com", "web.svc.cluster.local"],
        resourceVersion: "42",
      }),
    ],
    gateways: [gateway("infra/gw", "cilium", ["127.0.0.1", "gw.example.com"])],
    routes: [route("shop/r", ["a.com rewrite name x y", "route.example.com"], [], "7")],
  }, options);
  assert.deepEqual(desired.hosts, ["gw.example.com", "route.example.com", "shop.example.com"]);
  assert.deepEqual(
    desired.rejected.map(({ source, key, resourceVersion, value, reason }) => ({
      source,
      key,
      resourceVersion,
      value,
      reason,
    })),
    [
      {
        source: "Ingress",
        key: "shop/web",
        resourceVersion: "42",
        value: "evil.com\n}",
        reason: "control-character",
      },
      {
        source: "Ingress",
        key: "shop/web",
        resourceVersion: "42",
        value: "web.svc.cluster.local",
        reason: "cluster-domain",
      },
      { source: "Gateway", key: "infra/gw", resourceVersion: "1", value: "127.0.0.1", reason: "ip-literal" },
      {
        source: "HTTPRoute",
        key: "shop/r",
        resourceVersion: "7",
        value: "a.com rewrite name x y",
        reason: "whitespace",
      },
    ],
  );
  for (const entry of desired.rejected) assert.ok(entry.text.length > 0);
});

Deno.test("desiredHostnames reports a refused value once per object even when it appears twice", () => {
  const desired = desiredHostnames({
    ...none,
    ingresses: [
      ingress("shop/web", { tls: ["a.com#"], rules: ["a.com#"] }),
      ingress("blog/web", { tls: ["a.com#"] }),
    ],
  }, { ...options, ingressHosts: "all" });
  assert.deepEqual(desired.rejected.map((entry) => entry.key), ["blog/web", "shop/web"]);
});

Deno.test("desiredHostnames refuses names under the cluster domain in use (T-3.7)", () => {
  const sources = {
    ...none,
    ingresses: [ingress("a/b", { tls: ["web.svc.cozy.local", "web.svc.cluster.local"] })],
  };
  assert.deepEqual(desiredHostnames(sources, { clusterDomain: "cozy.local" }).hosts, [
    "web.svc.cluster.local",
  ]);
  assert.deepEqual(desiredHostnames(sources, { clusterDomain: "cluster.local" }).hosts, [
    "web.svc.cozy.local",
  ]);
});

Deno.test("desiredHostnames refuses the proxy FQDN (T-3.7)", () => {
  const sources = { ...none, routes: [route("a/r", ["proxy.example.net", "shop.example.net"])] };
  const desired = desiredHostnames(sources, { ...options, proxyFqdn: "proxy.example.net." });
  assert.deepEqual(desired.hosts, ["shop.example.net"]);
  assert.deepEqual(desired.rejected.map((entry) => entry.reason), ["proxy-name"]);
});

Deno.test("desiredHostnames is level-based: the answer depends only on the sources given", () => {
  const a = ingress("shop/a", { tls: ["a.example.com"] });
  const b = ingress("shop/b", { tls: ["b.example.com", "bad host"] });
  const before = desiredHostnames({ ...none, ingresses: [a, b] }, options);
  const after = desiredHostnames({ ...none, ingresses: [a] }, options);
  assert.deepEqual(after, {
    hosts: ["a.example.com"],
    sources: new Map([["a.example.com", ["ingress"]]]),
    rejected: [],
    skippedWildcards: [],
  });
  assert.deepEqual(
    desiredHostnames({ ...none, ingresses: [b, a] }, options),
    before,
    "input order is irrelevant",
  );
});

Deno.test("desiredHostnames says where each accepted hostname came from, each kind once, in a fixed order", () => {
  const desired = desiredHostnames({
    ingresses: [
      ingress("shop/web", { tls: ["Shared.example.com", "ingress.example.com"] }),
      ingress("blog/web", { tls: ["shared.example.com."] }),
    ],
    gateways: [gateway("infra/gw", "cilium", ["shared.example.com", "listener.example.com", "bad host"])],
    routes: [
      route("shop/r", ["shared.example.com", "route.example.com", "listener.example.com"]),
      route("blog/r", ["route.example.com"]),
    ],
  }, options);
  assert.deepEqual([...desired.sources.keys()], desired.hosts, "one entry per accepted hostname, same order");
  assert.deepEqual(
    Object.fromEntries(desired.sources),
    {
      "ingress.example.com": ["ingress"],
      "listener.example.com": ["gateway-listener", "httproute"],
      "route.example.com": ["httproute"],
      "shared.example.com": ["ingress", "gateway-listener", "httproute"],
    },
  );
});

Deno.test("desiredHostnames: a kind whose objects are filtered out or whose values are refused is not a source", () => {
  const desired = desiredHostnames({
    ingresses: [
      ingress("shop/nginx", { tls: ["a.example.com"], className: "nginx" }),
      ingress("shop/other", { tls: ["b.example.com"], className: "traefik" }),
    ],
    gateways: [gateway("infra/gw", "cilium", ["*.a.example.com", "b.example.com"])],
    routes: [],
  }, { ...options, ingressClass: "nginx" });
  assert.deepEqual(Object.fromEntries(desired.sources), {
    "a.example.com": ["ingress"],
    "b.example.com": ["gateway-listener"],
  });
});

Deno.test("T-3.1: the matrix's hostile values are refused, each reported with its object; the valid hosts beside them are kept", () => {
  const hostile = [
    "a.example.com\n    forward . 6.6.6.6",
    "a.example.com }",
    "a.example.com {",
    "a.example.com # x",
    "a b.example.com",
    "a.example.com\r",
    "{$HOME}.example.com",
    '"quoted"',
  ];
  const desired = desiredHostnames({
    ingresses: [ingress("evil/web", { tls: [...hostile, "ok.example.com"], resourceVersion: "9" })],
    gateways: [gateway("evil/gw", "cilium", [...hostile, "gw.example.com"])],
    routes: [route("evil/r", [...hostile, "route.example.com"])],
  }, options);
  assert.deepEqual(desired.hosts, ["gw.example.com", "ok.example.com", "route.example.com"]);
  for (const kind of ["Ingress", "Gateway", "HTTPRoute"]) {
    assert.deepEqual(
      desired.rejected.filter((entry) => entry.source === kind).map((entry) => entry.value),
      [...hostile].sort(),
      `every hostile value of the ${kind} is reported, verbatim for escaping by the logger`,
    );
  }
});

Deno.test("T-3.10: any namespace may claim any hostname (Ingress is trusted input); --ingress-class narrows who counts", () => {
  const sources: HostnameSources = {
    ...none,
    ingresses: [
      ingress("bank/web", { tls: ["bank.example.com"], className: "public" }),
      ingress("evil/claim", { tls: ["bank.example.com", "evil.example.com"], className: "tenants" }),
    ],
  };
  const open = desiredHostnames(sources, options);
  assert.deepEqual(open.hosts, ["bank.example.com", "evil.example.com"], "the claim is honoured, by design");
  assert.deepEqual(open.rejected, [], "and is not reported as an error");
  assert.deepEqual(desiredHostnames(sources, { ...options, ingressClass: "public" }).hosts, [
    "bank.example.com",
  ]);
});

Deno.test("T-3.11: 100,000 hostnames, 10,000 of them on one Ingress, are all kept, sorted and unique (no hidden cap; the sinks' size checks are the limit)", () => {
  /** `total` hostnames: one Ingress holding 10,000, the rest 1,000 per Ingress over 50 namespaces. */
  function cluster(total: number): HostnameSources {
    const big = ingress("big/one", { tls: Array.from({ length: 10_000 }, (_, i) => `big-${i}.example.com`) });
    const rest = Array.from(
      { length: (total - 10_000) / 1_000 },
      (_, i) =>
        ingress(`ns${i % 50}/web${i}`, {
          tls: Array.from({ length: 1_000 }, (_, j) => `h${i}-${j}.example.com`),
        }),
    );
    return { ...none, ingresses: [big, ...rest] };
  }
  const large = cluster(100_000);
  const desired = desiredHostnames(large, options);
  assert.equal(desired.hosts.length, 100_000, "no cap drops hostnames: the sinks' size checks are the limit");
  assert.ok(desired.hosts.every((host, i) => i === 0 || desired.hosts[i - 1]! < host), "sorted and unique");
});

Deno.test("desiredHostnames reads GRPCRoutes and TLSRoutes, filtered by --gateway-class, each recorded as its own kind", () => {
  const toPublic = [parentRef("public", { namespace: "infra" })];
  const toInternal = [parentRef("internal", { namespace: "infra" })];
  const desired = desiredHostnames({
    ingresses: [],
    gateways: [gateway("infra/public", "cilium"), gateway("infra/internal", "istio")],
    routes: [route("shop/web", ["shared.example.com"], toPublic)],
    grpcRoutes: [
      route("shop/orders", ["grpc.example.com", "shared.example.com"], toPublic),
      route("shop/admin", ["admin-grpc.example.com"], toInternal),
    ],
    tlsRoutes: [
      route("shop/db", ["db.example.com", "shared.example.com", "bad host"], toPublic),
      route("shop/vault", ["vault.example.com"], toInternal),
    ],
  }, { ...options, gatewayClass: "cilium" });
  assert.deepEqual(desired.hosts, ["db.example.com", "grpc.example.com", "shared.example.com"]);
  assert.deepEqual(Object.fromEntries(desired.sources), {
    "db.example.com": ["tlsroute"],
    "grpc.example.com": ["grpcroute"],
    "shared.example.com": ["httproute", "grpcroute", "tlsroute"],
  });
  // A refused value names the real kind, for the WARN and the metric.
  assert.deepEqual(
    desired.rejected.map((entry) => [entry.source, entry.key, entry.value]),
    [["TLSRoute", "shop/db", "bad host"]],
  );
});

Deno.test("desiredHostnames: wildcards are dropped by default (--wildcards=skip), as the original did", () => {
  const sources = {
    ...none,
    ingresses: [ingress("shop/web", { tls: ["*.example.com", "a.*.com", "a.example.com"] })],
  };
  const desired = desiredHostnames(sources, options);
  assert.deepEqual(desired.hosts, ["a.example.com"]);
  assert.deepEqual(desired.rejected, []);
  assert.deepEqual(desired.skippedWildcards, []);
});

Deno.test("desiredHostnames: include puts *.<domain> in the set (sorted first) with its sources; a bad wildcard is refused", () => {
  const desired = desiredHostnames({
    ingresses: [ingress("shop/web", { tls: ["*.Example.com.", "a.example.com", "a.*.com"] })],
    gateways: [gateway("infra/gw", "cilium", ["*.example.com", "*.apps.example.com"])],
    routes: [],
  }, { ...options, wildcards: "include" });
  assert.deepEqual(desired.hosts, ["*.apps.example.com", "*.example.com", "a.example.com"]);
  assert.deepEqual(desired.sources.get("*.example.com"), ["ingress", "gateway-listener"]);
  assert.deepEqual(desired.rejected.map((entry) => [entry.value, entry.reason]), [[
    "a.*.com",
    "invalid-wildcard",
  ]]);
  assert.deepEqual(desired.skippedWildcards, []);
});

Deno.test("desiredHostnames: exclude keeps wildcards out of the set and lists each once per object", () => {
  const desired = desiredHostnames({
    ingresses: [
      ingress("shop/web", { tls: ["*.example.com", "*.EXAMPLE.com", "a.example.com"], resourceVersion: "7" }),
    ],
    gateways: [gateway("infra/gw", "cilium", ["*.example.com"])],
    routes: [],
  }, { ...options, wildcards: "exclude" });
  assert.deepEqual(desired.hosts, ["a.example.com"]);
  assert.deepEqual(desired.skippedWildcards.map((entry) => [entry.source, entry.key, entry.value]), [
    ["Ingress", "shop/web", "*.example.com"],
    ["Gateway", "infra/gw", "*.example.com"],
  ]);
  assert.equal(desired.skippedWildcards[0]?.resourceVersion, "7");
});
