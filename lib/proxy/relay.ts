/**
 * Byte relay between a client and a backend connection.
 *
 * Each direction is a `read` → write-all loop, so a direction never reads more than it has
 * written: memory per connection is bounded by one buffer per direction, whatever the peers
 * do. Streams are deliberately not used: a `Deno.Conn` readable that reaches EOF closes the
 * whole socket, which would break half-close (denoland/deno#27510).
 *
 * Buffers: a direction's first wait uses a small buffer from a pool (the first bytes of a new
 * connection nearly always come at once, so reading them whole saves a system call); a read that
 * fills its buffer switches to a large buffer from a shared pool (the peer is streaming); a read
 * that does not fill it gives every pooled buffer back, and the direction then waits with a
 * 64-byte probe of its own. When data comes, a probe that filled is followed at once by a read
 * of the rest into a pooled small buffer, and both leave in one write; if the rest has not come
 * within a few microtask turns (Deno completes a read of waiting bytes at once), the probe's
 * bytes are written alone, so nothing is ever held back. An idle connection therefore holds two
 * 64-byte probes instead of two 1 KiB buffers, at the price of one extra read per burst after
 * the first.
 *
 * Per connection the relay allocates two direction objects and one shared link (which is its
 * own abort listener): no closures per read.
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
 * the client's first bytes can leave with the PROXY header). The relay takes over its buffer, if
 * any, which must be a `small`-byte one (from `smallPool` when there is one: the relay gives it
 * back).
 */
export interface FirstRead {
  /** The buffer the read went into; `undefined` once its bytes have left (it went back to the pool). */
  readonly buffer: Uint8Array | undefined;
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
 * Bytes an idle direction waits with. A read that fills it is followed at once by a read of the
 * rest into a small buffer (see {@linkcode Direction}); a shorter message goes out as it is.
 */
export const PROBE_BYTES = 64;

/**
 * Microtask turns to wait for the read that follows a full probe. Deno polls a read once when it
 * is issued, so when the bytes are already in the kernel it settles within two turns (measured
 * on 2.9.6); if it has not by then, nothing more was waiting, and the probe's bytes are written
 * alone rather than held.
 */
const READY_TURNS = 4;

/** What the two directions of one relay share. Listens for the stop signal itself (no closure). */
class Link {
  closed = false;
  aborted = false;
  /** Directions that read EOF (counted before their shutdown completes). */
  eofDirections = 0;
  readonly client: Deno.Conn;
  readonly backend: Deno.Conn;
  readonly activity: Activity;
  readonly buffers: RelayBuffers;

  constructor(client: Deno.Conn, backend: Deno.Conn, activity: Activity, buffers: RelayBuffers) {
    this.client = client;
    this.backend = backend;
    this.activity = activity;
    this.buffers = buffers;
  }

  closeBoth(): void {
    if (this.closed) return;
    this.closed = true;
    closeQuietly(this.client);
    closeQuietly(this.backend);
  }

  /** The stop signal's abort event. */
  handleEvent(): void {
    this.aborted = true;
    this.closeBoth();
  }
}

/**
 * One direction: read → write everything → read again. Buffers: the first wait uses a small
 * buffer (the first bytes of a new connection nearly always come at once); a read that fills its
 * buffer switches to a large pooled one; a read that does not returns every pooled buffer, and
 * the direction waits with its {@linkcode PROBE_BYTES} probe until data comes again.
 */
class Direction {
  bytes = 0;
  readonly #link: Link;
  readonly #from: Deno.Conn;
  readonly #to: Deno.Conn;
  readonly #series: NumberSeries;
  #own: Uint8Array | undefined;
  #borrowed: Uint8Array | undefined = undefined;
  #probe: Uint8Array | undefined = undefined;
  /** A read already issued into `#own` at `#offset`, to await instead of reading. */
  #pending: Promise<number | null> | undefined;
  #offset = 0;
  /** Outcome of the read that follows a full probe, once it has settled (`null`: EOF or failed). */
  #more: number | null | undefined = undefined;
  /** Records that outcome; made on the first full probe, so a quiet direction never pays for it. */
  #onMore: ((n: unknown) => void) | undefined = undefined;

  constructor(
    link: Link,
    from: Deno.Conn,
    to: Deno.Conn,
    series: NumberSeries,
    first: FirstRead | undefined,
  ) {
    this.#link = link;
    this.#from = from;
    this.#to = to;
    this.#series = series;
    // A first read whose bytes already left with the header hands over no buffer: wait with the probe.
    this.#own = first === undefined ? this.#takeSmall() : first.buffer;
    this.#pending = first?.pending;
    this.bytes = first?.sent ?? 0;
    series.value += this.bytes;
  }

  #takeSmall(): Uint8Array {
    return this.#link.buffers.smallPool?.take() ?? new Uint8Array(this.#link.buffers.small);
  }

  /**
   * Gives back every pooled buffer, except one a read may still land in (a write failed while
   * it was in flight): that one is left to the collector.
   */
  #release(): void {
    if (this.#borrowed !== undefined) this.#link.buffers.pool.give(this.#borrowed);
    if (this.#own !== undefined && this.#pending === undefined) this.#link.buffers.smallPool?.give(this.#own);
    this.#borrowed = undefined;
    this.#own = undefined;
  }

  #end(result: PumpEnd): PumpEnd {
    this.#release();
    return result;
  }

  #fail(error: unknown): PumpEnd {
    if (this.#link.closed) return this.#end({ kind: "stopped", bytes: this.bytes });
    this.#link.closeBoth();
    return this.#end({ kind: "failed", error, bytes: this.bytes });
  }

  async run(): Promise<PumpEnd> {
    const link = this.#link;
    while (true) {
      let buffer: Uint8Array;
      let start = 0;
      let n: number | null;
      try {
        if (this.#pending !== undefined) {
          buffer = this.#own as Uint8Array;
          start = this.#offset;
          const pending = this.#pending;
          this.#pending = undefined;
          n = await pending;
        } else if (this.#borrowed !== undefined || this.#own !== undefined) {
          buffer = this.#borrowed ?? this.#own as Uint8Array;
          n = await this.#from.read(buffer);
        } else if (link.buffers.small <= PROBE_BYTES) {
          // Buffers this small gain nothing from a probe: wait with one of them.
          buffer = this.#own = this.#takeSmall();
          n = await this.#from.read(buffer);
        } else {
          const probe = this.#probe ??= new Uint8Array(PROBE_BYTES);
          buffer = probe;
          n = await this.#from.read(probe);
          if (n === PROBE_BYTES) {
            // More is probably waiting: read it next to the probe's bytes, so they leave in one write.
            const own = this.#own = this.#takeSmall();
            own.set(probe);
            buffer = own;
            this.#more = undefined;
            const more = this.#from.read(own.subarray(PROBE_BYTES));
            this.#onMore ??= (n) => {
              this.#more = typeof n === "number" ? n : null;
            };
            more.then(this.#onMore, this.#onMore);
            for (let turn = 0; turn < READY_TURNS && this.#more === undefined; turn++) await null;
            if (typeof this.#more === "number") {
              n += this.#more;
            } else {
              // Nothing more yet (or EOF, or an error): write the probe's bytes, then await it.
              this.#pending = more;
              this.#offset = PROBE_BYTES;
            }
          }
        }
      } catch (error) {
        return this.#fail(error);
      }
      link.activity.count += 1;
      if (n === null) {
        // When the other direction has already read EOF, both sockets are about to be closed,
        // which tells the peer as much as a shutdown would: skip the extra system call. Count
        // this EOF before awaiting the shutdown, so the other direction skips its own too.
        link.eofDirections += 1;
        if (link.eofDirections === 1) {
          try {
            await this.#to.closeWrite();
          } catch (error) {
            return this.#fail(error);
          }
        }
        return this.#end({ kind: "eof", bytes: this.bytes });
      }
      const stop = start + n;
      let offset = start;
      while (offset < stop) {
        try {
          offset += await this.#to.write(buffer.subarray(offset, stop));
        } catch (error) {
          return this.#fail(error);
        }
        link.activity.count += 1;
      }
      this.#series.value += n;
      this.bytes += n;
      if (this.#pending !== undefined) continue; // a read into `#own` is in flight
      if (stop === buffer.length && buffer !== this.#probe) {
        // The peer is streaming: switch to a large buffer.
        this.#borrowed ??= link.buffers.pool.take();
      } else if (stop < buffer.length) {
        // Caught up: hold nothing pooled while waiting.
        this.#release();
      }
    }
  }
}

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
  const link = new Link(
    client,
    backend,
    options.activity ?? { count: 0 },
    options.buffers ?? DEFAULT_RELAY_BUFFERS,
  );
  options.signal?.addEventListener("abort", link, { once: true });
  if (options.signal?.aborted) link.handleEvent();
  const [up, down] = await Promise.all([
    new Direction(link, client, backend, options.upstream, options.firstRead).run(),
    new Direction(link, backend, client, options.downstream, undefined).run(),
  ]);
  link.closeBoth();
  options.signal?.removeEventListener("abort", link);

  let end: RelayEnd;
  if (link.aborted) end = { kind: "aborted", reason: options.signal?.reason };
  else if (up.kind === "failed") end = { kind: "failed", direction: "upstream", error: up.error };
  else if (down.kind === "failed") end = { kind: "failed", direction: "downstream", error: down.error };
  else end = { kind: "completed" };
  return { end, upstreamBytes: up.bytes, downstreamBytes: down.bytes };
}
