/**
 * Reads a new connection's first bytes until they name a hostname (or cannot), within a byte cap
 * and a deadline, before the proxy dials: the backend depends on the name.
 *
 * Decisions a reader could not guess:
 * - The deadline closes the client whatever it sent by then: a silent client and one that stalls
 *   inside its hello or head are alike (a sound hello or head arrives within a round trip).
 * - A client that ends its side before the verdict goes to the default target with what it sent
 *   (`closed`), unless it sent nothing: then there is nothing to relay and it is closed.
 * - The buffer is a pooled 1 KiB one (measured: allocating 1 KiB costs about as much as parsing
 *   the head), grown only as the hello or head asks, to the cap at most; the caller gives it back.
 * - Deadlines share one timing wheel per server ({@linkcode ReadDeadlines}), not a timer each, and
 *   a deadline is the read itself (no AbortController per connection).
 *
 * Effects: reads the client socket, and closes it at the deadline.
 *
 * @module
 */

import type { Clock } from "../../util/clock.ts";
import { DeadlineTimer } from "../../util/deadline_timer.ts";
import type { BufferPool } from "../buffer_pool.ts";
import type { ListenerName } from "../proxy_metrics.ts";
import { type NameOutcome, requestedName } from "./requested_name.ts";

/** The bytes read, in `buffer` (a pooled one to give back, unless it had to grow). */
interface Read {
  readonly bytes: Uint8Array;
  /** The pool's buffer to give back once `bytes` have been written; absent when it grew. */
  readonly pooled: Uint8Array | undefined;
}

/** Where the first bytes left the connection. */
export type FirstBytes =
  | ({ readonly kind: "found"; readonly name: string } & Read)
  | ({
    readonly kind: "default";
    readonly outcome: Exclude<NameOutcome, "found" | "timeout">;
    readonly reason?: string;
  } & Read)
  /** Closed with nothing to relay: silent past the deadline, or gone before a byte. */
  | { readonly kind: "ended"; readonly outcome: "timeout" | "closed" };

/** One connection's read, as its deadline sees it. */
class Reading {
  timedOut = false;
  readonly conn: Deno.Conn;
  constructor(conn: Deno.Conn) {
    this.conn = conn;
  }
}

/** One timing wheel for every first-bytes deadline of one server; run it while connections read. */
export class ReadDeadlines extends DeadlineTimer<Reading> {
  readonly timeoutMs: number;

  constructor(clock: Clock, timeoutMs: number) {
    super(clock, {
      tickMs: Math.min(Math.max(timeoutMs / 20, 10), 250),
      fire: (reading) => {
        reading.timedOut = true;
        try {
          reading.conn.close();
        } catch {
          // Closed already.
        }
      },
    });
    this.timeoutMs = timeoutMs;
  }
}

/** Options for {@linkcode readFirstBytes}. */
export interface FirstBytesOptions {
  readonly listener: ListenerName;
  /** The most bytes held (16 KiB by default). */
  readonly maxBytes: number;
  readonly deadlines: ReadDeadlines;
  /** Pool of the first buffers; without one, each read allocates 1 KiB. */
  readonly pool?: BufferPool | undefined;
}

const FIRST_BUFFER = 1024;

/** Reads from `client` until its first bytes give a verdict; never rejects. */
export async function readFirstBytes(client: Deno.Conn, options: FirstBytesOptions): Promise<FirstBytes> {
  const { listener, maxBytes, deadlines, pool } = options;
  const reading = new Reading(client);
  const entry = deadlines.add(deadlines.timeoutMs, reading);
  let pooled = pool !== undefined && pool.size <= maxBytes ? pool.take() : undefined;
  let buffer = pooled ?? new Uint8Array(Math.min(FIRST_BUFFER, maxBytes));
  let length = 0;
  const giveBack = () => {
    if (pooled !== undefined) pool?.give(pooled);
    pooled = undefined;
  };
  try {
    for (;;) {
      let n: number | null;
      try {
        n = await client.read(buffer.subarray(length));
      } catch {
        n = null;
      }
      if (reading.timedOut || (n === null && length === 0)) {
        giveBack();
        return { kind: "ended", outcome: reading.timedOut ? "timeout" : "closed" };
      }
      if (n === null) {
        return { kind: "default", outcome: "closed", bytes: buffer.subarray(0, length), pooled };
      }
      length += n;
      const bytes = buffer.subarray(0, length);
      const verdict = requestedName(bytes, { listener, cap: maxBytes });
      if (verdict.kind === "found") return { kind: "found", name: verdict.name, bytes, pooled };
      if (verdict.kind === "default") return { ...verdict, bytes, pooled };
      // At least one more byte, so a read never gets an empty buffer (the cap ends it first).
      const wanted = Math.max(verdict.atLeast, length + 1);
      if (wanted > buffer.length) {
        const grown = new Uint8Array(Math.min(maxBytes, Math.max(wanted, buffer.length * 2)));
        grown.set(bytes);
        buffer = grown;
        giveBack();
      }
    }
  } finally {
    deadlines.cancel(entry);
  }
}
