/**
 * One DNS-over-TCP connection (RFC 7766): pipelined queries answered as each completes (§6.2.1.1),
 * at most `maxInFlight` at once; reading pauses while queries wait, so TCP is the backpressure.
 * Idle (§6.2.3) means no whole query and no answer, so a byte-by-byte trickle is idle too.
 * Answers owed are written before closing, except after a failed write.
 *
 * Effects: reads and writes the connection; time through the injected clock.
 *
 * @module
 */

import type { Clock } from "../../util/clock.ts";
import { frameMessage, TcpFrameReader } from "../wire/tcp_frames.ts";
import type { HandlerResult } from "./query_handler.ts";

/** Options for {@linkcode serveTcpSession}. */
export interface TcpSessionOptions {
  readonly handle: (query: Uint8Array) => HandlerResult | Promise<HandlerResult>;
  readonly clock: Clock;
  readonly idleTimeoutMs: number;
  readonly maxInFlight: number;
  /** Aborted when the server stops: read no more, answer what was read, close. */
  readonly stop: AbortSignal;
}

/** How a session ended. */
export type TcpSessionEnd = "client closed" | "idle" | "write failed" | "read failed" | "server stopping";

/** Serves `conn` until it ends, closes it, and says why it ended. */
export async function serveTcpSession(
  conn: Deno.TcpConn,
  options: TcpSessionOptions,
): Promise<TcpSessionEnd> {
  const { clock, idleTimeoutMs, maxInFlight } = options;
  const ended = new AbortController();
  let wake: (() => void) | undefined;
  const notify = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  let end: TcpSessionEnd | undefined;
  let closed = false;
  const close = (why: TcpSessionEnd) => {
    end ??= why;
    if (closed) return;
    closed = true;
    ended.abort();
    try {
      conn.close();
    } catch {
      // Closed already.
    }
    notify();
  };

  let lastActivity = clock.now();
  let handling = 0;
  const queue: Uint8Array[] = [];
  let writes: Promise<void> = Promise.resolve();
  /** Once stopping and nothing is owed: close after the last write (ending a pending read). */
  const closeIfStoppedAndDone = () => {
    if (options.stop.aborted && handling === 0 && queue.length === 0) {
      writes.then(() => close("server stopping"));
    }
  };

  const write = (response: Uint8Array) => {
    const framed = frameMessage(response);
    writes = writes.then(async () => {
      if (closed) return;
      try {
        for (let written = 0; written < framed.length;) written += await conn.write(framed.subarray(written));
        lastActivity = clock.now();
      } catch {
        close("write failed");
      }
    });
    return writes;
  };
  const finish = () => {
    handling -= 1;
    pump();
    notify();
    closeIfStoppedAndDone();
  };
  const start = (query: Uint8Array) => {
    handling += 1;
    let result: HandlerResult | Promise<HandlerResult>;
    try {
      result = options.handle(query);
    } catch {
      // Should the handler throw, the query goes unanswered, not the connection down.
      result = undefined;
    }
    if (result instanceof Promise) {
      result.then((response) => response === undefined ? undefined : write(response)).then(finish, finish);
    } else {
      if (result !== undefined) write(result);
      finish();
    }
  };
  const pump = () => {
    while (handling < maxInFlight && queue.length > 0 && !closed) start(queue.shift()!);
  };

  const idleWatch = (async () => {
    while (!closed) {
      const left = lastActivity + idleTimeoutMs - clock.now();
      if (left <= 0 && handling === 0) {
        close("idle");
        return;
      }
      if (!await clock.sleep(left > 0 ? left : idleTimeoutMs, ended.signal)) return;
    }
  })();
  const onStop = () => {
    end ??= "server stopping";
    notify();
    closeIfStoppedAndDone();
  };
  options.stop.addEventListener("abort", onStop, { once: true });

  const frames = new TcpFrameReader();
  const buffer = new Uint8Array(16_384);
  try {
    while (!closed && !options.stop.aborted) {
      if (queue.length > 0 || handling >= maxInFlight) {
        await new Promise<void>((resolve) => wake = resolve);
        continue;
      }
      let read: number | null;
      try {
        read = await conn.read(buffer);
      } catch {
        if (!closed) end ??= options.stop.aborted ? "server stopping" : "read failed";
        break;
      }
      if (read === null) {
        end ??= "client closed";
        break;
      }
      const messages = frames.push(buffer.subarray(0, read));
      if (messages.length > 0) lastActivity = clock.now();
      queue.push(...messages);
      pump();
    }
    // Answer what was read, then close.
    while (!closed && (handling > 0 || queue.length > 0)) {
      await new Promise<void>((resolve) => wake = resolve);
    }
    await writes;
  } finally {
    options.stop.removeEventListener("abort", onStop);
    close(end ?? "server stopping");
    await idleWatch;
  }
  return end ?? "server stopping";
}
