import assert from "node:assert/strict";
import { withShutdownGrace } from "../../lib/controller/with_shutdown_grace.ts";
import { FakeClock } from "../support/fake_clock.ts";

/** A call that waits until `finish` is called or its signal aborts. */
function pendingCall() {
  const gate = Promise.withResolvers<string>();
  let seen: AbortSignal | undefined;
  return {
    call(signal: AbortSignal): Promise<string> {
      seen = signal;
      signal.addEventListener("abort", () => gate.reject(signal.reason), { once: true });
      return gate.promise;
    },
    finish: () => gate.resolve("done"),
    signal: () => seen,
  };
}

Deno.test("withShutdownGrace() lets a call that finishes within the grace period finish untouched", async () => {
  const clock = new FakeClock();
  const shutdown = new AbortController();
  const call = pendingCall();
  let abandoned = 0;
  const running = withShutdownGrace(call.call, {
    signal: shutdown.signal,
    graceMs: 10_000,
    clock,
    onAbandon: () => abandoned += 1,
  });
  shutdown.abort();
  await clock.advance(9_999);
  assert.equal(call.signal()?.aborted, false, "shutdown alone does not cut the call");
  call.finish();
  assert.equal(await running, "done");
  await clock.advance(60_000);
  assert.equal(abandoned, 0);
  assert.deepEqual(clock.pending(), [], "no timer is left behind");
});

Deno.test("withShutdownGrace() aborts a call still going when the grace period ends, saying so first", async () => {
  const clock = new FakeClock();
  const shutdown = new AbortController();
  const call = pendingCall();
  const events: string[] = [];
  const running = withShutdownGrace(call.call, {
    signal: shutdown.signal,
    graceMs: 2_000,
    clock,
    onAbandon: () => events.push(`abandon (aborted: ${call.signal()?.aborted})`),
  });
  const settled = running.then(() => undefined, (error: unknown) => error);
  await clock.advance(60_000);
  assert.equal(call.signal()?.aborted, false, "without shutdown there is no deadline");
  shutdown.abort();
  await clock.advance(2_000);
  const error = await settled;
  assert.ok(error instanceof DOMException && error.name === "AbortError", String(error));
  assert.match(error.message, /shutdown grace period passed/);
  assert.deepEqual(events, ["abandon (aborted: false)"]);
});
