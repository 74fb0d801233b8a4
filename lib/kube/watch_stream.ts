/**
 * The events of one watch response body, yielded as their lines complete. The stream ends after
 * an ERROR event, when the body ends or breaks (an incomplete last line is dropped, so the caller
 * re-watches from the last complete event), or on abort, which releases the connection.
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
  readonly decode: Decoder<T>;
  readonly request: string;
  readonly signal: AbortSignal;
  readonly log: Log;
}

/** Yields the decoded events of `body`; a broken or aborted stream ends it, never throws. */
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
