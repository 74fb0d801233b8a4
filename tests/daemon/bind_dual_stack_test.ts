import assert from "node:assert/strict";
import { bindDualStack } from "../../lib/daemon/bind_dual_stack.ts";

/** A bind function that records each attempt and fails with `failures[hostname]` when set. */
function recordingBind(failures: Record<string, Error> = {}) {
  const attempts: string[] = [];
  const bind = (hostname: string, port: number) => {
    attempts.push(`${hostname} ${port}`);
    const failure = failures[hostname];
    if (failure !== undefined) throw failure;
    return `bound ${hostname}`;
  };
  return { attempts, bind };
}

Deno.test("bindDualStack() binds an address without a host on :: (dual-stack) first", () => {
  const { attempts, bind } = recordingBind();
  assert.equal(bindDualStack({ name: "http", address: { host: undefined, port: 8080 } }, bind), "bound ::");
  assert.deepEqual(attempts, [":: 8080"]);
});

Deno.test("bindDualStack() falls back to 0.0.0.0 where IPv6 is off", () => {
  const { attempts, bind } = recordingBind({ "::": new Deno.errors.AddrNotAvailable("IPv6 is disabled") });
  assert.equal(
    bindDualStack({ name: "http", address: { host: undefined, port: 8080 } }, bind),
    "bound 0.0.0.0",
  );
  assert.deepEqual(attempts, [":: 8080", "0.0.0.0 8080"]);
});

Deno.test("bindDualStack() does not retry a taken or forbidden port on 0.0.0.0; the error names listener and address", () => {
  for (
    const failure of [new Deno.errors.AddrInUse("Address in use"), new Deno.errors.PermissionDenied("denied")]
  ) {
    const { attempts, bind } = recordingBind({ "::": failure });
    assert.throws(
      () => bindDualStack({ name: "health", address: { host: undefined, port: 81 } }, bind),
      (error: Error) => {
        assert.equal(error.message, `listen health :81: ${failure.message}`);
        assert.equal(error.cause, failure);
        return true;
      },
    );
    assert.deepEqual(attempts, [":: 81"]);
  }
});

Deno.test("bindDualStack() binds a given host only, and brackets an IPv6 host in the error", () => {
  const ok = recordingBind();
  assert.equal(
    bindDualStack({ name: "https", address: { host: "10.0.0.7", port: 8443 } }, ok.bind),
    "bound 10.0.0.7",
  );
  assert.deepEqual(ok.attempts, ["10.0.0.7 8443"]);
  const failing = recordingBind({ "::1": new Error("Cannot assign requested address") });
  assert.throws(
    () => bindDualStack({ name: "https", address: { host: "::1", port: 8443 } }, failing.bind),
    { message: "listen https [::1]:8443: Cannot assign requested address" },
  );
  assert.deepEqual(failing.attempts, ["::1 8443"]);
});

Deno.test("bindDualStack() with Deno.listen: port 0 on every interface binds; the taken port fails naming it", () => {
  const listen = (hostname: string, port: number) => Deno.listen({ hostname, port });
  const first = bindDualStack({ name: "http", address: { host: undefined, port: 0 } }, listen);
  try {
    const port = first.addr.port;
    assert.ok(port > 0);
    assert.ok(["::", "0.0.0.0"].includes(first.addr.hostname), first.addr.hostname);
    assert.throws(
      () => bindDualStack({ name: "http", address: { host: undefined, port } }, listen),
      (error: Error) =>
        error.message.startsWith(`listen http :${port}: `) && error.cause instanceof Deno.errors.AddrInUse,
    );
  } finally {
    first.close();
  }
});
