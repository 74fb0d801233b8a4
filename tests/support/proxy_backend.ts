/**
 * A scripted stand-in for the ingress controller: a TCP server on 127.0.0.1 that insists on a
 * PROXY-protocol header (v1 text or v2 binary) at the start of every connection, records the
 * addresses it names, and then hands the connection to a per-test behaviour (echo, sink, never
 * read, reply after EOF, …).
 *
 * Headers are read with the strict reference parser in `proxy_protocol_parser.ts` (independent
 * of `lib/proxy/proxy_protocol.ts`), so a test through this backend also checks the bytes the
 * proxy put on the wire: a missing or malformed header fails the connection and is reported by
 * {@linkcode ProxyBackend.close}.
 *
 * @module
 */

import { type HeaderEndpoint, parseProxyHeader, type ProxyHeader } from "./proxy_protocol_parser.ts";

export {
  type HeaderEndpoint,
  type HeaderParse,
  parseProxyHeader,
  type ProxyHeader,
} from "./proxy_protocol_parser.ts";

/** One accepted connection whose header has been read, as the behaviour receives it. */
export interface BackendConnection {
  /** The raw socket, positioned just past the header (and past `initial`). */
  readonly conn: Deno.TcpConn;
  readonly header: ProxyHeader;
  /** Bytes that arrived in the same reads as the header; they come before anything `conn` reads next. */
  readonly initial: Uint8Array;
  /** The socket's own peer address: the proxy's outgoing side, not the client. */
  readonly remote: HeaderEndpoint;
  /** 0 for the first accepted connection, then 1, 2, … */
  readonly index: number;
  /**
   * Aborts when {@linkcode ProxyBackend.close} begins, so a behaviour that waits on something
   * other than its socket (a test's go-ahead, or nothing at all) can end.
   */
  readonly signal: AbortSignal;
}

/** What the backend does with a connection after its header. May close `conn` itself. */
export type BackendBehaviour = (connection: BackendConnection) => Promise<void>;

/** Options for {@linkcode startProxyBackend}. */
export interface ProxyBackendOptions {
  /** A connection that has not sent a complete header by then fails (default 10 s). */
  readonly headerTimeoutMs?: number;
  /**
   * Accept connections that close without sending a single byte, as the proxy's `/readyz`
   * probes do (they only check that the backend accepts). Any byte still has to be a header.
   */
  readonly allowEmpty?: boolean;
}

/** Thrown by the header reader for a connection that closed before sending anything. */
class EmptyConnection extends Error {}

/** Echoes everything after the header until EOF; a reset or a close from the proxy just ends it. */
export async function echo({ conn, initial }: BackendConnection): Promise<void> {
  try {
    let pending = initial;
    const buffer = new Uint8Array(64 * 1024);
    while (true) {
      let offset = 0;
      while (offset < pending.length) offset += await conn.write(pending.subarray(offset));
      const n = await conn.read(buffer);
      if (n === null) return;
      pending = buffer.subarray(0, n);
    }
  } catch {
    // Closed by the proxy or by the backend's shutdown.
  }
}

/** Reads and drops everything after the header until EOF. */
export async function discard({ conn }: BackendConnection): Promise<void> {
  try {
    const buffer = new Uint8Array(64 * 1024);
    while ((await conn.read(buffer)) !== null) { /* dropped */ }
  } catch {
    // Closed by the proxy or by the backend's shutdown.
  }
}

/** A running scripted backend. */
export interface ProxyBackend extends AsyncDisposable {
  readonly hostname: string;
  readonly port: number;
  /** Headers of every connection so far, in accept order. */
  readonly headers: readonly ProxyHeader[];
  /** Connections accepted whose behaviour has not finished yet. */
  readonly open: number;
  /** Connections whose behaviour finished (normally or not). */
  readonly finished: number;
  /** Header and behaviour errors so far; {@linkcode ProxyBackend.close} throws them. */
  readonly failures: readonly Error[];
  /**
   * Stops accepting, closes connections still open, waits for their behaviours, and throws an
   * AggregateError (once; later calls resolve) if any connection failed before the close began.
   */
  close(): Promise<void>;
}

function closeQuietly(resource: { close(): void }): void {
  try {
    resource.close();
  } catch {
    // The behaviour closed it already.
  }
}

function endpoint(addr: Deno.Addr): HeaderEndpoint {
  return addr.transport === "tcp" ? { hostname: addr.hostname, port: addr.port } : { hostname: "", port: 0 };
}

async function readHeader(
  conn: Deno.TcpConn,
  timeoutMs: number,
): Promise<{ header: ProxyHeader; initial: Uint8Array }> {
  let received = new Uint8Array(0);
  const chunk = new Uint8Array(4096);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    closeQuietly(conn);
  }, timeoutMs);
  try {
    while (true) {
      const parsed = parseProxyHeader(received);
      if (parsed.kind === "complete") {
        return { header: parsed.header, initial: received.slice(parsed.header.length) };
      }
      if (parsed.kind === "invalid") {
        const shown = JSON.stringify(new TextDecoder().decode(received.subarray(0, 120)));
        throw new Error(`malformed PROXY header (${parsed.reason}); first bytes: ${shown}`);
      }
      let n: number | null;
      try {
        n = await conn.read(chunk);
      } catch (error) {
        if (timedOut) throw new Error(`no complete PROXY header within ${timeoutMs} ms`);
        throw new Error(`connection failed before a complete PROXY header`, { cause: error });
      }
      if (n === null) {
        if (received.length === 0) throw new EmptyConnection("connection closed before sending anything");
        throw new Error(`connection ended after ${received.length} bytes, before a complete PROXY header`);
      }
      const next = new Uint8Array(received.length + n);
      next.set(received);
      next.set(chunk.subarray(0, n), received.length);
      received = next;
    }
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts a PROXY-protocol backend on 127.0.0.1 (a free port) that runs `behaviour` for each
 * connection after reading its header. A missing or malformed header, or a behaviour that
 * throws, is recorded as a failure and makes {@linkcode ProxyBackend.close} throw, so a test
 * cannot pass over a broken header unnoticed.
 *
 * @example
 * ```ts
 * await using backend = startProxyBackend(async ({ conn, initial }) => {
 *   await conn.write(initial);
 *   for (const buffer = new Uint8Array(65536);;) {
 *     const n = await conn.read(buffer);
 *     if (n === null) break;
 *     await conn.write(buffer.subarray(0, n));
 *   }
 * });
 * ```
 */
export function startProxyBackend(
  behaviour: BackendBehaviour,
  options: ProxyBackendOptions = {},
): ProxyBackend {
  const headerTimeoutMs = options.headerTimeoutMs ?? 10_000;
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const address = listener.addr;
  const headers: ProxyHeader[] = [];
  const failures: Error[] = [];
  const conns = new Set<Deno.TcpConn>();
  const running = new Set<Promise<void>>();
  let closing = false;
  const stop = new AbortController();
  let accepted = 0;
  let finished = 0;

  const serve = async (conn: Deno.TcpConn, index: number) => {
    try {
      const { header, initial } = await readHeader(conn, headerTimeoutMs);
      headers.push(header);
      await behaviour({
        conn,
        header,
        initial,
        remote: endpoint(conn.remoteAddr),
        index,
        signal: stop.signal,
      });
    } catch (error) {
      if (error instanceof EmptyConnection && options.allowEmpty) return;
      if (!closing) {
        failures.push(
          new Error(
            `backend connection #${index}: ${error instanceof Error ? error.message : String(error)}`,
            {
              cause: error,
            },
          ),
        );
      }
    } finally {
      closeQuietly(conn);
      conns.delete(conn);
      finished += 1;
    }
  };

  const acceptLoop = (async () => {
    while (true) {
      let conn: Deno.TcpConn;
      try {
        conn = await listener.accept();
      } catch (error) {
        if (closing) return;
        failures.push(new Error("backend accept failed", { cause: error }));
        return;
      }
      conns.add(conn);
      const done = serve(conn, accepted++);
      running.add(done);
      done.finally(() => running.delete(done));
    }
  })();

  let shutdown: Promise<Error[]> | undefined;
  let reported = false;
  const close = async () => {
    shutdown ??= (async () => {
      const failedBefore = [...failures];
      closing = true;
      stop.abort();
      closeQuietly(listener);
      await acceptLoop;
      for (const conn of conns) closeQuietly(conn);
      await Promise.all([...running]);
      return failedBefore;
    })();
    const failed = await shutdown;
    if (failed.length === 0 || reported) return;
    reported = true;
    const message = `the PROXY backend saw ${failed.length} failed connection(s): ` +
      failed.map((error) => error.message).join("; ");
    // Also printed: when this is thrown while disposing after another error, the test report
    // shows only "SuppressedError" and would hide it.
    // deno-lint-ignore no-console
    console.error(message);
    throw new AggregateError(failed, message);
  };

  return {
    hostname: address.hostname,
    port: address.port,
    headers,
    get open() {
      return accepted - finished;
    },
    get finished() {
      return finished;
    },
    failures,
    close,
    [Symbol.asyncDispose]: close,
  };
}
