import assert from "node:assert/strict";
import {
  expectedBackends,
  routeFindings,
  type RouteInput,
  type RouteProbe,
  routeTableOutcome,
  type RouteTableRead,
} from "../../../lib/doctor/checks/route_findings.ts";
import type { TlsProbeResult } from "../../../lib/doctor/probes/tls_probe.ts";
import { renderRouteTable, type RouteTable } from "../../../lib/routes/route_table.ts";

const REF = { namespace: "ouroboros", configmap: "ouroboros-routes" };
const NGINX = "ingress-nginx/controller";
const GATEWAY = "envoy/public";

const TABLE: RouteTable = {
  routes: [
    { host: "shop.example.com", backend: NGINX },
    { host: "app.example.com", backend: GATEWAY },
    { host: "*.apps.example.com", backend: GATEWAY },
  ],
  backends: new Map([
    [NGINX, { address: "10.96.0.10", httpPort: 80, httpsPort: 443, proxyProtocol: "v1" }],
    [GATEWAY, { address: "10.96.0.20", httpPort: 80, httpsPort: 8443, proxyProtocol: "v2" }],
  ]),
};

Deno.test("expectedBackends: the proxy's own lookup, exact names before wildcards, the rest to the default", () => {
  const cases: readonly [string, string | undefined][] = [
    ["shop.example.com", NGINX],
    ["app.example.com", GATEWAY],
    ["doctor-probe.apps.example.com", GATEWAY],
    ["a.b.apps.example.com", undefined],
    ["apps.example.com", undefined],
    ["other.example.com", undefined],
  ];
  const expected = expectedBackends(TABLE, cases.map(([host]) => host));
  for (const [host, backend] of cases) assert.equal(expected.get(host), backend, host);
});

Deno.test("routeTableOutcome: the table, or a finding saying what is wrong with it and what to do", () => {
  const found = (data: Record<string, string>): RouteTableRead => ({ kind: "found", data });
  const cases: readonly [string, RouteTableRead, string, RegExp, RegExp | undefined, boolean][] = [
    [
      "a good table",
      found({ "routes.json": renderRouteTable(TABLE) }),
      "ok",
      /^the route table sends 3 hostnames \(1 wildcard\) to 2 backends: envoy\/public, ingress-nginx\/controller;/,
      undefined,
      true,
    ],
    [
      "an empty table",
      found({ "routes.json": '{"version": 1, "routes": [], "backends": {}}' }),
      "ok",
      /^the route table sends 0 hostnames to 0 backends; every other name/,
      undefined,
      true,
    ],
    [
      "no ConfigMap",
      { kind: "absent" },
      "problem",
      /^ConfigMap ouroboros\/ouroboros-routes does not exist: the proxy has no route table to mount/,
      /controller runs with --routes and the same --routes-configmap and --routes-namespace/,
      false,
    ],
    [
      "RBAC",
      { kind: "forbidden" },
      "could-not-check",
      /RBAC does not allow get on configmaps in namespace ouroboros \(403\)/,
      /allowed to get configmaps in ouroboros/,
      false,
    ],
    [
      "another failure",
      { kind: "failed", message: "timed out" },
      "could-not-check",
      /: timed out$/,
      undefined,
      false,
    ],
    [
      "someone else's ConfigMap",
      found({ "Corefile": "." }),
      "problem",
      /has no routes\.json key: it is not the controller's route table/,
      /another --routes-configmap/,
      false,
    ],
    [
      "not JSON",
      found({ "routes.json": "{" }),
      "problem",
      /^the route table is invalid: \$: not JSON/,
      /keeps its last good table/,
      false,
    ],
    [
      "many problems: three shown, the rest counted",
      found({
        "routes.json": JSON.stringify({
          version: 1,
          routes: [1, 2, 3, 4, 5].map((n) => ({ host: `h${n}..example.com`, backend: "x" })),
          backends: {},
        }),
      }),
      "problem",
      /^the route table is invalid: \$\.routes\[0\]\.host: .*; \$\.routes\[1\]\.host: "h2\.\.example\.com" [^;]*; and 7 more problems$/,
      undefined,
      false,
    ],
  ];
  for (const [name, read, verdict, saw, todo, hasTable] of cases) {
    const outcome = routeTableOutcome(read, REF);
    assert.equal(outcome.finding.subject, "ConfigMap ouroboros/ouroboros-routes[routes.json]", name);
    assert.equal(outcome.finding.check, "path", name);
    assert.equal(outcome.finding.verdict, verdict, name);
    assert.match(outcome.finding.saw, saw, name);
    if (todo !== undefined) assert.match(outcome.finding.todo ?? "", todo, name);
    else if (verdict === "ok") assert.equal(outcome.finding.todo, undefined, name);
    assert.equal(outcome.table !== undefined, hasTable, name);
  }
});

function shown(names: string[], fingerprint: string): TlsProbeResult {
  return { kind: "handshake", protocol: "TLSv1.3", certificate: { names, coversHost: true, fingerprint } };
}

const SHOP = shown(["shop.example.com"], "AA:AA:AA:AA:AA");
const APP = shown(["app.example.com"], "BB:BB:BB:BB:BB");
const DEFAULT = shown(["*.example.com"], "CC:CC:CC:CC:CC");

function probe(host: string, extra: Partial<RouteProbe>): RouteProbe {
  return { host, address: "10.96.0.50", direct: new Map(), ...extra };
}

function input(probes: RouteProbe[], extra: Partial<RouteInput> = {}): RouteInput {
  return { table: TABLE, ref: REF, inCluster: true, timeoutMs: 5_000, probes, ...extra };
}

/** Both backends answering directly as they should. */
const HEALTHY = new Map([[NGINX, SHOP], [GATEWAY, APP]]);

Deno.test("routeFindings: the certificate through the proxy against the one each backend presents directly", () => {
  const cases: readonly [string, RouteInput, string, string, RegExp, RegExp?][] = [
    [
      "its own backend answered",
      input([probe("shop.example.com", { expected: NGINX, through: SHOP, direct: HEALTHY })]),
      `host shop.example.com routed to ${NGINX}`,
      "ok",
      /^reaches its own backend: the certificate presented through the proxy is the one ingress-nginx\/controller presents at 10\.96\.0\.10:443$/,
    ],
    [
      "a shared certificate cannot tell the backends apart",
      input([probe("shop.example.com", {
        expected: NGINX,
        through: SHOP,
        direct: new Map([[NGINX, SHOP], [GATEWAY, SHOP]]),
      })]),
      `host shop.example.com routed to ${NGINX}`,
      "ok",
      /; envoy\/public presents the same one for this name, so the certificate cannot tell them apart$/,
    ],
    [
      "the other backend answered: a stale table",
      input([probe("app.example.com", { expected: GATEWAY, through: SHOP, direct: HEALTHY })]),
      `host app.example.com routed to ${GATEWAY}`,
      "problem",
      /^reaches ingress-nginx\/controller instead: .* presents for it \(shop\.example\.com; sha256 AA:AA:AA:AA…\), not envoy\/public's at 10\.96\.0\.20:8443 \(app\.example\.com; sha256 BB:BB:BB:BB…\)$/,
      /--routes-file .*\/etc\/ouroboros\/routes; if it does, its table is stale/,
    ],
    [
      "no backend answered: the default target, most likely",
      input([probe("app.example.com", { expected: GATEWAY, through: DEFAULT, direct: HEALTHY })]),
      `host app.example.com routed to ${GATEWAY}`,
      "problem",
      /^does not reach envoy\/public: .*a certificate no backend of the table presents for it \(\*\.example\.com; sha256 CC:CC:CC:CC…\) \(the proxy's default target\?\)/,
      /ConfigMap ouroboros\/ouroboros-routes says/,
    ],
    [
      "hosts no route names",
      input([probe("other.example.com", { through: DEFAULT })]),
      "host other.example.com routed to the default target",
      "ok",
      /^no route names it: the proxy sends it to its default target \(--target-host\)/,
    ],
    [
      "the backend refuses, in a pod",
      input([probe("shop.example.com", {
        expected: NGINX,
        through: SHOP,
        direct: new Map([[NGINX, { kind: "refused" }]]),
      })]),
      `host shop.example.com routed to ${NGINX}`,
      "problem",
      /^ingress-nginx\/controller called directly: connection to 10\.96\.0\.10:443 refused$/,
      /ready endpoints on that port/,
    ],
    [
      "the backend is out of reach from a workstation",
      input([probe("shop.example.com", {
        expected: NGINX,
        through: SHOP,
        direct: new Map([[NGINX, { kind: "connect-timeout" }]]),
      })], { inCluster: false }),
      `host shop.example.com routed to ${NGINX}`,
      "could-not-check",
      /could not connect to 10\.96\.0\.10:443 within 5s \(ClusterIPs are usually not reachable from outside the cluster\)$/,
      /helm test <release>/,
    ],
    [
      "the backend hangs up on the table's PROXY version",
      input([probe("app.example.com", {
        expected: GATEWAY,
        through: APP,
        direct: new Map([[GATEWAY, { kind: "closed" }]]),
      })]),
      `host app.example.com routed to ${GATEWAY}`,
      "problem",
      /^envoy\/public called directly: connected to 10\.96\.0\.20:8443, then the connection was closed without an answer, after a PROXY v2 header$/,
      /the table gives envoy\/public PROXY v2: .*--routes-proxy-protocol.*ouroboros\.lexfrei\.tech\/proxy-protocol/,
    ],
    [
      "the call through the proxy failed: the path line says so",
      input([probe("shop.example.com", { expected: NGINX, through: { kind: "reset" }, direct: HEALTHY })]),
      `host shop.example.com routed to ${NGINX}`,
      "could-not-check",
      /^not compared with ingress-nginx\/controller: the TLS call through the proxy failed \(above\)$/,
    ],
    [
      "no https port on the proxy Service",
      input([probe("shop.example.com", { expected: NGINX, direct: HEALTHY })]),
      `host shop.example.com routed to ${NGINX}`,
      "could-not-check",
      /the proxy Service has no https port/,
      /add the https port/,
    ],
  ];
  for (const [name, routeInput, subject, verdict, saw, todo] of cases) {
    const findings = routeFindings(routeInput);
    assert.equal(findings.length, 1, `${name}: ${JSON.stringify(findings, null, 2)}`);
    const [finding] = findings as [typeof findings[0]];
    assert.equal(finding.subject, subject, name);
    assert.equal(finding.verdict, verdict, name);
    assert.match(finding.saw, saw, name);
    if (todo === undefined) assert.equal(finding.todo, undefined, name);
    else assert.match(finding.todo ?? "", todo, name);
  }
});

Deno.test("routeFindings: hosts routed alike that saw the same share a line; two proxy addresses are named", () => {
  const alike = routeFindings(input([
    probe("app.example.com", { expected: GATEWAY, through: APP, direct: HEALTHY }),
    probe("doctor-probe.apps.example.com", { expected: GATEWAY, through: APP, direct: HEALTHY }),
    probe("shop.example.com", { expected: NGINX, through: SHOP, direct: HEALTHY }),
    probe("a.example.com", { through: DEFAULT }),
    probe("b.example.com", { through: DEFAULT }),
  ]));
  assert.deepEqual(alike.map((finding) => [finding.subject, finding.verdict]), [
    [`2 hosts app.example.com, doctor-probe.apps.example.com routed to ${GATEWAY}`, "ok"],
    [`host shop.example.com routed to ${NGINX}`, "ok"],
    ["2 hosts a.example.com, b.example.com routed to the default target", "ok"],
  ]);
  const dualStack = routeFindings(input([
    probe("shop.example.com", { expected: NGINX, through: SHOP, direct: HEALTHY }),
    probe("shop.example.com", { address: "fd00::50", expected: NGINX, through: APP, direct: HEALTHY }),
  ]));
  assert.deepEqual(dualStack.map((finding) => [finding.subject, finding.verdict]), [
    [`host shop.example.com via 10.96.0.50 routed to ${NGINX}`, "ok"],
    [`host shop.example.com via fd00::50 routed to ${NGINX}`, "problem"],
  ]);
});
