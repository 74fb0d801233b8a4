/**
 * Byte relay between a client and a backend connection, with half-close: EOF on one side shuts
 * down the other's write side; a failure on either side closes both.
 *
 * Each direction is a read → write-all loop, so memory is one buffer per direction. No streams:
 * a `Deno.Conn` readable at EOF closes the whole socket, breaking half-close (denoland/deno#27510).
 * An idle connection holds two 64-byte probes, not two 1 KiB buffers (see `Direction`).
 *
 * Effects: reads and writes both sockets, and closes them.
 *
 * @module
 */

import type { NumberSeries } from "../util/metrics.ts";
import { BufferPool } from "./buffer_pool.ts";

/** Buffer sizes for {@linkcode relay}. */
export interface RelayBuffers {
  /** Each direction's own buffer size, for waiting; `pool` lends large ones while data streams. */
  readonly small: number;
  readonly pool: BufferPool;
  /** Pool of `small`-byte buffers; without one, each direction allocates its own. */
  readonly smallPool?: BufferPool;
}

/**
 * Measured (`deno task bench:proxy`): 1 KiB holds a typical request in one read and keeps idle
 * connections small; 256 KiB keeps bulk transfers at a few system calls per MiB.
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
  /** Bytes relayed client → backend; `downstream` the other way. */
  readonly upstream: NumberSeries;
  readonly downstream: NumberSeries;
  /** Aborting closes both connections at once (shutdown grace expired, idle timeout). */
  readonly signal?: AbortSignal;
  readonly activity?: Activity;
  /** @default DEFAULT_RELAY_BUFFERS */
  readonly buffers?: RelayBuffers | undefined;
  /** The client's first read, begun before the relay while the backend was being dialed. */
  readonly firstRead?: FirstRead | undefined;
}

/**
 * A client read begun at accept, so the first bytes can leave with the PROXY header. The relay
 * takes over its buffer, which must be `small` bytes (from `smallPool` when there is one).
 */
export interface FirstRead {
  /** `undefined` once its bytes have left (the buffer went back to the pool). */
  readonly buffer: Uint8Array | undefined;
  /** The read to await (it may have settled); `undefined` when its bytes left with the header. */
  readonly pending: Promise<number | null> | undefined;
  /** Client bytes already written to the backend; counted in the result and the series. */
  readonly sent: number;
}

/** How a relay ended. */
export type RelayEnd =
  | { readonly kind: "completed" }
  /** A read or write failed (peer reset, broken pipe); both sides were closed. */
  | { readonly kind: "failed"; readonly direction: "upstream" | "downstream"; readonly error: unknown }
  /** The signal aborted; both sides were closed. `reason` is the signal's reason. */
  | { readonly kind: "aborted"; readonly reason: unknown };

/** Result of {@linkcode relay}. */
export interface RelayResult {
  readonly end: RelayEnd;
  readonly upstreamBytes: number;
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

/** Bytes an idle direction waits with; a full probe is followed at once by a read of the rest. */
export const PROBE_BYTES = 64;

/**
 * Microtask turns to wait for the read after a full probe: a read of bytes already in the kernel
 * settles within two (measured on Deno 2.9.6); later, the probe's bytes are written alone.
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
 * One direction. The first wait uses a small buffer (a new connection's first bytes come at
 * once); a full read switches to a large pooled buffer; a short one returns every pooled buffer,
 * and the direction waits with its {@linkcode PROBE_BYTES} probe.
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
    // A first read whose bytes left with the header hands over no buffer: wait with the probe.
    this.#own = first === undefined ? this.#takeSmall() : first.buffer;
    this.#pending = first?.pending;
    this.bytes = first?.sent ?? 0;
    series.value += this.bytes;
  }

  #takeSmall(): Uint8Array {
    return this.#link.buffers.smallPool?.take() ?? new Uint8Array(this.#link.buffers.small);
  }

  /** Gives back every pooled buffer, except one a read in flight may still land in. */
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
            // More is probably waiting: read it next to the probe's bytes, to leave in one write.
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
        // The second EOF skips the shutdown (closing both sockets tells the peer as much); count
        // before awaiting, so the other direction skips its own.
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
        this.#borrowed ??= link.buffers.pool.take();
      } else if (stop < buffer.length) {
        // Caught up: hold nothing pooled while waiting.
        this.#release();
      }
    }
  }
}

/** Relays both ways until both directions end, then closes both. Never rejects. */
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
