import assert from "node:assert/strict";
import { LineSplitter } from "../../lib/kube/line_splitter.ts";
import { prng } from "../support/random.ts";

const encoder = new TextEncoder();

/** Runs `bytes` through a splitter cut at `cuts`; returns the lines and the remainder. */
function split(bytes: Uint8Array, cuts: readonly number[]): { lines: string[]; rest: string } {
  const splitter = new LineSplitter();
  const lines: string[] = [];
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    lines.push(...splitter.push(bytes.subarray(start, cut)));
    start = cut;
  }
  return { lines, rest: splitter.remainder() };
}

function event(i: number, random: () => number): string {
  // Multi-byte characters (2, 3 and 4 bytes in UTF-8) so cuts fall inside characters too.
  const note = ["plain", "größe", "東京", "🦕 dino", "x".repeat(Math.floor(random() * 3000))][i % 5];
  return JSON.stringify({
    type: "MODIFIED",
    object: { metadata: { name: `obj-${i}`, resourceVersion: `${i}` }, note },
  });
}

Deno.test("LineSplitter returns the same lines however the stream is cut into chunks (500 seeds)", () => {
  for (let seed = 1; seed <= 500; seed++) {
    const random = prng(seed);
    const count = 1 + Math.floor(random() * 20);
    const lines = Array.from({ length: count }, (_, i) => event(i, random));
    const bytes = encoder.encode(lines.map((line) => `${line}\n`).join(""));
    const cuts = new Set<number>();
    const cutCount = Math.floor(random() * 40);
    for (let i = 0; i < cutCount; i++) cuts.add(Math.floor(random() * bytes.length));
    // Sometimes every byte is its own chunk.
    if (seed % 50 === 0) { for (let i = 1; i < bytes.length; i += 1) cuts.add(i); }
    const result = split(bytes, [...cuts].sort((a, b) => a - b));
    assert.deepEqual(result.lines, lines, `seed ${seed}`);
    assert.equal(result.rest, "", `seed ${seed}`);
  }
});

Deno.test("LineSplitter never returns a line whose newline has not arrived (500 seeds)", () => {
  for (let seed = 1; seed <= 500; seed++) {
    const random = prng(seed);
    const lines = Array.from({ length: 1 + Math.floor(random() * 5) }, (_, i) => event(i, random));
    const complete = lines.map((line) => `${line}\n`).join("");
    const partial = lines[0]!.slice(0, Math.floor(random() * lines[0]!.length));
    const bytes = encoder.encode(complete + partial);
    const cut = Math.floor(random() * bytes.length);
    const result = split(bytes, [cut]);
    assert.deepEqual(result.lines, lines, `seed ${seed}`);
    assert.equal(result.rest, partial, `seed ${seed}`);
  }
});

Deno.test("LineSplitter returns several lines from one chunk and skips blank and CRLF endings", () => {
  const splitter = new LineSplitter();
  assert.deepEqual(splitter.push(encoder.encode('{"a":1}\n\n{"b":2}\r\n   \n{"c"')), ['{"a":1}', '{"b":2}']);
  assert.deepEqual(splitter.push(encoder.encode(":3}")), []);
  assert.deepEqual(splitter.push(encoder.encode("\n")), ['{"c":3}']);
  assert.equal(splitter.remainder(), "");
});

Deno.test("LineSplitter joins a 4-byte character split across three chunks", () => {
  const bytes = encoder.encode("🦕\n");
  const splitter = new LineSplitter();
  assert.deepEqual(splitter.push(bytes.subarray(0, 1)), []);
  assert.deepEqual(splitter.push(bytes.subarray(1, 3)), []);
  assert.deepEqual(splitter.push(bytes.subarray(3)), ["🦕"]);
});

Deno.test("LineSplitter handles one long line arriving in thousands of chunks", () => {
  const line = JSON.stringify({ data: "y".repeat(2_000_000) });
  const bytes = encoder.encode(`${line}\n`);
  const cuts = Array.from({ length: 4000 }, (_, i) => (i + 1) * 500);
  const started = performance.now();
  const result = split(bytes, cuts);
  assert.equal(result.lines.length, 1);
  assert.equal(result.lines[0], line);
  // A hang guard only: quadratic joining of 4000 chunks of a 2 MB line would take far longer.
  assert.ok(performance.now() - started < 5_000);
});
