import assert from "node:assert/strict";
import { KubeTransportError } from "../../lib/kube/errors.ts";
import { transportErrorKind } from "../../lib/kube/transport_error.ts";

function fetchFailed(cause: string): TypeError {
  return new TypeError("fetch failed", { cause: new Error(cause) });
}

Deno.test("transportErrorKind sorts Deno's fetch failures into kinds", async (t) => {
  const url = "error sending request for url (https://127.0.0.1:6443/api)";
  const cases: readonly [string, unknown, string][] = [
    [
      "refused",
      fetchFailed(`${url}: client error (Connect): tcp connect error: Connection refused (os error 111)`),
      "refused",
    ],
    [
      "unknown CA",
      fetchFailed(`${url}: client error (Connect): invalid peer certificate: UnknownIssuer`),
      "tls",
    ],
    [
      "name mismatch",
      fetchFailed(`${url}: client error (Connect): invalid peer certificate: NotValidForName`),
      "tls",
    ],
    ["client certificate required", fetchFailed("received fatal alert: CertificateRequired"), "tls"],
    [
      "TLS spoken to plain HTTP",
      fetchFailed(`${url}: client error (SendRequest): invalid HTTP version parsed`),
      "tls",
    ],
    [
      "DNS",
      fetchFailed(
        `${url}: client error (Connect): dns error: failed to lookup address information: Name or service not known`,
      ),
      "dns",
    ],
    [
      "closed before answer",
      fetchFailed(`${url}: client error (SendRequest): connection closed before message completed`),
      "reset",
    ],
    ["reset", fetchFailed("Connection reset by peer (os error 104)"), "reset"],
    ["body broken", new TypeError("error reading a body from connection"), "reset"],
    ["deadline", new DOMException("no answer within 30000 ms", "TimeoutError"), "timeout"],
    ["Deno ConnectionRefused", new Deno.errors.ConnectionRefused("refused"), "refused"],
    ["Deno TimedOut", new Deno.errors.TimedOut("slow"), "timeout"],
    ["Deno ConnectionReset", new Deno.errors.ConnectionReset("gone"), "reset"],
    ["something else", new Error("weird"), "other"],
    ["a string", "boom", "other"],
  ];
  for (const [name, error, kind] of cases) {
    await t.step(name, () => assert.equal(transportErrorKind(error), kind));
  }
});

Deno.test("transportErrorKind classifies a real refused connection and a real DNS failure", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  const refused = await fetch(`http://127.0.0.1:${port}/`).then(() => undefined, (error) => error);
  assert.equal(transportErrorKind(refused), "refused");
  const dns = await fetch("http://no-such-host.invalid/").then(() => undefined, (error) => error);
  assert.equal(transportErrorKind(dns), "dns");
});

Deno.test("KubeTransportError keeps what fetch hid in its causes, and says what to do about a TLS failure", () => {
  const url = "error sending request for url (https://127.0.0.1:6443/api)";
  const caAsLeaf = new KubeTransportError(
    "GET /api",
    "tls",
    fetchFailed(
      `${url}: client error (Connect): invalid peer certificate: Other(OtherError(CaUsedAsEndEntity))`,
    ),
  );
  assert.match(
    caAsLeaf.message,
    /^GET \/api: tls: fetch failed: .*invalid peer certificate: .*CaUsedAsEndEntity/,
  );
  assert.match(
    caAsLeaf.message,
    /presents a CA certificate as its own, which kubectl accepts and rustls refuses/,
  );
  const unknown = new KubeTransportError(
    "GET /api",
    "tls",
    fetchFailed("invalid peer certificate: UnknownIssuer"),
  );
  assert.match(unknown.message, /did not sign the API server's certificate/);
  const refused = new KubeTransportError(
    "GET /api",
    "refused",
    fetchFailed("Connection refused (os error 111)"),
  );
  assert.equal(refused.message, "GET /api: refused: fetch failed: Connection refused (os error 111)");
  // A cause that repeats its wrapper's words is said once.
  const nested = new Error("outer: inner", { cause: new Error("inner") });
  assert.equal(new KubeTransportError("GET /x", "other", nested).message, "GET /x: other: outer: inner");
});
