import assert from "node:assert/strict";
import { classifyDialError, DIAL_CAUSES, type DialCause } from "../../lib/proxy/dial_cause.ts";
import { DialTimeoutError } from "../../lib/proxy/dialer.ts";

function withCode(message: string, code: string, name = "Error"): Error {
  const error = new Error(message) as Error & { code: string };
  error.name = name;
  error.code = code;
  return error;
}

const LOOKUP = "failed to lookup address information";

Deno.test("dial errors map to the documented cause tokens", async (t) => {
  const cases: readonly [string, unknown, DialCause][] = [
    [
      "Deno ConnectionRefused",
      new Deno.errors.ConnectionRefused("Connection refused (os error 111)"),
      "connection-refused",
    ],
    ["code ECONNREFUSED", withCode("connect ECONNREFUSED 10.0.0.1:80", "ECONNREFUSED"), "connection-refused"],
    ["glibc no such name", new Error(`${LOOKUP}: Name or service not known`), "dns-nxdomain"],
    [
      "glibc no address for name",
      new Error(`${LOOKUP}: No address associated with hostname`),
      "dns-nxdomain",
    ],
    [
      "BSD no such name",
      new Error(`${LOOKUP}: nodename nor servname provided, or not known`),
      "dns-nxdomain",
    ],
    ["musl no such name", new Error(`${LOOKUP}: Name does not resolve`), "dns-nxdomain"],
    [
      "resolver timed out (glibc)",
      new Error(`${LOOKUP}: Temporary failure in name resolution`),
      "dns-timeout",
    ],
    ["resolver timed out (musl)", new Error(`${LOOKUP}: Try again`), "dns-timeout"],
    [
      "other resolver failure",
      new Error(`${LOOKUP}: Non-recoverable failure in name resolution`),
      "dns-error",
    ],
    ["resolver failure without detail", new Error(LOOKUP), "dns-error"],
    [
      "lookup failure wrapped in another error type",
      new TypeError(`${LOOKUP}: Name or service not known`),
      "dns-nxdomain",
    ],
    ["Deno TimedOut", new Deno.errors.TimedOut("Connection timed out (os error 110)"), "timeout"],
    ["code ETIMEDOUT", withCode("connect ETIMEDOUT", "ETIMEDOUT"), "timeout"],
    ["our DialTimeoutError", new DialTimeoutError(5_000), "timeout"],
    ["code ENETUNREACH", withCode("Network is unreachable (os error 101)", "ENETUNREACH"), "unreachable"],
    ["code EHOSTUNREACH", withCode("No route to host (os error 113)", "EHOSTUNREACH"), "unreachable"],
    ["Deno ConnectionReset", new Deno.errors.ConnectionReset("Connection reset by peer"), "unreachable"],
    ["Deno NetworkUnreachable", new Deno.errors.NetworkUnreachable("Network is unreachable"), "unreachable"],
    ["plain error", new Error("something else"), "unreachable"],
    ["a thrown string", "boom", "unreachable"],
    ["undefined", undefined, "unreachable"],
    ["null", null, "unreachable"],
  ];
  for (const [name, error, cause] of cases) {
    await t.step(name, () => {
      assert.equal(classifyDialError(error), cause);
    });
  }
  // Every documented token is reachable from some error.
  assert.deepEqual(new Set(cases.map(([, , cause]) => cause)), new Set(DIAL_CAUSES));
});

Deno.test("a real refused connection is classified connection-refused", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close(); // nothing listens there now
  const error = await Deno.connect({ hostname: "127.0.0.1", port }).then(
    (conn) => {
      conn.close();
      throw new Error(`port ${port} unexpectedly accepted a connection`);
    },
    (e: unknown) => e,
  );
  assert.equal(classifyDialError(error), "connection-refused");
});

Deno.test("a real lookup of a name that cannot exist is classified dns-nxdomain", async () => {
  // `.invalid` is reserved (RFC 2606): a working resolver answers NXDOMAIN for it.
  const error = await Deno.connect({ hostname: "no-such-host.invalid", port: 80 }).then(
    (conn) => {
      conn.close();
      throw new Error("no-such-host.invalid unexpectedly resolved and accepted a connection");
    },
    (e: unknown) => e,
  );
  const message = error instanceof Error ? error.message : String(error);
  if (/Temporary failure|Try again|server failure/i.test(message)) {
    // deno-lint-ignore no-console
    console.log(
      `SKIP dns-nxdomain check: this machine's resolver answers SERVFAIL, not NXDOMAIN (${message})`,
    );
    assert.equal(classifyDialError(error), "dns-timeout");
    return;
  }
  assert.equal(classifyDialError(error), "dns-nxdomain", `real error was: ${message}`);
});
