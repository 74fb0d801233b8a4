import assert from "node:assert/strict";
import { frameMessage, TcpFrameReader } from "../../../lib/dns/wire/tcp_frames.ts";
import { concat } from "../../support/conn_io.ts";
import { prng } from "../../support/random.ts";

Deno.test("TcpFrameReader: cuts a stream into the framed messages, however it is split", () => {
  const random = prng(7);
  for (let round = 0; round < 200; round++) {
    const messages = Array.from(
      { length: 1 + Math.floor(random() * 6) },
      () => Uint8Array.from({ length: Math.floor(random() * 700) }, () => Math.floor(random() * 256)),
    );
    const stream = concat(...messages.map(frameMessage));
    const reader = new TcpFrameReader();
    const out: Uint8Array[] = [];
    for (let offset = 0; offset < stream.length;) {
      const size = 1 + Math.floor(random() * 300);
      out.push(...reader.push(stream.subarray(offset, offset + size)));
      offset += size;
    }
    assert.deepEqual(out, messages);
    assert.equal(reader.buffered, 0);
  }
});

Deno.test("TcpFrameReader: keeps a partial message, including a lone first length byte", () => {
  const reader = new TcpFrameReader();
  assert.deepEqual(reader.push(new Uint8Array([0])), []);
  assert.equal(reader.buffered, 1);
  assert.deepEqual(reader.push(new Uint8Array([3, 1, 2])), []);
  assert.deepEqual(reader.push(new Uint8Array([3, 0, 0])), [new Uint8Array([1, 2, 3]), new Uint8Array(0)]);
  assert.equal(reader.buffered, 0);
});

Deno.test("frameMessage: prefixes the length in network byte order", () => {
  assert.deepEqual(frameMessage(new Uint8Array(258)).subarray(0, 2), new Uint8Array([1, 2]));
});
