/**
 * The revert guard's rules on their own, in minutes of virtual time: what counts as a fight,
 * how the hold-off grows and where it stops, and when a fight is over.
 */

import assert from "node:assert/strict";
import { RevertGuard } from "../../../../lib/controller/modes/coredns/revert_guard.ts";

const MINUTE = 60_000;

Deno.test("three reverts within 30 minutes start a fight; three spread wider do not (T-2.2)", () => {
  const spread = new RevertGuard();
  assert.equal(spread.observeRevert(0).kind, "counted");
  assert.equal(spread.observeRevert(16 * MINUTE).kind, "counted");
  assert.deepEqual(
    spread.observeRevert(31 * MINUTE),
    { kind: "counted", reverts: 2 },
    "the first has expired",
  );
  assert.deepEqual(spread.writeGate(31 * MINUTE, 31 * MINUTE), { allowed: true });

  const close = new RevertGuard();
  close.observeRevert(0);
  close.observeRevert(MINUTE);
  assert.deepEqual(close.observeRevert(2 * MINUTE), { kind: "fight-started", reverts: 3, holdOffMs: 30_000 });
});

Deno.test("the hold-off doubles per revert and stops at 30 minutes (T-2.2)", () => {
  const guard = new RevertGuard();
  for (let i = 0; i < 3; i++) guard.observeRevert(i);
  const holdOffs: number[] = [];
  for (let i = 0; i < 8; i++) {
    const verdict = guard.observeRevert(10 + i);
    assert.equal(verdict.kind, "fight-continues");
    if (verdict.kind === "fight-continues") holdOffs.push(verdict.holdOffMs / 1000);
  }
  assert.deepEqual(holdOffs, [60, 120, 240, 480, 960, 1800, 1800, 1800]);
});

Deno.test("the gate counts from our last write, and a quiet half hour ends the fight (T-2.2)", () => {
  const guard = new RevertGuard();
  for (let i = 0; i < 3; i++) guard.observeRevert(i * 1000);
  const lastWrite = 2_000;
  assert.deepEqual(guard.writeGate(10_000, lastWrite), { allowed: false, waitMs: 22_000, reverts: 3 });
  assert.deepEqual(guard.writeGate(32_000, lastWrite), { allowed: true });
  assert.equal(guard.state(2_000 + 30 * MINUTE - 1).kind, "fighting");
  assert.deepEqual(guard.state(2_000 + 30 * MINUTE), { kind: "calm", reverts: [] });
  assert.equal(guard.observeRevert(31 * MINUTE).kind, "counted", "a new episode starts from zero");
});
