import assert from "node:assert/strict";
import { BufferPool } from "../../lib/proxy/buffer_pool.ts";

Deno.test("BufferPool reuses returned buffers and keeps at most maxFree spares", () => {
  const pool = new BufferPool(16, 2);
  const a = pool.take();
  const b = pool.take();
  const c = pool.take();
  assert.equal(a.length, 16);
  assert.notEqual(a, b);
  pool.give(a);
  pool.give(b);
  pool.give(c);
  assert.equal(pool.spare, 2, "the third spare is left to the garbage collector");
  const again = pool.take();
  assert.ok(again === a || again === b, "a returned buffer is handed out again");
  pool.give(new Uint8Array(8));
  assert.equal(pool.spare, 1, "a buffer of another size is not taken in");
});

Deno.test("BufferPool refuses a size that is not a positive integer", () => {
  assert.throws(() => new BufferPool(0, 1), RangeError);
  assert.throws(() => new BufferPool(1.5, 1), RangeError);
});
