/**
 * Socket helpers for tests: whole writes, reads to EOF or to an exact count, random payloads
 * and their hashes.
 *
 * @module
 */

import { createHash, randomFillSync } from "node:crypto";

/** Closes a socket or listener, ignoring "already closed". */
export function closeQuietly(resource: { close(): void }): void {
  try {
    resource.close();
  } catch {
    // Closed already.
  }
}

/** Writes every byte, looping over short writes. */
export async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await conn.write(bytes.subarray(offset));
}

/** Reads until EOF, feeding every chunk to `sink`; returns the byte count. */
export async function readToEnd(
  conn: Deno.Conn,
  sink: (chunk: Uint8Array) => void,
  size = 256 * 1024,
): Promise<number> {
  const buffer = new Uint8Array(size);
  let total = 0;
  while (true) {
    const n = await conn.read(buffer);
    if (n === null) return total;
    sink(buffer.subarray(0, n));
    total += n;
  }
}

/** Joins byte arrays. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Reads until EOF and returns everything. */
export async function readAll(conn: Deno.Conn): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  await readToEnd(conn, (chunk) => chunks.push(chunk.slice()), 64 * 1024);
  return concat(...chunks);
}

/** Reads exactly `count` bytes; fails if the connection ends first. */
export async function readExactly(conn: Deno.Conn, count: number): Promise<Uint8Array> {
  const out = new Uint8Array(count);
  let offset = 0;
  while (offset < count) {
    const n = await conn.read(out.subarray(offset));
    if (n === null) throw new Error(`connection ended after ${offset} of ${count} bytes`);
    offset += n;
  }
  return out;
}

/** True when a read reports the connection closed (EOF or an error) rather than data. */
export async function readsClosed(conn: Deno.Conn): Promise<boolean> {
  try {
    return (await conn.read(new Uint8Array(16))) === null;
  } catch {
    return true;
  }
}

/** `count` cryptographically random bytes. */
export function randomBytes(count: number): Uint8Array {
  const bytes = new Uint8Array(count);
  for (let offset = 0; offset < count; offset += 65536) {
    randomFillSync(bytes.subarray(offset, offset + 65536));
  }
  return bytes;
}

/** Hex SHA-256 of some bytes. */
export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Two connected TCP sockets on 127.0.0.1: `[connecting side, accepted side]`. */
export async function socketPair(): Promise<[Deno.TcpConn, Deno.TcpConn]> {
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const [connecting, accepted] = await Promise.all([
    Deno.connect({ hostname: "127.0.0.1", port: listener.addr.port }),
    listener.accept(),
  ]);
  return [connecting, accepted];
}

/** `conn`, with a copy of every `write` call's bytes (one entry per call: one `send`) added to `writes`. */
export function recordingWrites(conn: Deno.TcpConn, writes: Uint8Array[]): Deno.TcpConn {
  return new Proxy(conn, {
    get(target, key) {
      if (key === "write") {
        return (bytes: Uint8Array) => {
          writes.push(bytes.slice());
          return target.write(bytes);
        };
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
