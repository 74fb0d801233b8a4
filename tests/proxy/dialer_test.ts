import assert from "node:assert/strict";
import { DialDeadlines, DialTimeoutError, dialWithTimeout } from "../../lib/proxy/dialer.ts";
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
