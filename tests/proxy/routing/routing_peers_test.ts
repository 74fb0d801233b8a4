/**
 * Routing through the real proxy child (`--workers=2`, `--routes-file`) to three real nginx
 * backends, each with its own certificate and `proxy_protocol`, driven by the real `curl`. Proves:
 * - HTTPS by SNI and HTTP by Host reach the backend the table names, exact and wildcard (`*` is one
 *   label), and curl verifies that backend's own certificate (`--cacert` with only it), so the
 *   right server completed the TLS handshake; nginx also reports the SNI and Host it was sent;
 * - an unknown name, an IP Host and a connection without SNI (curl to an IP) reach the default target;
 * - every backend, whatever PROXY version the table gives it, reports curl's own address and port;
 * - the table reaches the workers, a file replaced by rename (A and B swapped) re-routes them, and
 *   an invalid file logs one ERROR, counts `result="invalid"` once and leaves routing as it was.
 * nginx takes v1 and v2 on one listener, so the version of each backend is not told apart here
 * (tests/proxy/routing/routing_test.ts checks the header bytes).
 */

import assert from "node:assert/strict";
import type { RouteTable } from "../../../lib/routes/route_table.ts";
import { renderRouteTable } from "../../../lib/routes/route_table.ts";
import { type Daemon, startNginx } from "../../support/daemons.ts";
import { type LogLine, type ProxyProcess, startProxy } from "../../support/ouroboros_process.ts";
import { curlGet, freeLoopbackPort, withFreshPorts } from "../../support/peer_configs.ts";
import { metric } from "../../support/scrape.ts";
import { tempDir } from "../../support/temp_dir.ts";
import { selfSignedCertificate } from "../../support/tls_certificate.ts";
import { skipWithout } from "../../support/tools.ts";
import { waitFor } from "../../support/wait.ts";

type BackendName = "a" | "b" | "default";
const NAMES: readonly BackendName[] = ["a", "b", "default"];
/** Every name a case sends, in each certificate, so only the trusted key decides who may answer. */
const CERT_HOSTS = ["app.example.com", "shop.example.com", "*.apps.example.com", "unknown.example.com"];

/** One nginx backend: its ports and the certificate curl is given to trust for it. */
interface Backend {
  readonly httpPort: number;
  readonly httpsPort: number;
  readonly certPath: string;
}

/** nginx taking PROXY headers on a plain and a TLS port, answering its name, the client, Host and SNI. */
async function startBackend(name: BackendName, certDir: string): Promise<Backend & AsyncDisposable> {
  // CN `<name>.backend.test` keeps the three self-signed certificates apart; 127.0.0.1 is for no SNI.
  const cert = await selfSignedCertificate(certDir, name, [
    `${name}.backend.test`,
    ...CERT_HOSTS,
    "127.0.0.1",
  ]);
  let httpPort = 0;
  let httpsPort = 0;
  const daemon: Daemon = await withFreshPorts(() => {
    [httpPort, httpsPort] = [freeLoopbackPort(), freeLoopbackPort()];
    return startNginx(
      `  server {
    listen 127.0.0.1:${httpPort} proxy_protocol;
    listen 127.0.0.1:${httpsPort} ssl proxy_protocol;
    ssl_certificate ${cert.certPath};
    ssl_certificate_key ${cert.keyPath};
    location / { return 200 "${name} $proxy_protocol_addr $proxy_protocol_port host=$host sni=$ssl_server_name\\n"; }
  }`,
      [["127.0.0.1", httpPort], ["127.0.0.1", httpsPort]],
    );
  });
  return { httpPort, httpsPort, certPath: cert.certPath, [Symbol.asyncDispose]: () => daemon.stop() };
}

/** The table: app.example.com to A (v1), shop.example.com and the wildcard to B (v2); or swapped. */
function table(backends: Readonly<Record<BackendName, Backend>>, swapped: boolean): RouteTable {
  const [app, shop] = swapped ? ["b", "a"] : ["a", "b"];
  const backend = (name: "a" | "b", proxyProtocol: "v1" | "v2") => {
    const { httpPort, httpsPort } = backends[name];
    return [name, { address: "127.0.0.1", httpPort, httpsPort, proxyProtocol }] as const;
  };
  return {
    routes: [
      { host: "app.example.com", backend: app },
      { host: "shop.example.com", backend: shop },
      { host: "*.apps.example.com", backend: shop },
    ],
    backends: new Map([backend("a", "v1"), backend("b", "v2")]),
  };
}

/** One request: the listener, the name curl asks for (`undefined`: the IP), and who must answer. */
interface Case {
  readonly name: string;
  readonly listener: "http" | "https";
  readonly host: string | undefined;
  readonly backend: BackendName;
}

const CASES: readonly Case[] = [
  { name: "SNI, exact", listener: "https", host: "app.example.com", backend: "a" },
  { name: "SNI, the other exact", listener: "https", host: "shop.example.com", backend: "b" },
  { name: "SNI, wildcard", listener: "https", host: "web.apps.example.com", backend: "b" },
  { name: "SNI, unknown name", listener: "https", host: "unknown.example.com", backend: "default" },
  { name: "no SNI (curl to an IP)", listener: "https", host: undefined, backend: "default" },
  { name: "Host, exact", listener: "http", host: "app.example.com", backend: "a" },
  { name: "Host, the other exact", listener: "http", host: "shop.example.com", backend: "b" },
  { name: "Host, wildcard", listener: "http", host: "api.apps.example.com", backend: "b" },
  {
    name: "Host, two labels under the wildcard",
    listener: "http",
    host: "a.b.apps.example.com",
    backend: "default",
  },
  { name: "Host, unknown name", listener: "http", host: "unknown.example.com", backend: "default" },
  { name: "Host, an IP", listener: "http", host: undefined, backend: "default" },
];

/** A and B trade places in the swapped table; the default target stays. */
function expected(backend: BackendName, swapped: boolean): BackendName {
  return !swapped || backend === "default" ? backend : backend === "a" ? "b" : "a";
}

interface Rig extends AsyncDisposable {
  readonly proxy: ProxyProcess;
  readonly backends: Readonly<Record<BackendName, Backend>>;
  /** Replaces the routes file the way an atomic update does: a new file renamed over it. */
  write(text: string): Promise<void>;
}

async function rig(): Promise<Rig> {
  const stack = new AsyncDisposableStack();
  try {
    const certs = stack.use(await tempDir("ouroboros-routing-certs-"));
    const routes = stack.use(await tempDir("ouroboros-routing-routes-"));
    const started: Partial<Record<BackendName, Backend>> = {};
    for (const name of NAMES) started[name] = stack.use(await startBackend(name, certs.path));
    const backends = started as Record<BackendName, Backend>;
    const file = `${routes.path}/routes.json`;
    const write = async (text: string) => {
      await Deno.writeTextFile(`${file}.new`, text);
      await Deno.rename(`${file}.new`, file);
    };
    await write(renderRouteTable(table(backends, false)));
    const proxy = stack.use(
      await startProxy([
        "--workers=2",
        `--routes-file=${file}`,
        "--target-host=127.0.0.1",
        `--target-http-port=${backends.default.httpPort}`,
        `--target-https-port=${backends.default.httpsPort}`,
        "--proxy-protocol=v2",
      ], { extraRead: routes.path }),
    );
    const moved = stack.move();
    return { proxy, backends, write, [Symbol.asyncDispose]: () => moved.disposeAsync() };
  } catch (error) {
    await stack.disposeAsync();
    throw error;
  }
}

/** Runs every case through the proxy and checks who answered, what it was sent, and whom it saw. */
async function assertRouting({ proxy, backends }: Rig, swapped: boolean): Promise<void> {
  for (const { name, listener, host, backend } of CASES) {
    const port = proxy[listener]?.port;
    assert.ok(port !== undefined, `the proxy reported no ${listener} address`);
    const answering = expected(backend, swapped);
    const label = `${swapped ? "swapped" : "first"} table, ${name} (${host ?? "127.0.0.1"})`;
    const args = host === undefined ? [] : ["--resolve", `${host}:${port}:127.0.0.1`];
    if (listener === "https") args.push("--cacert", backends[answering].certPath);
    // curl fails (exit 60) if another backend's certificate answers the handshake.
    const curl = await curlGet(`${listener}://${host ?? "127.0.0.1"}:${port}/`, args);
    assert.equal(curl.status, 200, `${label}: ${curl.body}`);
    assert.equal(
      curl.body,
      `${answering} ${curl.local.ip} ${curl.local.port} host=${host ?? "127.0.0.1"} sni=${
        listener === "https" ? host ?? "" : ""
      }\n`,
      `${label}: backend, curl's own address, Host and SNI`,
    );
  }
}

const loaded = (line: LogLine) => line.msg === "route table loaded";
const TOOLS = ["nginx", "curl", "openssl"];

Deno.test({
  name: "real nginx backends behind the proxy (2 workers): routed by SNI and Host, default, curl's address",
  ignore: skipWithout("nginx routing peers", TOOLS),
  async fn() {
    await using setup = await rig();
    await assertRouting(setup, false);
    // Each case was one connection, counted under the route that served it (workers summed).
    const count = (backend: BackendName) => CASES.filter((c) => c.backend === backend).length;
    for (const route of NAMES) {
      const series = ["ouroboros_proxy_route_connections_total", { route }] as const;
      assert.equal(await metric(setup.proxy, series), count(route), `connections of route ${route}`);
    }
  },
});

Deno.test({
  name: "real nginx backends behind the proxy: a renamed-over table re-routes, an invalid one is refused",
  ignore: skipWithout("nginx routing peers", TOOLS),
  async fn() {
    await using setup = await rig();
    const { proxy } = setup;
    const loads = (result: string) => metric(proxy, ["ouroboros_proxy_route_table_loads_total", { result }]);
    await assertRouting(setup, false);

    await setup.write(renderRouteTable(table(setup.backends, true)));
    await waitFor("the second 'route table loaded' line", () => proxy.logs.filter(loaded).length === 2);
    assert.equal(await loads("ok"), 2);
    await assertRouting(setup, true);

    await setup.write(
      '{"version": 1, "routes": [{"host": "app.example.com", "backend": "gone"}], "backends": {}}',
    );
    const invalid = (line: LogLine) => line.msg === "route table is invalid; keeping the last good table";
    const refused = await proxy.waitForLog("the invalid route table ERROR", invalid);
    assert.equal(refused.level, "ERROR");
    assert.equal(await loads("invalid"), 1);
    assert.equal(await loads("ok"), 2);
    await assertRouting(setup, true);
    assert.equal(proxy.logs.filter(loaded).length, 2, "no table was loaded after the invalid one");
    assert.equal(proxy.logs.filter(invalid).length, 1, "one ERROR for the invalid table");
  },
});
