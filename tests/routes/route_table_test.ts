import assert from "node:assert/strict";
import {
  parseRouteTable,
  renderRouteTable,
  type RouteBackend,
  type RouteTable,
} from "../../lib/routes/route_table.ts";
import { prng } from "../support/random.ts";

const GATEWAY: RouteBackend = { address: "10.96.0.12", httpPort: 80, httpsPort: 443, proxyProtocol: "v2" };
const NGINX: RouteBackend = {
  address: "ingress-nginx-controller.ingress-nginx.svc.cluster.local",
  httpPort: 8080,
  httpsPort: 8443,
  proxyProtocol: "v1",
};

const RENDERED = `{
  "version": 1,
  "routes": [
    {
      "host": "*.apps.example.com",
      "backend": "ingress-nginx/controller"
    },
    {
      "host": "app.example.com",
      "backend": "gateway"
    }
  ],
  "backends": {
    "gateway": {
      "address": "10.96.0.12",
      "httpPort": 80,
      "httpsPort": 443,
      "proxyProtocol": "v2"
    },
    "ingress-nginx/controller": {
      "address": "ingress-nginx-controller.ingress-nginx.svc.cluster.local",
      "httpPort": 8080,
      "httpsPort": 8443,
      "proxyProtocol": "v1"
    }
  }
}
`;

const TABLE: RouteTable = {
  routes: [
    { host: "app.example.com", backend: "gateway" },
    { host: "*.apps.example.com", backend: "ingress-nginx/controller" },
  ],
  backends: new Map([["ingress-nginx/controller", NGINX], ["gateway", GATEWAY]]),
};

Deno.test("renderRouteTable writes sorted, pretty JSON with a fixed key order", () => {
  assert.equal(renderRouteTable(TABLE), RENDERED);
});

Deno.test("parseRouteTable reads what renderRouteTable wrote", () => {
  const parsed = parseRouteTable(RENDERED);
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.problems.join("\n"));
  assert.deepEqual(parsed.table.routes, [...TABLE.routes].reverse());
  assert.deepEqual(
    parsed.table.backends,
    new Map([["gateway", GATEWAY], ["ingress-nginx/controller", NGINX]]),
  );
});

Deno.test("parseRouteTable accepts an empty table, IPv6 addresses and unused backends", () => {
  const text = JSON.stringify({
    version: 1,
    routes: [],
    backends: { spare: { address: "fd00::12", httpPort: 1, httpsPort: 65535, proxyProtocol: "v1" } },
  });
  const parsed = parseRouteTable(text);
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.problems.join("\n"));
  assert.equal(parsed.table.backends.get("spare")?.address, "fd00::12");
});

/** {@linkcode RENDERED} as a value a case may break. */
interface TableJson {
  [key: string]: unknown;
  routes: Record<string, unknown>[];
  backends: Record<string, Record<string, unknown>>;
}

/** A table that is valid but for what `edit` changes. */
function table(edit: (json: TableJson) => void): string {
  const json = JSON.parse(RENDERED) as TableJson;
  edit(json);
  return JSON.stringify(json);
}

Deno.test("parseRouteTable names every problem by JSON path and says what is accepted", async (t) => {
  const cases: readonly { name: string; text: string; problems: readonly (string | RegExp)[] }[] = [
    {
      name: "not JSON",
      text: "{version: 1}",
      problems: [
        /^\$: not JSON \(.+\); give \{"version": 1, "routes": \[\.\.\.\], "backends": \{\.\.\.\}\}$/,
      ],
    },
    {
      name: "not an object",
      text: "[]",
      problems: ['$: []; give {"version": 1, "routes": [...], "backends": {...}}'],
    },
    {
      name: "an unknown version is the only problem reported",
      text: table((json) => {
        json.version = 2;
        json.extra = true;
      }),
      problems: [
        "$.version: 2 is not a version this proxy reads; give 1 (a newer controller than proxy? upgrade the proxy)",
      ],
    },
    {
      name: "a missing version",
      text: "{}",
      problems: [
        "$.version: missing is not a version this proxy reads; give 1 (a newer controller than proxy? upgrade the proxy)",
      ],
    },
    {
      name: "unknown keys at every level",
      text: table((json) => {
        json.default = "x";
        json.routes[0]!.weight = 1;
        json.backends.gateway!.httpsport = 443;
      }),
      problems: [
        "$.default: not a key of this table; give only version, routes, backends",
        '$.backends["gateway"].httpsport: not a key of this table; give only address, httpPort, httpsPort, proxyProtocol',
        "$.routes[0].weight: not a key of this table; give only host, backend",
      ],
    },
    {
      name: "bad hosts and a duplicate",
      text: table((json) => {
        json.routes.push(
          { host: "App.example.com", backend: "gateway" },
          { host: "a.*.example.com", backend: "gateway" },
          { host: "app.example.com", backend: "gateway" },
          { host: 7, backend: "gateway" },
          { host: "localhost", backend: "gateway" },
          { host: "*.com", backend: "gateway" },
        );
      }),
      problems: [
        '$.routes[2].host: "App.example.com" is not in normal form (lower case, no trailing dot, no padding); write "app.example.com"',
        `$.routes[3].host: "a.*.example.com" uses '*' or '?' other than as one whole leading label; only '*.<domain>' is a wildcard`,
        '$.routes[4].host: "app.example.com" is routed already by $.routes[1]; give each host once',
        "$.routes[5].host: 7; give a hostname or a *.<domain> wildcard",
        `$.routes[6].host: "localhost" has a single label; only names with a dot can be public hostnames`,
        `$.routes[7].host: "*.com" after its '*.' has a single label; only names with a dot can be public hostnames`,
      ],
    },
    {
      name: "a route naming a missing backend, or none",
      text: table((json) => {
        json.routes[0]!.backend = "nginx";
        delete json.routes[1]!.backend;
        (json.routes as unknown[]).push("app.example.org");
      }),
      problems: [
        '$.routes[0].backend: "nginx" is not in $.backends; give the name of one of its backends',
        "$.routes[1].backend: missing; give the name of one of $.backends",
        '$.routes[2]: "app.example.org"; give {"host": "app.example.com", "backend": "<name>"}',
      ],
    },
    {
      name: "ports outside 1–65535, a bad PROXY version, a bad address",
      text: table((json) => {
        json.backends.gateway!.httpPort = 0;
        json.backends.gateway!.httpsPort = 65536;
        json.backends.gateway!.proxyProtocol = "v3";
        json.backends.gateway!.address = "10.96.0.012";
        json.backends["ingress-nginx/controller"]!.httpPort = "80";
        json.backends["ingress-nginx/controller"]!.httpsPort = 443.5;
        json.backends["ingress-nginx/controller"]!.address = "::FFFF:10.0.0.1";
      }),
      problems: [
        `$.backends["gateway"].address: "10.96.0.012" ends in the numeric label '012', which resolvers read as an IPv4 address; give a Service's ClusterIP or a DNS name such as web.ns.svc.cluster.local`,
        '$.backends["gateway"].httpPort: 0 is not a port; give an integer from 1 to 65535',
        '$.backends["gateway"].httpsPort: 65536 is not a port; give an integer from 1 to 65535',
        '$.backends["gateway"].proxyProtocol: "v3"; give "v1" or "v2"',
        '$.backends["ingress-nginx/controller"].address: "::FFFF:10.0.0.1" is not canonical; write "::ffff:10.0.0.1"',
        '$.backends["ingress-nginx/controller"].httpPort: "80" is not a port; give an integer from 1 to 65535',
        '$.backends["ingress-nginx/controller"].httpsPort: 443.5 is not a port; give an integer from 1 to 65535',
      ],
    },
    {
      name: "DNS addresses: one host of two labels or more, in normal form",
      text: table((json) => {
        json.backends.gateway!.address = "web";
        json.backends["ingress-nginx/controller"]!.address = "*.ingress-nginx.svc.cluster.local";
        json.backends.spare = { ...json.backends.gateway!, address: "Web.NS.svc.cluster.local." };
      }),
      problems: [
        `$.backends["gateway"].address: "web" has a single label; only names with a dot can be public hostnames; give a Service's ClusterIP or a DNS name such as web.ns.svc.cluster.local`,
        `$.backends["ingress-nginx/controller"].address: "*.ingress-nginx.svc.cluster.local" is a wildcard; a backend is one host; give a Service's ClusterIP or a DNS name such as web.ns.svc.cluster.local`,
        `$.backends["spare"].address: "Web.NS.svc.cluster.local." is not in normal form (lower case, no trailing dot, no padding); write "web.ns.svc.cluster.local"; give a Service's ClusterIP or a DNS name such as web.ns.svc.cluster.local`,
      ],
    },
    {
      name: "bad backend names, one reserved; routes naming them add nothing",
      text: table((json) => {
        json.backends = { "default": json.backends.gateway!, "Gateway_1": json.backends.gateway! };
        json.routes = [{ host: "a.example.com", backend: "default" }, {
          host: "b.example.com",
          backend: "Gateway_1",
        }];
      }),
      problems: [
        `$.backends["default"]: "default" is not a backend name; give 1–128 of a-z, 0-9, '.', '/', '-' (a letter or digit at either end), not "default"`,
        `$.backends["Gateway_1"]: "Gateway_1" is not a backend name; give 1–128 of a-z, 0-9, '.', '/', '-' (a letter or digit at either end), not "default"`,
      ],
    },
    {
      name: "routes and backends of the wrong type",
      text: '{"version": 1, "routes": {}, "backends": [], "x": null}',
      problems: [
        "$.x: not a key of this table; give only version, routes, backends",
        "$.backends: []; give an object of backends by name",
        '$.routes: {}; give a list of {"host", "backend"} objects',
      ],
    },
    {
      name: "a backend that is not an object",
      text: table((json) => {
        (json.backends as Record<string, unknown>).gateway = "10.96.0.12";
      }),
      problems: [
        '$.backends["gateway"]: "10.96.0.12"; give {"address", "httpPort", "httpsPort", "proxyProtocol"}',
      ],
    },
  ];
  for (const { name, text, problems } of cases) {
    await t.step(name, () => {
      const parsed = parseRouteTable(text);
      assert.ok(!parsed.ok, "the table was accepted");
      const matched = parsed.problems.map((problem, index) => {
        const expected = problems[index];
        return expected instanceof RegExp && expected.test(problem) ? expected : problem;
      });
      assert.deepEqual(matched, problems);
    });
  }
});

const LABELS = ["a", "b", "app", "api", "shop-1", "x9", "xn--bcher-kva", "example", "com", "org"];
const NAMES = ["gateway", "ingress-nginx/controller", "gw.2", "a", "b-1", "z9", "envoy/default-gw"];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** A random valid table: hosts of 2–4 labels, a third of them wildcards, 1–4 backends. */
function randomTable(random: () => number): RouteTable {
  const backends = new Map<string, RouteBackend>();
  const count = 1 + Math.floor(random() * 4);
  while (backends.size < count) {
    const ip = random() < 0.3
      ? `fd00::${Math.floor(random() * 0xffff).toString(16)}`
      : random() < 0.5
      ? `10.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.${1 + Math.floor(random() * 254)}`
      : `${pick(random, LABELS)}.ns.svc.cluster.local`;
    backends.set(pick(random, NAMES), {
      address: ip,
      httpPort: 1 + Math.floor(random() * 65535),
      httpsPort: 1 + Math.floor(random() * 65535),
      proxyProtocol: random() < 0.5 ? "v1" : "v2",
    });
  }
  const hosts = new Set<string>();
  const size = Math.floor(random() * 12);
  for (let i = 0; i < size; i++) {
    const labels = Array.from({ length: 2 + Math.floor(random() * 3) }, () => pick(random, LABELS));
    hosts.add(`${random() < 0.3 ? "*." : ""}${labels.join(".")}`);
  }
  const names = [...backends.keys()];
  return { routes: [...hosts].map((host) => ({ host, backend: pick(random, names) })), backends };
}

function shuffled<T>(random: () => number, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

Deno.test("property: render(parse(render(t))) is render(t), whatever the order of t", () => {
  for (let seed = 1; seed <= 500; seed++) {
    const random = prng(seed);
    const original = randomTable(random);
    const rendered = renderRouteTable(original);
    const parsed = parseRouteTable(rendered);
    assert.ok(parsed.ok, `seed ${seed}: ${parsed.ok ? "" : parsed.problems.join("\n")}`);
    assert.equal(renderRouteTable(parsed.table), rendered, `seed ${seed}`);
    const reordered: RouteTable = {
      routes: shuffled(random, original.routes),
      backends: new Map(shuffled(random, [...original.backends])),
    };
    assert.equal(renderRouteTable(reordered), rendered, `seed ${seed}: the order changed the bytes`);
  }
});

Deno.test("property: parseRouteTable never throws on mutated tables, and answers problems or a table", () => {
  const source = RENDERED;
  for (let seed = 1; seed <= 2000; seed++) {
    const random = prng(seed);
    const characters = [...source];
    for (let edits = 1 + Math.floor(random() * 4); edits > 0; edits--) {
      const at = Math.floor(random() * characters.length);
      const replacement = pick(random, ['"', "{", "}", "[", "]", ",", ":", "0", "-1", "*", "A", "", "null"]);
      characters.splice(at, random() < 0.5 ? 1 : 0, replacement);
    }
    const parsed = parseRouteTable(characters.join(""));
    if (parsed.ok) assert.equal(parseRouteTable(renderRouteTable(parsed.table)).ok, true, `seed ${seed}`);
    else {assert.ok(
        parsed.problems.length > 0 && parsed.problems.every((p) => p.startsWith("$")),
        `seed ${seed}`,
      );}
  }
});
