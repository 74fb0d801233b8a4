/**
 * The demo's ingress controller: a tiny HTTP server on 127.0.0.1 that behaves like
 * ingress-nginx with `use-proxy-protocol: true`. A connection must start with a PROXY header;
 * the answer then names the client address the header carried. Anything else gets 400, which is
 * what a pod sees when kube-proxy short-circuits the load balancer (the hairpin problem). A named
 * stand-in (the routing part has one per ingress controller) starts its answers with its name.
 *
 * Also the demo's HTTP client ({@linkcode call}), so the demo needs nothing but Deno.
 *
 * @module
 */

import { parseProxyHeader } from "../support/proxy_backend.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A running stand-in. */
export interface IngressStandIn {
  readonly port: number;
  /** Stops accepting and waits for the connections being answered. */
  stop(): Promise<void>;
}

/** What one demo request got back. */
export interface CallResult {
  /** The status line, e.g. `HTTP/1.1 200 OK`. */
  readonly status: string;
  readonly body: string;
  /** The caller's own `address:port`, to compare with what the ingress saw. */
  readonly me: string;
}

async function writeAll(conn: Deno.Conn, text: string): Promise<void> {
  const bytes = encoder.encode(text);
  let offset = 0;
  while (offset < bytes.length) offset += await conn.write(bytes.subarray(offset));
}

/** Reads until EOF, or until 64 KiB, which no demo answer reaches. */
async function readAll(conn: Deno.Conn): Promise<string> {
  const chunks: string[] = [];
  const buffer = new Uint8Array(16 * 1024);
  let total = 0;
  while (total < 64 * 1024) {
    const n = await conn.read(buffer).catch(() => null);
    if (n === null) break;
    chunks.push(decoder.decode(buffer.subarray(0, n), { stream: true }));
    total += n;
  }
  chunks.push(decoder.decode());
  return chunks.join("");
}

function response(status: string, body: string): string {
  const length = encoder.encode(body).length;
  return `HTTP/1.1 ${status}\r\ncontent-type: text/plain\r\ncontent-length: ${length}\r\n` +
    `connection: close\r\n\r\n${body}`;
}

/** Answers one connection: 200 naming the PROXY header's source, or 400 without a header. */
async function answer(conn: Deno.TcpConn, name: string | undefined): Promise<void> {
  const from = name === undefined ? "" : `${name}: `;
  try {
    let received = new Uint8Array(0);
    const chunk = new Uint8Array(4096);
    while (true) {
      const parsed = parseProxyHeader(received);
      if (parsed.kind === "complete") {
        const source = parsed.header.source;
        const who = source ? `${source.hostname}:${source.port}` : "unknown";
        await writeAll(
          conn,
          response("200 OK", `${from}hello ${who}: the PROXY v${parsed.header.version} header named you\n`),
        );
        return;
      }
      if (parsed.kind === "invalid") {
        await writeAll(
          conn,
          response("400 Bad Request", `${from}rejected: the connection did not start with a PROXY header\n`),
        );
        return;
      }
      const n = await conn.read(chunk);
      if (n === null) return;
      const next = new Uint8Array(received.length + n);
      next.set(received);
      next.set(chunk.subarray(0, n), received.length);
      received = next;
    }
  } catch {
    // The caller went away (the proxy's readiness probe connects and closes); nothing to say.
  } finally {
    try {
      conn.close();
    } catch { /* already closed */ }
  }
}

/** Starts the stand-in on 127.0.0.1 and a free port; `name` starts its answers. */
export function startIngressStandIn(options: { readonly name?: string } = {}): IngressStandIn {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Promise<void>>();
  const accepting = (async () => {
    while (true) {
      const conn = await listener.accept().catch(() => undefined);
      if (conn === undefined) return;
      const done = answer(conn, options.name);
      open.add(done);
      done.finally(() => open.delete(done));
    }
  })();
  return {
    port: listener.addr.port,
    async stop() {
      listener.close();
      await accepting;
      await Promise.all([...open]);
    },
  };
}

/** Sends `GET /` for `host` to 127.0.0.1:`port` and returns what came back. */
export async function call(port: number, host: string): Promise<CallResult> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const me = `${conn.localAddr.hostname}:${conn.localAddr.port}`;
  try {
    await writeAll(conn, `GET / HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`);
    const text = await readAll(conn);
    const split = text.indexOf("\r\n\r\n");
    const head = split < 0 ? text : text.slice(0, split);
    const body = split < 0 ? "" : text.slice(split + 4);
    return { status: head.split("\r\n")[0] ?? "", body: body.trim(), me };
  } finally {
    conn.close();
  }
}
