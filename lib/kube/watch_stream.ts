/**
 * The events of one watch response body. Events are yielded as their lines complete, and the
 * stream:
 *
 * - ends after an ERROR event (the server closes the stream after one; a line that is not a
 *   watch event is reported as ERROR 500, see `watch_line.ts`);
 * - ends when the body ends, or the connection breaks mid-stream: an incomplete last line is
 *   dropped, never decoded, so the caller re-watches from the last complete event;
 * - ends when `signal` aborts or the consumer stops iterating, cancelling the body so the
 *   connection is released.
 *
 * Effects: reads and cancels the given body; logs through the injected log.
 *
 * @module
 */

import type { Decoder } from "../resources/json.ts";
import type { KubeObject } from "../resources/kube_object.ts";
import { errorMessage } from "../util/error_message.ts";
import type { Log } from "../util/logging.ts";
import { LineSplitter } from "./line_splitter.ts";
import type { WatchEvent } from "./list_watch.ts";
import { decodeWatchLine } from "./watch_line.ts";

/** Options for {@linkcode watchStream}. */
export interface WatchStreamOptions<T> {
  /** The watched kind's decoder. */
  readonly decode: Decoder<T>;
  /** `WATCH /api/v1/…`, for the log lines. */
  readonly request: string;
  /** Aborting ends the stream quietly and releases the connection. */
  readonly signal: AbortSignal;
  /** Told (at debug) when the stream broke or ended inside a line. */
  readonly log: Log;
}

/**
 * Yields the decoded events of a watch response `body` until one of the ends above. Never
 * throws for a broken or aborted stream: it ends, and the caller watches again.
 *
 * @example
 * ```ts
 * import { decodeConfigMap } from "../resources/config_map.ts";
 * import { logger } from "../util/logging.ts";
 * import { watchStream } from "./watch_stream.ts";
 *
 * declare const body: ReadableStream<Uint8Array>; // the body of a WATCH answer
 * declare const signal: AbortSignal;
 * const request = "WATCH /api/v1/namespaces/kube-system/configmaps";
 * let resourceVersion = "42";
 * const options = { decode: decodeConfigMap, request, signal, log: logger("kube") };
 * for await (const event of watchStream(body, options)) {
 *   if (event.type === "BOOKMARK") resourceVersion = event.resourceVersion;
 * }
 * ```
 */
export async function* watchStream<T extends KubeObject>(
  body: ReadableStream<Uint8Array>,
  options: WatchStreamOptions<T>,
): AsyncGenerator<WatchEvent<T>, void, undefined> {
  const { signal, request, log } = options;
  const reader = body.getReader();
  // A pending read does not always settle when the fetch's signal aborts (seen with a stream
  // that stalled before its first byte), so cancel the reader itself on abort as well.
  const cancelOnAbort = () => void reader.cancel(signal.reason).catch(() => {});
  signal.addEventListener("abort", cancelOnAbort, { once: true });
  const splitter = new LineSplitter();
  try {
    while (true) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (!signal.aborted) {
          log.debug("watch stream broke; ending it", { request, error: errorMessage(error) });
        }
        return;
      }
      if (chunk.done) break;
      for (const line of splitter.push(chunk.value)) {
        const event = decodeWatchLine(line, options.decode);
        yield event;
        if (event.type === "ERROR") return;
      }
    }
    const rest = splitter.remainder();
    if (rest.trim() !== "") {
      log.debug("watch stream ended inside a line; dropping the incomplete event", {
        request,
        bytes: rest.length,
      });
    }
  } finally {
    signal.removeEventListener("abort", cancelOnAbort);
    // A no-op when the stream already ended; otherwise this releases the connection.
    await reader.cancel().catch(() => {});
  }
}
