import assert from "node:assert/strict";
import { HealthListener, type ServedHttp, type ServeHttp } from "../../lib/daemon/health_listener.ts";
import { FakeClock } from "../support/fake_clock.ts";
import { LogRecorder } from "../support/log_recorder.ts";
import { waitFor } from "../support/wait.ts";

const ROUTES = { readiness: () => ({ ready: true }) as const, metrics: () => "" };

Deno.test("HealthListener binds port 0, reports the real port and serves; a taken port fails naming the address", async () => {
  const log = new LogRecorder();
  const listener = HealthListener.start({ address: { host: "127.0.0.1", port: 0 }, routes: ROUTES, log });
  try {
    const port = Number(listener.address.split(":")[1]);
    assert.ok(port > 0);
    assert.equal(listener.address, `127.0.0.1:${port}`);
    const response = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.equal(await response.text(), "ok\n");
    assert.throws(
      () => HealthListener.start({ address: { host: "127.0.0.1", port }, routes: ROUTES, log }),
      new RegExp(`^Error: listen health 127\\.0\\.0\\.1:${port}: `),
    );
  } finally {
    await listener.stop();
  }
  assert.deepEqual(log.entries, []);
});

/** One server the fake `serve` started: fail it, or see it stopped. */
interface FakeServer extends ServedHttp {
  readonly fail: (error: Error) => void;
}

/**
 * A `serve` that starts fake servers, or throws the next error of `bindErrors` instead; each
 * server's `finished` resolves when its signal aborts and rejects when the test fails it.
 */
function fakeServe() {
  const bindErrors: Error[] = [];
  const servers: FakeServer[] = [];
  const attempts: string[] = [];
  const serve: ServeHttp = ({ hostname, port, signal }) => {
    attempts.push(`${hostname}:${port}`);
    const error = bindErrors.shift();
    if (error !== undefined) throw error;
    const finished = Promise.withResolvers<void>();
    signal.addEventListener("abort", () => finished.resolve(), { once: true });
    const server = {
      addr: { transport: "tcp" as const, hostname, port: port || 4242 },
      finished: finished.promise,
      fail: (failure: Error) => finished.reject(failure),
    };
    servers.push(server);
    return server;
  };
  return { serve, servers, attempts, bindErrors };
}

const emfile = () => new Error("Too many open files (os error 24)");

Deno.test("HealthListener binds a failed listener again on the address it had, pausing 5 ms, doubling up to 1 s", async () => {
  const fake = fakeServe();
  // Pauses return at once, each recorded with how long it was asked to be.
  const clock = new FakeClock({ autoAdvance: true });
  const log = new LogRecorder();
  const listener = HealthListener.start({
    address: { host: undefined, port: 0 },
    routes: ROUTES,
    log,
    clock,
    serve: fake.serve,
  });
  try {
    assert.equal(listener.address, "[::]:4242");
    assert.deepEqual(fake.attempts, [":::0"]);
    // Out of descriptors: the server stops, and the next ten binds fail as well.
    fake.bindErrors.push(...Array.from({ length: 10 }, emfile));
    const failure = emfile();
    fake.servers[0]!.fail(failure);
    await waitFor(
      "the listener to serve again",
      () => log.find("info", "health listener serving again").length === 1,
    );
    assert.deepEqual(clock.sleeps, [5, 10, 20, 40, 80, 160, 320, 640, 1_000, 1_000, 1_000]);
    assert.deepEqual(fake.attempts.slice(1), Array(11).fill(":::4242"), "the bound address, port included");
    assert.deepEqual(log.entries, [
      {
        level: "warn",
        message: "health listener failed; binding it again",
        properties: { address: "[::]:4242", error: failure },
      },
      { level: "info", message: "health listener serving again", properties: { address: "[::]:4242" } },
    ]);
    assert.equal(fake.servers.length, 2);
    assert.equal(listener.address, "[::]:4242");
  } finally {
    await listener.stop();
  }
});

Deno.test("HealthListener.stop() ends the attempts to bind again, and a stopped listener's end is not a failure", async () => {
  const fake = fakeServe();
  const log = new LogRecorder();
  // Time never moves, so the pauses never end on their own: only stop() ends them.
  const clock = new FakeClock();
  const listener = HealthListener.start({
    address: { host: "127.0.0.1", port: 8082 },
    routes: ROUTES,
    log,
    clock,
    serve: fake.serve,
  });
  fake.servers[0]!.fail(emfile());
  await waitFor("the WARN", () => log.find("warn", "health listener failed").length === 1);
  await listener.stop();
  assert.deepEqual(fake.attempts, ["127.0.0.1:8082"], "no bind was tried after stop()");
  assert.deepEqual(log.find("info", ""), []);

  const quiet = new LogRecorder();
  const other = HealthListener.start({
    address: { host: "127.0.0.1", port: 8082 },
    routes: ROUTES,
    log: quiet,
    clock,
    serve: fake.serve,
  });
  await other.stop();
  assert.deepEqual(quiet.entries, []);
});
