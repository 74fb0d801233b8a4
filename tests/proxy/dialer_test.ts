import assert from "node:assert/strict";
import { classifyDialError } from "../../lib/proxy/dial_cause.ts";
import {
  cachingDialer,
  DialDeadlines,
  type Dialer,
  DialTimeoutError,
  dialWithTimeout,
} from "../../lib/proxy/dialer.ts";
import { AddressCache } from "../../lib/util/address_cache.ts";
import { FakeClock } from "../support/fake_clock.ts";

Deno.test("a dial through shared deadlines that never connects fails with the timeout after it", async () => {
  const clock = new FakeClock({ start: 0 });
  const deadlines = new DialDeadlines(clock, 1_000);
  const stop = new AbortController();
  const ticking = deadlines.run(stop.signal);
  let told: AbortSignal | undefined;
  const dialing = dialWithTimeout(({ signal }) => {
    told = signal;
    return new Promise((_resolve, reject) =>
      signal.addEventListener("abort", () => reject(new Error("gave up")))
    );
  }, { host: "backend.example", port: 80, timeoutMs: 1_000, deadlines });
  const outcome = dialing.then(() => "connected", (error: unknown) => error);
  await clock.advance(999);
  assert.equal(told?.aborted, false, "not before the timeout");
  await clock.advance(100);
  const error = await outcome;
  assert.ok(error instanceof DialTimeoutError, String(error));
  assert.equal(error.message, "dial timed out after 1s");
  assert.equal(deadlines.size, 0);
  stop.abort();
  await ticking;
});

Deno.test("a dial through shared deadlines that connects in time leaves no deadline behind", async () => {
  const clock = new FakeClock({ start: 0 });
  const deadlines = new DialDeadlines(clock, 1_000);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const conn = await dialWithTimeout(
      ({ host, port, signal }) => Deno.connect({ hostname: host, port, signal }),
      { host: "127.0.0.1", port: listener.addr.port, timeoutMs: 1_000, deadlines },
    );
    const accepted = await listener.accept();
    assert.equal(deadlines.size, 0);
    conn.close();
    accepted.close();
  } finally {
    listener.close();
  }
});

/** A dialer standing in for the system one: `backend.test` resolves to 127.0.0.1; requests are recorded. */
function namedBackend(port: () => number, hosts: string[], resolves: () => boolean): Dialer {
  return (request) => {
    hosts.push(request.host);
    if (request.host === "backend.test" && !resolves()) {
      return Promise.reject(new Error("failed to lookup address information: Name or service not known"));
    }
    const host = request.host === "backend.test" ? "127.0.0.1" : request.host;
    return Deno.connect({ hostname: host, port: port(), signal: request.signal });
  };
}

Deno.test("cachingDialer: a name is resolved once per TTL; dials in between go to the address it reached", async () => {
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const clock = new FakeClock({ start: 0 });
  const hosts: string[] = [];
  const dial = cachingDialer(
    namedBackend(() => listener.addr.port, hosts, () => true),
    new AddressCache(clock, 5_000),
  );
  const signal = new AbortController().signal;
  for (const at of [0, 1_000, 4_999, 5_000, 6_000]) {
    clock.advanceSync(at - clock.now());
    const [conn, accepted] = await Promise.all([
      dial({ host: "backend.test", port: 0, signal }),
      listener.accept(),
    ]);
    conn.close();
    accepted.close();
  }
  assert.deepEqual(hosts, ["backend.test", "127.0.0.1", "127.0.0.1", "backend.test", "127.0.0.1"]);
});

Deno.test("cachingDialer: when the remembered address refuses, the same dial resolves the name again and connects", async () => {
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const hosts: string[] = [];
  let addressRefuses = false;
  const cache = new AddressCache(new FakeClock(), 5_000);
  const dial = cachingDialer((request) => {
    hosts.push(request.host);
    if (request.host === "127.0.0.1" && addressRefuses) {
      return Promise.reject(new Deno.errors.ConnectionRefused("Connection refused (os error 111)"));
    }
    return Deno.connect({ hostname: "127.0.0.1", port: listener.addr.port, signal: request.signal });
  }, cache);
  const signal = new AbortController().signal;
  for (const refuses of [false, true]) {
    addressRefuses = refuses;
    const [conn, accepted] = await Promise.all([
      dial({ host: "backend.test", port: 0, signal }),
      listener.accept(),
    ]);
    conn.close();
    accepted.close();
  }
  assert.deepEqual(
    hosts,
    ["backend.test", "127.0.0.1", "backend.test"],
    "the address refused, then the name",
  );
  assert.equal(cache.lookup("backend.test"), "127.0.0.1", "what the name reached is remembered again");
});

Deno.test("cachingDialer: a name that stopped resolving fails with the resolver's error, classified as DNS", async () => {
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const clock = new FakeClock({ start: 0 });
  let resolves = true;
  let port = listener.addr.port;
  const hosts: string[] = [];
  const dial = cachingDialer(namedBackend(() => port, hosts, () => resolves), new AddressCache(clock, 5_000));
  const signal = new AbortController().signal;
  const [conn, accepted] = await Promise.all([
    dial({ host: "backend.test", port: 0, signal }),
    listener.accept(),
  ]);
  conn.close();
  accepted.close();
  resolves = false;
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  port = closed.addr.port;
  closed.close();
  const error = await dial({ host: "backend.test", port: 0, signal }).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.equal(classifyDialError(error), "dns-nxdomain");
  assert.deepEqual(hosts, ["backend.test", "127.0.0.1", "backend.test"]);
});

Deno.test("cachingDialer: IP literals are dialed as they are and nothing is remembered", async () => {
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const hosts: string[] = [];
  const cache = new AddressCache(new FakeClock(), 5_000);
  const dial = cachingDialer(namedBackend(() => listener.addr.port, hosts, () => true), cache);
  const [conn, accepted] = await Promise.all([
    dial({ host: "127.0.0.1", port: 0, signal: new AbortController().signal }),
    listener.accept(),
  ]);
  conn.close();
  accepted.close();
  assert.equal(cache.lookup("127.0.0.1"), undefined);
  assert.deepEqual(hosts, ["127.0.0.1"]);
});

Deno.test("cachingDialer: a dial to the remembered address ended by its deadline is not retried", async () => {
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const hosts: string[] = [];
  const cache = new AddressCache(new FakeClock(), 5_000);
  const connect = namedBackend(() => listener.addr.port, hosts, () => true);
  const stop = new AbortController();
  const dial = cachingDialer((request) => {
    if (request.host !== "127.0.0.1") return connect(request);
    hosts.push(request.host);
    stop.abort(new Error("deadline"));
    return Promise.reject(new Error("aborted"));
  }, cache);
  const [conn, accepted] = await Promise.all([
    dial({ host: "backend.test", port: 0, signal: new AbortController().signal }),
    listener.accept(),
  ]);
  conn.close();
  accepted.close();
  const error = await dial({ host: "backend.test", port: 0, signal: stop.signal }).then(
    () => undefined,
    (e) => e,
  );
  assert.ok(error instanceof Error && error.message === "aborted", String(error));
  assert.deepEqual(hosts, ["backend.test", "127.0.0.1"], "no second dial of the name");
  assert.equal(cache.lookup("backend.test"), undefined, "the address is forgotten");
});
