import assert from "node:assert/strict";
import { UpstreamIdMap } from "../../../lib/dns/upstream/upstream_id_map.ts";
import { prng } from "../../support/random.ts";

Deno.test("UpstreamIdMap: IDs are drawn from the randomness and never in use twice", () => {
  const map = new UpstreamIdMap<number>(prng(3));
  const ids = new Set<number>();
  for (let i = 0; i < 5_000; i++) {
    const id = map.allocate(i);
    assert.ok(id !== undefined && id >= 0 && id <= 0xffff);
    assert.ok(!ids.has(id), `ID ${id} handed out twice`);
    ids.add(id);
  }
  assert.equal(map.size, 5_000);
});

Deno.test("UpstreamIdMap: take returns the value once; the ID is then free again", () => {
  const values = [0.5, 0.5, 0.25];
  const map = new UpstreamIdMap<string>(() => values.shift() ?? 0.25);
  assert.equal(map.allocate("first"), 0x8000);
  assert.equal(map.allocate("second"), 0x4000, "the draw of a taken ID is skipped");
  assert.equal(map.get(0x8000), "first");
  assert.equal(map.take(0x8000), "first");
  assert.equal(map.take(0x8000), undefined);
  assert.equal(map.size, 1);
});

Deno.test("UpstreamIdMap: a randomness that keeps drawing taken IDs gives up instead of looping", () => {
  const map = new UpstreamIdMap<string>(() => 0.1);
  assert.notEqual(map.allocate("a"), undefined);
  assert.equal(map.allocate("b"), undefined);
});

Deno.test("UpstreamIdMap: drain empties it and returns what waited", () => {
  const map = new UpstreamIdMap<string>(prng(1));
  map.allocate("a");
  map.allocate("b");
  assert.deepEqual(map.drain().sort(), ["a", "b"]);
  assert.equal(map.size, 0);
});
