/**
 * One query to an upstream over TCP, after a truncated UDP reply. A connection per query: it is
 * rare, and an upstream would close an idle connection anyway.
 *
 * Effects: opens a TCP connection; time goes through the injected clock.
 *
 * @module
 */

import type { Clock } from "../../util/clock.ts";
import { errorMessage } from "../../util/error_message.ts";
import { frameMessage, TcpFrameReader } from "../wire/tcp_frames.ts";
import type { ExchangeResult, UpstreamEndpoint } from "./upstream_socket_pool.ts";

/** Options for {@linkcode tcpExchange}. */
export interface TcpExchangeOptions {
  readonly clock: Clock;
  /** For the whole exchange: connect, write, read. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** Sends `query` framed to `upstream` and returns the first whole message back, or why not. */
export async function tcpExchange(
  upstream: UpstreamEndpoint,
  query: Uint8Array,
  options: TcpExchangeOptions,
): Promise<ExchangeResult> {
  const stop = new AbortController();
  let timedOut = false;
  const onAbort = () => stop.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const timer = options.clock.sleep(options.timeoutMs, stop.signal).then((passed) => {
    if (passed) {
      timedOut = true;
      stop.abort();
    }
  });
  let conn: Deno.TcpConn | undefined;
  const closeConn = () => {
    try {
      conn?.close();
    } catch {
      // Closed already.
    }
  };
  stop.signal.addEventListener("abort", closeConn, { once: true });
  try {
    if (options.signal?.aborted) return { kind: "failed", message: "aborted" };
    conn = await Deno.connect({ hostname: upstream.host, port: upstream.port, signal: stop.signal });
    if (stop.signal.aborted) closeConn();
    const framed = frameMessage(query);
    for (let written = 0; written < framed.length;) {
      written += await conn.write(framed.subarray(written));
    }
    const frames = new TcpFrameReader();
    const buffer = new Uint8Array(16_384);
    while (true) {
      const read = await conn.read(buffer);
      if (read === null) return { kind: "failed", message: "connection closed before a reply" };
      const [reply] = frames.push(buffer.subarray(0, read));
      if (reply !== undefined) return { kind: "reply", bytes: reply };
    }
  } catch (error) {
    if (timedOut) return { kind: "timeout" };
    return { kind: "failed", message: errorMessage(error) };
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    stop.signal.removeEventListener("abort", closeConn);
    stop.abort();
    closeConn();
    await timer;
  }
}
