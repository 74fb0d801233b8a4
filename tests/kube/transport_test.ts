import assert from "node:assert/strict";
import {
  isConflict,
  isTooManyRequests,
  KubeApiError,
  KubeTransportError,
  retryAfterMs,
} from "../../lib/kube/errors.ts";
import { staticCredentials } from "../../lib/kube/credentials.ts";
import type { KubeRequestRecord } from "../../lib/kube/request_metrics.ts";
import { Transport, USER_AGENT } from "../../lib/kube/transport.ts";
import { VERSION } from "../../lib/util/version.ts";
import { skipWithout } from "../support/tools.ts";
import { selfSignedCertificate } from "../support/tls_certificate.ts";
import { tempDir } from "../support/temp_dir.ts";
import { waitFor } from "../support/wait.ts";
import { FakeClock } from "../support/fake_clock.ts";
import { startOpensslServer } from "./openssl_server.ts";
import { makePki, type Pki } from "../support/pki.ts";

const NO_OPENSSL = skipWithout("TLS transport tests", ["openssl"]);

/** An HTTPS server with the test CA's certificate, recording what it was sent. */
function httpsServer(pki: Pki, handler: (request: Request) => Response | Promise<Response>) {
  return Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: pki.serverCert, key: pki.serverKey, onListen: () => {} },
    handler,
  );
}

Deno.test({
  name: "a server certificate signed by the configured CA is accepted; requests carry our User-Agent",
  ignore: NO_OPENSSL,
  fn: async () => {
    await using pki = await makePki();
    const seen: { agent: string | null; auth: string | null; accept: string | null }[] = [];
    await using server = httpsServer(pki, (request) => {
      seen.push({
        agent: request.headers.get("user-agent"),
        auth: request.headers.get("authorization"),
        accept: request.headers.get("accept"),
      });
      return Response.json({ kind: "ConfigMap", ok: true });
    });
    for (const host of ["127.0.0.1", "localhost"]) {
      using transport = new Transport({
        server: `https://${host}:${server.addr.port}`,
        caCerts: [pki.caPem],
        credentials: staticCredentials({ authorization: "Bearer abc" }),
      });
      assert.deepEqual(await transport.json({ method: "GET", path: "/api/v1" }), {
        kind: "ConfigMap",
        ok: true,
      });
    }
    assert.equal(USER_AGENT, `ouroboros/${VERSION}`);
    assert.deepEqual(seen, [
      { agent: USER_AGENT, auth: "Bearer abc", accept: "application/json" },
      { agent: USER_AGENT, auth: "Bearer abc", accept: "application/json" },
    ]);
  },
});

Deno.test({
  name: "a server certificate from another CA fails closed with a tls KubeTransportError",
  ignore: NO_OPENSSL,
  fn: async () => {
    await using pki = await makePki();
    let reached = 0;
    await using server = httpsServer(pki, () => {
      reached++;
      return Response.json({});
    });
    for (const caCerts of [[pki.otherCaPem], []]) {
      using transport = new Transport({ server: `https://127.0.0.1:${server.addr.port}`, caCerts });
      const error = await transport.json({ method: "GET", path: "/api" }).then(() => undefined, (e) => e);
      assert.ok(error instanceof KubeTransportError, String(error));
      assert.equal(error.kind, "tls");
      assert.equal(error.request, "GET /api");
      // rustls's own words survive fetch's "fetch failed", with what to do about them.
      assert.match(error.message, /UnknownIssuer.*did not sign the API server's certificate/, error.message);
    }
    assert.equal(reached, 0, "no request may reach a server whose certificate was not verified");
  },
});

Deno.test({
  name:
    "a self-signed serving certificate with CA:TRUE, which kubectl accepts, fails with its cause and the fix",
  ignore: NO_OPENSSL,
  fn: async () => {
    await using dir = await tempDir("ca-as-leaf-");
    const files = await selfSignedCertificate(dir.path, "apiserver", ["127.0.0.1"], { ca: true });
    const cert = await Deno.readTextFile(files.certPath);
    const key = await Deno.readTextFile(files.keyPath);
    await using server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, cert, key, onListen: () => {} },
      () => Response.json({}),
    );
    using transport = new Transport({ server: `https://127.0.0.1:${server.addr.port}`, caCerts: [cert] });
    const error = await transport.json({ method: "GET", path: "/api" }).then(() => undefined, (e) => e);
    assert.ok(error instanceof KubeTransportError, String(error));
    assert.equal(error.kind, "tls");
    assert.match(error.message, /CaUsedAsEndEntity/, error.message);
    assert.match(error.message, /serve a leaf certificate signed by that CA/);
  },
});

Deno.test({
  name: "the client certificate is presented: openssl s_server -Verify 1 serves us only with it",
  ignore: NO_OPENSSL,
  fn: async () => {
    await using pki = await makePki();
    await Deno.writeTextFile(`${pki.dir}/status.json`, '{"kind":"Status","status":"Success"}');
    await using server = await startOpensslServer(pki);
    const base = { server: server.url, caCerts: [pki.caPem] };
    {
      using transport = new Transport({
        ...base,
        clientCertificate: { cert: pki.clientCert, key: pki.clientKey },
      });
      assert.deepEqual(await transport.json({ method: "GET", path: "/status.json" }), {
        kind: "Status",
        status: "Success",
      });
    }
    {
      using transport = new Transport(base);
      const error = await transport.json({ method: "GET", path: "/status.json" }).then(
        () => undefined,
        (e) => e,
      );
      assert.ok(error instanceof KubeTransportError, String(error));
      assert.equal(error.kind, "tls");
    }
  },
});

Deno.test("HTTP error statuses become KubeApiError with the Status body's details", async (t) => {
  const answers: Record<string, () => Response> = {
    "/conflict": () =>
      Response.json({
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        reason: "Conflict",
        code: 409,
        message: 'Operation cannot be fulfilled on configmaps "coredns": the object has been modified',
      }, { status: 409 }),
    "/throttled": () =>
      Response.json({ kind: "Status", reason: "TooManyRequests", code: 429, message: "slow down" }, {
        status: 429,
        headers: { "retry-after": "7" },
      }),
    "/html": () => new Response("<html>bad gateway</html>", { status: 503 }),
    "/empty": () => new Response(null, { status: 404 }),
  };
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => answers[new URL(request.url).pathname]?.() ?? new Response(null, { status: 500 }),
  );
  using transport = new Transport({ server: `http://127.0.0.1:${server.addr.port}` });
  const failure = (path: string) =>
    transport.json({ method: "PUT", path, body: {} }).then(() => undefined, (e) => e);

  await t.step("409 Conflict keeps reason and message", async () => {
    const error = await failure("/conflict");
    assert.ok(error instanceof KubeApiError);
    assert.ok(isConflict(error));
    assert.equal(error.request, "PUT /conflict");
    assert.equal(
      error.status.message,
      'Operation cannot be fulfilled on configmaps "coredns": the object has been modified',
    );
  });
  await t.step("429 carries Retry-After", async () => {
    const error = await failure("/throttled");
    assert.ok(isTooManyRequests(error));
    assert.equal(retryAfterMs(error), 7000);
  });
  await t.step("a non-JSON body falls back to the status line", async () => {
    const error = await failure("/html");
    assert.ok(error instanceof KubeApiError);
    assert.deepEqual(error.status, { code: 503, reason: "ServiceUnavailable", message: "HTTP 503" });
  });
  await t.step("an empty 404", async () => {
    const error = await failure("/empty");
    assert.ok(error instanceof KubeApiError);
    assert.deepEqual(error.status, { code: 404, reason: "NotFound", message: "HTTP 404" });
  });
});

Deno.test("a request without an answer fails with a timeout KubeTransportError at its deadline", async () => {
  const clock = new FakeClock();
  let release = () => {};
  const released = new Promise<void>((resolve) => release = resolve);
  let arrived = 0;
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async () => {
    arrived++;
    await released;
    return new Response("{}");
  });
  using transport = new Transport({
    server: `http://127.0.0.1:${server.addr.port}`,
    clock,
    timeoutMs: 5_000,
  });
  try {
    const pending = transport.json({ method: "GET", path: "/slow" }).then(() => undefined, (e) => e);
    await waitFor("the request to reach the server", () => arrived === 1);
    clock.advanceSync(4_999);
    assert.equal(clock.pending().length, 1, "the deadline has not passed yet");
    clock.advanceSync(1);
    const error = await pending;
    assert.ok(error instanceof KubeTransportError, String(error));
    assert.equal(error.kind, "timeout");
    assert.match(error.message, /GET \/slow: timeout: no answer within 5000 ms/);
    assert.equal(clock.pending().length, 0);
  } finally {
    release();
  }
});

Deno.test("the caller's abort cancels a request with the caller's reason, not a timeout", async () => {
  let release = () => {};
  const released = new Promise<void>((resolve) => release = resolve);
  let arrived = false;
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async () => {
    arrived = true;
    await released;
    return new Response("{}");
  });
  using transport = new Transport({
    server: `http://127.0.0.1:${server.addr.port}`,
    clock: new FakeClock(),
  });
  const controller = new AbortController();
  try {
    const pending = transport.json({ method: "GET", path: "/x", signal: controller.signal }).then(
      () => undefined,
      (e) => e,
    );
    await waitFor("the request to arrive", () => arrived);
    const reason = new Error("shutting down");
    controller.abort(reason);
    assert.equal(await pending, reason);
  } finally {
    release();
  }
});

Deno.test("a refused connection fails with a refused KubeTransportError naming the request", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  using transport = new Transport({ server: `http://127.0.0.1:${port}` });
  const error = await transport.json({ method: "GET", path: "/api" }).then(() => undefined, (e) => e);
  assert.ok(error instanceof KubeTransportError);
  assert.equal(error.kind, "refused");
  assert.equal(error.request, "GET /api");
});

Deno.test("the server URL must be http(s)", () => {
  assert.throws(() => new Transport({ server: "ftp://x" }), /must be an https:\/\/ or http:\/\/ URL/);
  assert.throws(() => new Transport({ server: "not a url" }), /server is not a URL/);
});

Deno.test("a closed transport refuses new requests", async () => {
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => Response.json({}),
  );
  const transport = new Transport({ server: `http://127.0.0.1:${server.addr.port}` });
  assert.deepEqual(await transport.json({ method: "GET", path: "/api" }), {});
  transport.close();
  transport.close();
  const error = await transport.json({ method: "GET", path: "/api" }).then(() => undefined, (e) => e);
  assert.ok(error instanceof KubeTransportError);
  assert.match(error.message, /GET \/api: other: the client is closed/);
});

Deno.test("every request sent is reported to the recorder: verb, path, status or none, time to headers", async () => {
  const clock = new FakeClock();
  const seen: KubeRequestRecord[] = [];
  let tokens = 0;
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    if (request.headers.get("authorization") === "Bearer stale") return new Response(null, { status: 401 });
    clock.advanceSync(40);
    return new URL(request.url).pathname.endsWith("/missing")
      ? new Response(null, { status: 404 })
      : Response.json({});
  });
  using transport = new Transport({
    server: `http://127.0.0.1:${server.addr.port}`,
    clock,
    credentials: {
      description: "test",
      current: () => Promise.resolve({ authorization: tokens++ === 0 ? "Bearer stale" : "Bearer fresh" }),
      invalidate: () => {},
    },
    requests: { record: (request) => seen.push(request) },
  });
  const path = "/api/v1/namespaces/a/configmaps/b";
  await transport.json({ method: "GET", path });
  await transport.json({ method: "DELETE", path: `${path}/missing` }).catch(() => undefined);
  assert.deepEqual(seen, [
    { verb: "get", path, status: 401, seconds: 0 },
    { verb: "get", path, status: 200, seconds: 0.04 },
    { verb: "delete", path: `${path}/missing`, status: 404, seconds: 0.04 },
  ]);

  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = closed.addr.port;
  closed.close();
  const refused: KubeRequestRecord[] = [];
  using unreachable = new Transport({
    server: `http://127.0.0.1:${port}`,
    requests: { record: (request) => refused.push(request) },
  });
  await unreachable.json({ method: "GET", path: "/version" }).catch(() => undefined);
  assert.equal(refused.length, 1);
  assert.equal(refused[0]?.status, undefined, "no answer: no status");
});
