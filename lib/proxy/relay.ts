/**
 * Byte relay between a client and a backend connection.
 *
 * Each direction is a `read` → write-all loop over one buffer, so a direction never reads more
 * than it has written (memory per connection is bounded by two buffers, whatever the peers
 * do). Streams are deliberately not used: a `Deno.Conn` readable that reaches EOF closes the
 * whole socket, which would break half-close (denoland/deno#27510).
 *
 * Half-close: when one side finishes sending (EOF), the relay shuts down the write side of the
 * other and keeps relaying the opposite direction until it ends too. A failure on either side
 * (reset, broken pipe) closes both connections at once.
 *
 * @module
 */

import type { NumberSeries } from "../util/metrics.ts";

/** Buffer sizes for {@linkcode relay}. */
export interface RelayBuffers {
  /** Size each direction starts with; small, so idle connections cost little memory. */
  readonly initial: number;
  /** Size a direction grows to (by 4× steps) after a read fills its buffer. */
  readonly max: number;
}

/** Defaults chosen by measurement (`deno task bench:proxy`). */
export const DEFAULT_RELAY_BUFFERS: RelayBuffers = { initial: 4 * 1024, max: 64 * 1024 };

/** Options for {@linkcode relay}. */
export interface RelayOptions {
  /** Incremented by the bytes relayed client → backend. */
  readonly upstream: NumberSeries;
  /** Incremented by the bytes relayed backend → client. */
  readonly downstream: NumberSeries;
  /** Aborting closes both connections at once (shutdown grace expired). */
  readonly signal?: AbortSignal;
  readonly buffers?: RelayBuffers;
}

/** How a relay ended. */
export type RelayEnd =
  /** Both directions reached EOF. */
  | { readonly kind: "completed" }
  /** A read or write failed (peer reset, broken pipe); both sides were closed. */
  | { readonly kind: "failed"; readonly direction: "upstream" | "downstream"; readonly error: unknown }
  /** The signal aborted; both sides were closed. */
  | { readonly kind: "aborted" };

/** Result of {@linkcode relay}. */
export interface RelayResult {
  readonly end: RelayEnd;
  /** Bytes relayed client → backend. */
  readonly upstreamBytes: number;
  /** Bytes relayed backend → client. */
  readonly downstreamBytes: number;
}

type PumpEnd = { readonly kind: "eof" } | { readonly kind: "failed"; readonly error: unknown } | {
  readonly kind: "stopped";
};

/**
 * Relays bytes both ways until both directions end, then closes both connections. Never
 * rejects; the result says how it ended.
 *
 * @example
 * ```ts
 * const result = await relay(client, backend, { upstream, downstream, signal });
 * if (result.end.kind === "failed") log.debug("relay ended early", { error: result.end.error });
 * ```
 */
export async function relay(
  client: Deno.Conn,
  backend: Deno.Conn,
  options: RelayOptions,
): Promise<RelayResult> {
  const buffers = options.buffers ?? DEFAULT_RELAY_BUFFERS;
  let closed = false;
  let aborted = false;
  const closeBoth = () => {
    if (closed) return;
    closed = true;
    for (const conn of [client, backend]) {
      try {
        conn.close();
      } catch {
        // Already closed by the runtime after a failure: nothing left to release.
      }
    }
  };
  const onAbort = () => {
    aborted = true;
    closeBoth();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();

  let upstreamBytes = 0;
  let downstreamBytes = 0;
  const pump = async (
    from: Deno.Conn,
    to: Deno.Conn,
    series: NumberSeries,
    count: (n: number) => void,
  ): Promise<PumpEnd> => {
    let buffer = new Uint8Array(buffers.initial);
    while (true) {
      let n: number | null;
      try {
        n = await from.read(buffer);
      } catch (error) {
        if (closed) return { kind: "stopped" };
        closeBoth();
        return { kind: "failed", error };
      }
      if (n === null) {
        try {
          await to.closeWrite();
        } catch (error) {
          if (closed) return { kind: "stopped" };
          closeBoth();
          return { kind: "failed", error };
        }
        return { kind: "eof" };
      }
      let offset = 0;
      while (offset < n) {
        try {
          offset += await to.write(buffer.subarray(offset, n));
        } catch (error) {
          if (closed) return { kind: "stopped" };
          closeBoth();
          return { kind: "failed", error };
        }
      }
      series.value += n;
      count(n);
      if (n === buffer.length && buffer.length < buffers.max) {
        buffer = new Uint8Array(Math.min(buffer.length * 4, buffers.max));
      }
    }
  };

  const [up, down] = await Promise.all([
    pump(client, backend, options.upstream, (n) => upstreamBytes += n),
    pump(backend, client, options.downstream, (n) => downstreamBytes += n),
  ]);
  closeBoth();
  options.signal?.removeEventListener("abort", onAbort);

  let end: RelayEnd;
  if (aborted) end = { kind: "aborted" };
  else if (up.kind === "failed") end = { kind: "failed", direction: "upstream", error: up.error };
  else if (down.kind === "failed") end = { kind: "failed", direction: "downstream", error: down.error };
  else end = { kind: "completed" };
  return { end, upstreamBytes, downstreamBytes };
}
