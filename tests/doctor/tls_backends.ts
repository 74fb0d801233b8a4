/**
 * In-process ingress stand-ins for the doctor's route checks: each insists on a PROXY header (v1
 * or v2, read by the strict reference parser of `tests/support/proxy_backend.ts`) on a plain HTTP
 * port, which answers `200 <name>`, and on a TLS port, which presents its own certificate. The TLS
 * port is a PROXY-aware front relaying to a `Deno.listenTls` server on another loopback port, since
 * Deno cannot start TLS on an accepted connection.
 *
 * Effects: listens on 127.0.0.1, reads the certificate files.
 *
 * @module
 */

import { closeQuietly, writeAll } from "../support/conn_io.ts";
import type { CertificateFiles } from "../support/tls_certificate.ts";
import { type BackendConnection, type ProxyBackend, startProxyBackend } from "../support/proxy_backend.ts";

/** A running stand-in. */
export interface TlsBackend extends AsyncDisposable {
  readonly name: string;
  /** Plain HTTP after a PROXY header. */
  readonly http: ProxyBackend;
  /** TLS after a PROXY header. */
  readonly https: ProxyBackend;
}

/** Copies `from` to `to` until EOF or an error, then half-closes `to`. */
async function pump(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  const buffer = new Uint8Array(16 * 1024);
  try {
    while (true) {
      const n = await from.read(buffer);
      if (n === null) break;
      await writeAll(to, buffer.subarray(0, n));
    }
  } catch {
    // Either side went away.
  } finally {
    await to.closeWrite().catch(() => {});
  }
}

/** Starts a stand-in named `name` presenting `certificate` on its TLS port. */
export async function startTlsBackend(name: string, certificate: CertificateFiles): Promise<TlsBackend> {
  const [cert, key] = await Promise.all([
    Deno.readTextFile(certificate.certPath),
    Deno.readTextFile(certificate.keyPath),
  ]);
  const tlsListener = Deno.listenTls({ hostname: "127.0.0.1", port: 0, cert, key });
  const held = new Set<Deno.Conn>();
  const serving = new Set<Promise<void>>();
  const accepting = (async () => {
    for await (const conn of tlsListener) {
      held.add(conn);
      const done = (async () => {
        try {
          await conn.handshake();
          const buffer = new Uint8Array(4096);
          while ((await conn.read(buffer)) !== null) { /* until the doctor hangs up */ }
        } catch {
          // The doctor hangs up once it has the certificate.
        } finally {
          closeQuietly(conn);
          held.delete(conn);
        }
      })();
      serving.add(done);
      done.finally(() => serving.delete(done));
    }
  })().catch(() => {});
  const relay = async ({ conn, initial }: BackendConnection) => {
    const inner = await Deno.connect({ hostname: "127.0.0.1", port: tlsListener.addr.port });
    held.add(inner);
    try {
      await writeAll(inner, initial);
      await Promise.all([pump(conn, inner), pump(inner, conn)]);
    } finally {
      closeQuietly(inner);
      held.delete(inner);
    }
  };
  const answer = async ({ conn, initial }: BackendConnection) => {
    // The whole request head first: closing with unread bytes would reset the answer away.
    let head = new TextDecoder().decode(initial);
    const buffer = new Uint8Array(4096);
    while (!head.includes("\r\n\r\n")) {
      const n = await conn.read(buffer);
      if (n === null) return;
      head += new TextDecoder().decode(buffer.subarray(0, n));
    }
    const body = `${name}\n`;
    await writeAll(
      conn,
      new TextEncoder().encode(
        `HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
      ),
    );
  };
  const http = startProxyBackend(answer, { allowEmpty: true });
  const https = startProxyBackend(relay, { allowEmpty: true });
  return {
    name,
    http,
    https,
    async [Symbol.asyncDispose]() {
      closeQuietly(tlsListener);
      for (const conn of held) closeQuietly(conn);
      const closed = await Promise.allSettled([http.close(), https.close()]);
      await accepting;
      for (const conn of held) closeQuietly(conn);
      await Promise.all([...serving]);
      for (const outcome of closed) if (outcome.status === "rejected") throw outcome.reason;
    },
  };
}
