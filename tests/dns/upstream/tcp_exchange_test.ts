import assert from "node:assert/strict";
import { tcpExchange } from "../../../lib/dns/upstream/tcp_exchange.ts";
import { systemClock } from "../../../lib/util/clock.ts";
import { frameMessage } from "../../../lib/dns/wire/tcp_frames.ts";
import { answerWith, encodeQuery } from "../../support/dns_tools.ts";
import { FakeClock } from "../../support/fake_clock.ts";

/** A TCP server for one connection that runs `serve` on it, then closes it. */
function oneConnectionServer(serve: (conn: Deno.TcpConn) => Promise<void>) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const done = (async () => {
    const conn = await listener.accept();
    try {
      await serve(conn);
    } finally {
      try {
        conn.close();
      } catch {
        // Closed by the client.
      }
      listener.close();
    }
  })();
  return { endpoint: { host: "127.0.0.1", port: listener.addr.port }, done };
}

async function readQuery(conn: Deno.TcpConn): Promise<Uint8Array> {
  const buffer = new Uint8Array(4096);
  let length = 0;
  while (length < 2 || length < 2 + ((buffer[0]! << 8) | buffer[1]!)) {
    const read = await conn.read(buffer.subarray(length));
    if (read === null) throw new Error("closed");
    length += read;
  }
  return buffer.slice(2, length);
}

Deno.test("tcpExchange: sends the query framed and returns the reply, even split in small writes", async () => {
  const server = oneConnectionServer(async (conn) => {
    const framed = frameMessage(answerWith(await readQuery(conn), ["192.0.2.9"]));
    for (const byte of framed) await conn.write(new Uint8Array([byte]));
  });
  const result = await tcpExchange(server.endpoint, encodeQuery("a.test", { id: 99 }), {
    clock: systemClock,
    timeoutMs: 5_000,
  });
  await server.done;
  assert.equal(result.kind, "reply");
  if (result.kind === "reply") {
    assert.deepEqual(result.bytes, answerWith(encodeQuery("a.test", { id: 99 }), ["192.0.2.9"]));
  }
});

Deno.test("tcpExchange: a server that closes without a reply, or refuses the connection, fails it", async () => {
  const server = oneConnectionServer(async (conn) => void await readQuery(conn));
  const closed = await tcpExchange(server.endpoint, encodeQuery("a.test"), {
    clock: systemClock,
    timeoutMs: 5_000,
  });
  await server.done;
  assert.deepEqual(closed, { kind: "failed", message: "connection closed before a reply" });
  const refused = await tcpExchange(server.endpoint, encodeQuery("a.test"), {
    clock: systemClock,
    timeoutMs: 5_000,
  });
  assert.equal(refused.kind, "failed");
});

Deno.test("tcpExchange: a server that never answers times out on the clock", async () => {
  const clock = new FakeClock();
  let received!: () => void;
  const gotQuery = new Promise<void>((resolve) => received = resolve);
  const server = oneConnectionServer(async (conn) => {
    await readQuery(conn);
    received();
    // Hold the connection until the client gives up and closes it.
    await conn.read(new Uint8Array(1)).catch(() => null);
  });
  const pending = tcpExchange(server.endpoint, encodeQuery("a.test"), { clock, timeoutMs: 3_000 });
  await gotQuery;
  await clock.advance(3_000);
  assert.deepEqual(await pending, { kind: "timeout" });
  await server.done;
});
