/**
 * Reads a new connection's first bytes until they name a hostname (or cannot), within a byte cap
 * and a deadline, before the proxy dials: the backend depends on the name.
 *
 * Decisions a reader could not guess:
 * - The deadline closes the client whatever it sent by then: a silent client and one that stalls
 *   inside its hello or head are alike (a sound hello or head arrives within a round trip).
 * - A client that ends its side before the verdict goes to the default target with what it sent
 *   (`closed`), unless it sent nothing: then there is nothing to relay and it is closed.
 * - The buffer starts at 1 KiB and grows only as the hello or head asks, to the cap at most.
 * - Deadlines share one timing wheel per server ({@linkcode ReadDeadlines}), not a timer each.
 *
 * Effects: reads the client socket, and closes it at the deadline.
 *
 * @module
 */

import type { Clock } from "../../util/clock.ts";
import { DeadlineTimer } from "../../util/deadline_timer.ts";
import type { ListenerName } from "../proxy_metrics.ts";
import { type NameOutcome, requestedName } from "./requested_name.ts";

/** Where the first bytes left the connection. */
export type FirstBytes =
  | { readonly kind: "found"; readonly name: string; readonly bytes: Uint8Array }
  | {
    readonly kind: "default";
    readonly outcome: Exclude<NameOutcome, "found" | "timeout">;
    readonly reason?: string;
    readonly bytes: Uint8Array;
  }
  /** Closed with nothing to relay: silent past the deadline, or gone before a byte. */
  | { readonly kind: "ended"; readonly outcome: "timeout" | "closed" };

/** One timing wheel for every first-bytes deadline of one server; run it while connections read. */
export class ReadDeadlines extends DeadlineTimer<AbortController> {
  readonly timeoutMs: number;

  constructor(clock: Clock, timeoutMs: number) {
    super(clock, {
      tickMs: Math.min(Math.max(timeoutMs / 20, 10), 250),
      fire: (controller) => controller.abort("timeout"),
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
}

const FIRST_BUFFER = 1024;

/** Reads from `client` until its first bytes give a verdict; never rejects. */
export async function readFirstBytes(client: Deno.Conn, options: FirstBytesOptions): Promise<FirstBytes> {
  const { listener, maxBytes, deadlines } = options;
  const timer = new AbortController();
  const close = () => {
    try {
      client.close();
    } catch {
      // Closed already.
    }
  };
  timer.signal.addEventListener("abort", close, { once: true });
  const entry = deadlines.add(deadlines.timeoutMs, timer);
  let buffer = new Uint8Array(Math.min(FIRST_BUFFER, maxBytes));
  let length = 0;
  try {
    for (;;) {
      let n: number | null;
      try {
        n = await client.read(buffer.subarray(length));
      } catch {
        n = null;
      }
      if (timer.signal.aborted) return { kind: "ended", outcome: "timeout" };
      if (n === null) {
        return length === 0
          ? { kind: "ended", outcome: "closed" }
          : { kind: "default", outcome: "closed", bytes: buffer.subarray(0, length) };
      }
      length += n;
      const bytes = buffer.subarray(0, length);
      const verdict = requestedName(bytes, { listener, cap: maxBytes });
      if (verdict.kind === "found") return { kind: "found", name: verdict.name, bytes };
      if (verdict.kind === "default") return { ...verdict, bytes };
      // At least one more byte, so a read never gets an empty buffer (the cap ends it first).
      const wanted = Math.max(verdict.atLeast, length + 1);
      if (wanted > buffer.length) {
        const grown = new Uint8Array(Math.min(maxBytes, Math.max(wanted, buffer.length * 2)));
        grown.set(bytes);
        buffer = grown;
      }
    }
  } finally {
    deadlines.cancel(entry);
    timer.signal.removeEventListener("abort", close);
  }
}
