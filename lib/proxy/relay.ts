/**
 * Byte relay between a client and a backend connection.
 *
 * Each direction is a `read` → write-all loop, so a direction never reads more than it has
 * written: memory per connection is bounded by one buffer per direction, whatever the peers
 * do. Streams are deliberately not used: a `Deno.Conn` readable that reaches EOF closes the
 * whole socket, which would break half-close (denoland/deno#27510).
 *
 * Buffers: a direction waits for data with a small buffer (an idle connection costs little),
 * taken from a pool of small buffers so a short connection allocates none, and switches to a large buffer from a shared pool as soon as a read fills the small
 * one (the peer is streaming). It returns the large buffer after the first read that does not
 * fill it (the stream caught up), so large buffers are only held while data is moving.
 *
 * Half-close: when one side finishes sending (EOF), the relay shuts down the write side of the
 * other and keeps relaying the opposite direction until it ends too. A failure on either side
 * (reset, broken pipe) closes both connections at once.
 *
 * Effects: reads and writes both sockets, and closes them.
 *
 * @module
 */

import type { NumberSeries } from "../util/metrics.ts";
import { BufferPool } from "./buffer_pool.ts";

/** Buffer sizes for {@linkcode relay}. */
export interface RelayBuffers {
  /** Size of each direction's own buffer, used while waiting for data. */
  readonly small: number;
  /** Pool of large buffers a direction borrows while data streams. */
  readonly pool: BufferPool;
  /**
   * Pool of `small`-byte buffers, so a connection does not allocate (and the collector later
   * free) its two waiting buffers. Without one, each direction allocates its own.
   */
  readonly smallPool?: BufferPool;
}

/**
 * Defaults chosen by measurement (`deno task bench:proxy`): 1 KiB holds a typical request in one
 * read and keeps an idle connection small (each byte here is paid twice per connection); 256 KiB
 * reads keep bulk transfers at a few system calls per MiB.
 */
export const DEFAULT_RELAY_BUFFERS: RelayBuffers = {
  small: 1024,
  pool: new BufferPool(256 * 1024, 64),
  smallPool: new BufferPool(1024, 1024),
};

/** Counts reads and writes, so an idle sweep can tell a quiet connection from a busy one. */
export interface Activity {
  count: number;
}

/** Options for {@linkcode relay}. */
export interface RelayOptions {
  /** Incremented by the bytes relayed client → backend. */
  readonly upstream: NumberSeries;
  /** Incremented by the bytes relayed backend → client. */
  readonly downstream: NumberSeries;
  /** Aborting closes both connections at once (shutdown grace expired, idle timeout). */
  readonly signal?: AbortSignal;
  /** Bumped on every completed read and write. */
  readonly activity?: Activity;
  /** Defaults to {@linkcode DEFAULT_RELAY_BUFFERS}. */
  readonly buffers?: RelayBuffers | undefined;
  /** The client's first read, begun before the relay while the backend was being dialed. */
  readonly firstRead?: FirstRead | undefined;
}

/**
 * A read of the client begun before the relay (the connection handler starts it at accept, so
 * the client's first bytes can leave with the PROXY header). The relay takes over its buffer,
 * which must be a `small`-byte one (from `smallPool` when there is one: the relay gives it back).
 */
export interface FirstRead {
  readonly buffer: Uint8Array;
  /**
   * The read still to be awaited (it may have settled already), or `undefined` when its bytes
   * were already written to the backend (with the header).
   */
  readonly pending: Promise<number | null> | undefined;
  /** Client bytes already written to the backend; counted in the result and the series. */
  readonly sent: number;
}

/** How a relay ended. */
export type RelayEnd =
  /** Both directions reached EOF. */
  | { readonly kind: "completed" }
  /** A read or write failed (peer reset, broken pipe); both sides were closed. */
  | { readonly kind: "failed"; readonly direction: "upstream" | "downstream"; readonly error: unknown }
  /** The signal aborted; both sides were closed. `reason` is the signal's reason. */
  | { readonly kind: "aborted"; readonly reason: unknown };

/** Result of {@linkcode relay}. */
export interface RelayResult {
  readonly end: RelayEnd;
  /** Bytes relayed client → backend. */
  readonly upstreamBytes: number;
  /** Bytes relayed backend → client. */
  readonly downstreamBytes: number;
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed by the runtime after a failure: nothing left to release.
  }
}

type PumpEnd =
  | { readonly kind: "eof"; readonly bytes: number }
  | { readonly kind: "failed"; readonly error: unknown; readonly bytes: number }
  | { readonly kind: "stopped"; readonly bytes: number };

/**
 * Relays bytes both ways until both directions end, then closes both connections. Never
 * rejects; the result says how it ended.
 *
 * @example
 * ```ts
 * import { logger } from "../util/logging.ts";
 * import { createProxyMetrics } from "./proxy_metrics.ts";
 * import { relay } from "./relay.ts";
 *
 * declare const client: Deno.TcpConn; // accepted on a listener
 * declare const backend: Deno.TcpConn; // dialed, the PROXY header already written
 * const metrics = createProxyMetrics({ rss: () => 0, version: "dev" });
 * const result = await relay(client, backend, {
 *   upstream: metrics.bytes.labels({ listener: "http", direction: "upstream" }),
 *   downstream: metrics.bytes.labels({ listener: "http", direction: "downstream" }),
 * });
 * if (result.end.kind === "failed") logger("proxy").debug("relay ended early", { error: result.end.error });
 * ```
 */
export async function relay(
  client: Deno.Conn,
  backend: Deno.Conn,
  options: RelayOptions,
): Promise<RelayResult> {
  const { small, pool, smallPool } = options.buffers ?? DEFAULT_RELAY_BUFFERS;
  const activity = options.activity ?? { count: 0 };
  let closed = false;
  let aborted = false;
  /** Directions that read EOF (counted before their shutdown completes). */
  let eofDirections = 0;
  const closeBoth = () => {
    if (closed) return;
    closed = true;
    closeQuietly(client);
    closeQuietly(backend);
  };
  const onAbort = () => {
    aborted = true;
    closeBoth();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();

  const pump = async (
    from: Deno.Conn,
    to: Deno.Conn,
    series: NumberSeries,
    first: FirstRead | undefined,
  ): Promise<PumpEnd> => {
    const own = first?.buffer ?? smallPool?.take() ?? new Uint8Array(small);
    let pending = first?.pending;
    let borrowed: Uint8Array | undefined;
    let bytes = first?.sent ?? 0;
    series.value += bytes;
    const end = (result: PumpEnd): PumpEnd => {
      if (borrowed !== undefined) pool.give(borrowed);
      borrowed = undefined;
      smallPool?.give(own);
      return result;
    };
    const fail = (error: unknown): PumpEnd => {
      if (closed) return end({ kind: "stopped", bytes });
      closeBoth();
      return end({ kind: "failed", error, bytes });
    };
    while (true) {
      const buffer = borrowed ?? own;
      let n: number | null;
      try {
        if (pending === undefined) {
          n = await from.read(buffer);
        } else {
          n = await pending;
          pending = undefined;
        }
      } catch (error) {
        return fail(error);
      }
      activity.count += 1;
      if (n === null) {
        // When the other direction has already read EOF, both sockets are about to be closed,
        // which tells the peer as much as a shutdown would: skip the extra system call. Count
        // this EOF before awaiting the shutdown, so the other direction skips its own too.
        eofDirections += 1;
        if (eofDirections === 1) {
          try {
            await to.closeWrite();
          } catch (error) {
            return fail(error);
          }
        }
        return end({ kind: "eof", bytes });
      }
      let offset = 0;
      while (offset < n) {
        try {
          offset += await to.write(buffer.subarray(offset, n));
        } catch (error) {
          return fail(error);
        }
        activity.count += 1;
      }
      series.value += n;
      bytes += n;
      if (n === buffer.length) {
        borrowed ??= pool.take();
      } else if (borrowed !== undefined) {
        pool.give(borrowed);
        borrowed = undefined;
      }
    }
  };

  const [up, down] = await Promise.all([
    pump(client, backend, options.upstream, options.firstRead),
    pump(backend, client, options.downstream, undefined),
  ]);
  closeBoth();
  options.signal?.removeEventListener("abort", onAbort);

  let end: RelayEnd;
  if (aborted) end = { kind: "aborted", reason: options.signal?.reason };
  else if (up.kind === "failed") end = { kind: "failed", direction: "upstream", error: up.error };
  else if (down.kind === "failed") end = { kind: "failed", direction: "downstream", error: down.error };
  else end = { kind: "completed" };
  return { end, upstreamBytes: up.bytes, downstreamBytes: down.bytes };
}
