/**
 * The proxy against real PROXY-protocol receivers (nginx and HAProxy): the real `curl` goes
 * through `ouroboros proxy`, and the receiver must report exactly curl's own address and port
 * as the client, and the proxy listener curl connected to as the destination, for v1 and v2,
 * IPv4 and IPv6, dual-stack and single-family listeners, plain and TLS.
 */

import assert from "node:assert/strict";
import { type HostPort, type ProxyProcess, startProxy } from "../support/ouroboros_process.ts";
import {
  curlGet,
  type CurlResult,
  freeLoopbackPort,
  hostPort,
  type Loopback,
  parseSeen,
  type SeenAddresses,
  selfSignedCertificate,
  startHaproxyEcho,
  startNginxEcho,
  withFreshPorts,
} from "../support/peer_configs.ts";
import { skipWithout } from "../support/tools.ts";

const VERSIONS = ["v1", "v2"] as const;

/** A proxy listen address and the clients that reach it, with the backend address it dials. */
interface Route {
  readonly listen: string;
  readonly clients: readonly Loopback[];
  /** The backend family is independent of the client's: mix them on purpose. */
  readonly targetHost: Loopback;
}

const ROUTES: readonly Route[] = [
  // Dual stack: IPv4 clients arrive as ::ffff:127.0.0.1 and must be unwrapped to TCP4.
  { listen: "[::]:0", clients: ["127.0.0.1", "::1"], targetHost: "::1" },
  { listen: "127.0.0.1:0", clients: ["127.0.0.1"], targetHost: "127.0.0.1" },
  { listen: "[::1]:0", clients: ["::1"], targetHost: "127.0.0.1" },
];

function traffic(proxy: ProxyProcess, listener: "http" | "https"): HostPort {
  const address = proxy[listener];
  assert.ok(address, `the proxy reported no ${listener} address: ${JSON.stringify(proxy.starting)}`);
  return address;
}

/** One curl request through the proxy and what the receiver answered. */
interface Exchange {
  readonly label: string;
  readonly listenerPort: number;
  readonly curl: CurlResult;
  readonly seen: SeenAddresses;
}

/**
 * Sends one curl request per route, client and version through a proxy in front of the
 * receiver on `receiverPort` and returns what each side saw.
 */
async function exchangesThroughProxy(receiverPort: number): Promise<Exchange[]> {
  const exchanges: Exchange[] = [];
  for (const version of VERSIONS) {
    for (const route of ROUTES) {
      await using proxy = await startProxy([
        `--listen-http=${route.listen}`,
        "--listen-https=",
        `--target-host=${route.targetHost}`,
        `--target-http-port=${receiverPort}`,
        `--proxy-protocol=${version}`,
      ]);
      const listenerPort = traffic(proxy, "http").port;
      for (const client of route.clients) {
        const label = `${version}, proxy on ${route.listen}, curl from ${client}`;
        const curl = await curlGet(`http://${hostPort(client, listenerPort)}/`);
        assert.equal(curl.status, 200, `${label}: ${curl.body}`);
        exchanges.push({ label, listenerPort, curl, seen: parseSeen(curl.body) });
      }
    }
  }
  return exchanges;
}

function assertSourceIsCurl(exchange: Exchange): void {
  const { label, curl, seen } = exchange;
  assert.deepEqual(seen.source, curl.local, `${label}: the receiver must see curl's own address`);
}

function assertDestinationIsListener(exchange: Exchange): void {
  const { label, curl, seen, listenerPort } = exchange;
  assert.equal(curl.remote.port, listenerPort, `${label}: curl connected to the proxy listener`);
  assert.deepEqual(
    seen.destination,
    curl.remote,
    `${label}: the destination must be the listener curl reached`,
  );
}

Deno.test({
  name: "nginx behind the proxy sees curl's own address and port (v1, v2; IPv4, IPv6, dual stack)",
  ignore: skipWithout("nginx PROXY-protocol receiver", ["nginx", "curl"]),
  async fn() {
    let port = 0;
    await using _nginx = await withFreshPorts(() => startNginxEcho({ httpPort: port = freeLoopbackPort() }));
    const exchanges = await exchangesThroughProxy(port);
    assert.equal(exchanges.length, 8);
    exchanges.forEach(assertSourceIsCurl);
    // The IPv4 client of the dual-stack listener is reported unwrapped, never as ::ffff:127.0.0.1.
    const mapped = exchanges.filter((e) => e.label.includes("[::]:0") && e.curl.local.ip === "127.0.0.1");
    assert.equal(mapped.length, 2);
    for (const exchange of mapped) assert.equal(exchange.seen.source.ip, "127.0.0.1", exchange.label);
  },
});

Deno.test({
  name: "nginx behind the proxy sees the proxy listener as the PROXY destination",
  ignore: skipWithout("nginx PROXY-protocol receiver", ["nginx", "curl"]),
  async fn() {
    let port = 0;
    await using _nginx = await withFreshPorts(() => startNginxEcho({ httpPort: port = freeLoopbackPort() }));
    const exchanges = await exchangesThroughProxy(port);
    assert.equal(exchanges.length, 8);
    exchanges.forEach(assertDestinationIsListener);
  },
});

Deno.test({
  name: "HAProxy accept-proxy behind the proxy sees curl's address and the listener (v1, v2; IPv4, IPv6)",
  ignore: skipWithout("HAProxy PROXY-protocol receiver", ["haproxy", "curl"]),
  async fn() {
    let port = 0;
    await using _haproxy = await withFreshPorts(() => startHaproxyEcho(port = freeLoopbackPort()));
    const exchanges = await exchangesThroughProxy(port);
    assert.equal(exchanges.length, 8);
    for (const exchange of exchanges) {
      assertSourceIsCurl(exchange);
      assertDestinationIsListener(exchange);
    }
  },
});

const SPOOF = "PROXY TCP4 1.2.3.4 5.6.7.8 1111 2222\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n";

/**
 * Reads one HTTP response: up to the end of its `Content-Length` body, or to EOF without one.
 * Closes the connection and fails if that takes over `timeoutMs` (a guard against hangs only).
 */
async function readHttpResponse(conn: Deno.Conn, timeoutMs = 20_000): Promise<string> {
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    conn.close();
  }, timeoutMs);
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(16 * 1024);
  let text = "";
  try {
    while (!isCompleteResponse(text)) {
      const n = await conn.read(buffer);
      if (n === null) break;
      text += decoder.decode(buffer.subarray(0, n), { stream: true });
    }
  } catch (error) {
    if (timedOut) throw new Error(`no complete response within ${timeoutMs} ms; got ${JSON.stringify(text)}`);
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return text;
}

function isCompleteResponse(text: string): boolean {
  const headerEnd = text.indexOf("\r\n\r\n");
  if (headerEnd < 0) return false;
  const length = /^content-length:\s*(\d+)\s*$/im.exec(text.slice(0, headerEnd))?.[1];
  return length !== undefined && new TextEncoder().encode(text.slice(headerEnd + 4)).length >= Number(length);
}

Deno.test({
  name: "a client's own PROXY line cannot spoof its address: nginx keeps ours and rejects it with 400",
  ignore: skipWithout("nginx PROXY-protocol receiver", ["nginx"]),
  async fn() {
    let port = 0;
    await using _nginx = await withFreshPorts(() => startNginxEcho({ httpPort: port = freeLoopbackPort() }));
    for (const version of VERSIONS) {
      await using proxy = await startProxy([
        "--target-host=127.0.0.1",
        `--target-http-port=${port}`,
        `--proxy-protocol=${version}`,
      ]);
      const conn = await Deno.connect(traffic(proxy, "http"));
      const own = conn.localAddr;
      let response: string;
      try {
        await conn.write(new TextEncoder().encode(SPOOF));
        response = await readHttpResponse(conn);
      } finally {
        conn.close();
      }
      assert.ok(!response.includes("1.2.3.4"), `${version}: the spoofed address leaked: ${response}`);
      assert.match(response, /^HTTP\/1\.1 400 /, `${version}: nginx must reject the client's PROXY line`);
      const body = response.slice(response.indexOf("\r\n\r\n") + 4);
      assert.equal(body, `rejected ${own.hostname} ${own.port}\n`, `${version}: nginx must keep our header`);
    }
  },
});

Deno.test({
  name: "the https listener relays opaque TLS to the https port; nginx ssl sees curl's address (v1, v2)",
  ignore: skipWithout("nginx TLS PROXY-protocol receiver", ["nginx", "curl", "openssl"]),
  async fn() {
    await using certificate = await selfSignedCertificate();
    let httpPort = 0;
    let tlsPort = 0;
    await using _nginx = await withFreshPorts(() => {
      httpPort = freeLoopbackPort();
      tlsPort = freeLoopbackPort();
      return startNginxEcho({ httpPort, tls: { port: tlsPort, certificate } });
    });
    for (const version of VERSIONS) {
      await using proxy = await startProxy([
        "--listen-http=",
        "--listen-https=[::]:0",
        "--target-host=127.0.0.1",
        `--target-http-port=${httpPort}`,
        `--target-https-port=${tlsPort}`,
        `--proxy-protocol=${version}`,
      ]);
      const listenerPort = traffic(proxy, "https").port;
      for (const client of ["127.0.0.1", "::1"] as const) {
        const label = `${version}, TLS, curl from ${client}`;
        const curl = await curlGet(`https://${hostPort(client, listenerPort)}/`, ["--insecure"]);
        assert.equal(curl.status, 200, `${label}: ${curl.body}`);
        const exchange = { label, listenerPort, curl, seen: parseSeen(curl.body) };
        assertSourceIsCurl(exchange);
        assertDestinationIsListener(exchange);
      }
    }
  },
});
