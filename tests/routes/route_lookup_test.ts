import assert from "node:assert/strict";
import { compileRoutes, lookupRoute } from "../../lib/routes/route_lookup.ts";
import type { RouteBackend, RouteTable } from "../../lib/routes/route_table.ts";
import { prng } from "../support/random.ts";

function backend(address: string): RouteBackend {
  return { address, httpPort: 80, httpsPort: 443, proxyProtocol: "v2" };
}

const TABLE: RouteTable = {
  routes: [
    { host: "app.example.com", backend: "gateway" },
    { host: "*.example.com", backend: "nginx" },
    { host: "*.apps.example.com", backend: "gateway" },
    { host: "api.apps.example.com", backend: "nginx" },
    { host: "example.org", backend: "nginx" },
  ],
  backends: new Map([["gateway", backend("10.96.0.12")], ["nginx", backend("10.96.0.13")]]),
};

Deno.test("lookupRoute: the exact name, else the wildcard one label up, else the default", async (t) => {
  const routes = compileRoutes(TABLE);
  const cases: readonly [string, string | undefined][] = [
    ["app.example.com", "gateway"],
    ["shop.example.com", "nginx"],
    ["APP.Example.COM", "gateway"],
    ["app.example.com.", "gateway"],
    ["Shop.Example.Com.", "nginx"],
    ["example.com", undefined],
    ["a.shop.example.com", undefined],
    ["shop.apps.example.com", "gateway"],
    ["api.apps.example.com", "nginx"],
    ["apps.example.com", "nginx"],
    ["example.org", "nginx"],
    ["www.example.org", undefined],
    ["", undefined],
    [".", undefined],
    [".example.com", undefined],
    ["localhost", undefined],
    ["app.example.com..", undefined],
  ];
  for (const [name, expected] of cases) {
    await t.step(JSON.stringify(name), () => assert.equal(lookupRoute(routes, name)?.name, expected));
  }
});

Deno.test("compileRoutes shares one target per backend, carrying its address and ports", () => {
  const routes = compileRoutes(TABLE);
  const gateway = lookupRoute(routes, "app.example.com");
  assert.equal(lookupRoute(routes, "shop.apps.example.com"), gateway);
  assert.deepEqual(gateway, { name: "gateway", backend: backend("10.96.0.12") });
  assert.equal(lookupRoute(compileRoutes({ routes: [], backends: new Map() }), "app.example.com"), undefined);
});

/** What a lookup must answer, by a scan of the routes: the rule written plainly. */
function reference(table: RouteTable, name: string): string | undefined {
  const normalised = name.toLowerCase().replace(/\.$/, "");
  const exact = table.routes.find((route) => route.host === normalised);
  if (exact !== undefined) return exact.backend;
  const labels = normalised.split(".");
  const wildcard = table.routes.find((route) =>
    route.host.startsWith("*.") && labels.length > 1 && labels[0] !== "" &&
    route.host.slice(2) === labels.slice(1).join(".")
  );
  return wildcard?.backend;
}

Deno.test("property: lookupRoute agrees with a scan of the table", () => {
  const labels = ["a", "b", "c", "example", "com", "A", "Com", ""];
  for (let seed = 1; seed <= 300; seed++) {
    const random = prng(seed);
    const pick = () => labels[Math.floor(random() * labels.length)]!;
    const name = () => Array.from({ length: 1 + Math.floor(random() * 4) }, pick).join(".");
    const hosts = new Set<string>();
    for (let i = Math.floor(random() * 10); i > 0; i--) {
      const host = name().toLowerCase();
      if (!host.split(".").includes("")) hosts.add(random() < 0.4 ? `*.${host}` : host);
    }
    const table: RouteTable = {
      routes: [...hosts].map((host, index) => ({ host, backend: `b${index % 3}` })),
      backends: new Map(["b0", "b1", "b2"].map((id) => [id, backend("10.0.0.1")])),
    };
    const routes = compileRoutes(table);
    for (let probe = 0; probe < 50; probe++) {
      const asked = `${name()}${random() < 0.2 ? "." : ""}`;
      assert.equal(lookupRoute(routes, asked)?.name, reference(table, asked), `seed ${seed}: ${asked}`);
    }
  }
});
