/**
 * The doctor's plain-HTTP probe: one `GET /` with a chosen `Host` and no PROXY header, reading
 * only the status line. It tells "answered" from "hung up on" (the PROXY header question) from
 * "could not connect"; non-HTTP bytes (a TLS alert, say) are reported, not guessed at.
 *
 * Pure: {@linkcode classifyHttpAnswer}. Effects: {@linkcode httpProbe} opens one TCP connection.
 *
 * @module
 */

import { classifyProbeFailure, type ProbeFailure } from "./probe_failure.ts";
import { probeDeadline, untilAborted } from "./probe_deadline.ts";

/** The most bytes read while waiting for the status line. */
export const MAX_ANSWER_BYTES = 1024;

/** What came back on a connection, as far as the status line goes. */
export type HttpAnswer =
  | { readonly kind: "answered"; readonly statusLine: string; readonly status: number }
  /** `sample` shows the first few bytes, escaped. */
  | { readonly kind: "not-http"; readonly sample: string };

/** The result of one {@linkcode httpProbe}. */
export type HttpProbeResult = HttpAnswer | ProbeFailure;

const STATUS_LINE = /^HTTP\/\d(?:\.\d)? (\d{3})(?: [^\r\n]*)?$/;
const HTTP_PREFIX = "HTTP/";

function sample(bytes: Uint8Array): string {
  return [...bytes.subarray(0, 16)].map((byte) =>
    byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, "0")}`
  ).join("");
}

/**
 * Judges the bytes read so far; `undefined` when more are needed (no line end yet, under the cap).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { classifyHttpAnswer } from "./http_probe.ts";
 *
 * const bytes = new TextEncoder().encode("HTTP/1.1 404 Not Found\r\nServer: nginx\r\n");
 * assert.deepEqual(classifyHttpAnswer(bytes, false), {
 *   kind: "answered",
 *   statusLine: "HTTP/1.1 404 Not Found",
 *   status: 404,
 * });
 * ```
 */
export function classifyHttpAnswer(bytes: Uint8Array, ended: boolean): HttpProbeResult | undefined {
  if (bytes.length === 0) return ended ? { kind: "closed" } : undefined;
  const text = new TextDecoder("latin1").decode(bytes);
  const prefix = text.slice(0, HTTP_PREFIX.length);
  if (!HTTP_PREFIX.startsWith(prefix)) return { kind: "not-http", sample: sample(bytes) };
  const lineEnd = text.indexOf("\n");
  if (lineEnd < 0 && !ended && bytes.length < MAX_ANSWER_BYTES) return undefined;
  const line = (lineEnd < 0 ? text : text.slice(0, lineEnd)).replace(/\r$/, "");
  const match = STATUS_LINE.exec(line);
  return match === null
    ? { kind: "not-http", sample: sample(bytes) }
    : { kind: "answered", statusLine: line, status: Number(match[1]) };
}

/** The part of a connection the probe uses; `Deno.Conn` has it. */
export interface ProbeConn {
  read(buffer: Uint8Array): Promise<number | null>;
  write(data: Uint8Array): Promise<number>;
  close(): void;
}

/** Opens a TCP connection; `Deno.connect` by default. */
export type Dialer = (options: { hostname: string; port: number; signal: AbortSignal }) => Promise<ProbeConn>;

/** Where to probe and how. */
export interface HttpProbeOptions {
  /** The `Host` header. */
  readonly host: string;
  /** Connect and answer together. */
  readonly timeoutMs: number;
  /** The check's deadline. */
  readonly signal: AbortSignal;
  /** @default Deno.connect */
  readonly dial?: Dialer;
}

const denoDial: Dialer = (options) => Deno.connect(options);

async function writeAll(conn: ProbeConn, data: Uint8Array): Promise<void> {
  for (let offset = 0; offset < data.length;) offset += await conn.write(data.subarray(offset));
}

/** Sends `GET /` with `Host: <host>` and reports what came back; never rejects. */
export async function httpProbe(
  target: { readonly hostname: string; readonly port: number },
  options: HttpProbeOptions,
): Promise<HttpProbeResult> {
  using deadline = probeDeadline(options.signal, options.timeoutMs);
  const dial = options.dial ?? denoDial;
  const dialing = dial({ ...target, signal: deadline.signal });
  let conn: ProbeConn;
  try {
    conn = await untilAborted(dialing, deadline.signal);
  } catch (error) {
    // A dialer that connects after the deadline: close what it returns.
    dialing.then((late) => late.close(), () => {});
    return deadline.signal.aborted ? deadline.failure("connect") : classifyProbeFailure(error, "connect");
  }
  const onAbort = () => conn.close();
  deadline.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const request = `GET / HTTP/1.1\r\nHost: ${options.host}\r\nUser-Agent: ouroboros-doctor\r\n` +
      "Accept: */*\r\nConnection: close\r\n\r\n";
    await untilAborted(writeAll(conn, new TextEncoder().encode(request)), deadline.signal);
    const received = new Uint8Array(MAX_ANSWER_BYTES);
    let length = 0;
    while (true) {
      const read = await untilAborted(conn.read(received.subarray(length)), deadline.signal);
      const ended = read === null;
      if (!ended) length += read;
      const answer = classifyHttpAnswer(received.subarray(0, length), ended);
      if (answer !== undefined) return answer;
    }
  } catch (error) {
    return deadline.signal.aborted ? deadline.failure("answer") : classifyProbeFailure(error, "answer");
  } finally {
    deadline.signal.removeEventListener("abort", onAbort);
    if (!deadline.signal.aborted) {
      try {
        conn.close();
      } catch { /* closed by the other side's reset already */ }
    }
  }
}
