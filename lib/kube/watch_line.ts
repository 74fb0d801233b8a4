/**
 * Decodes one line of a watch stream into a {@linkcode WatchEvent}:
 *
 * | line                                   | event                                              |
 * |----------------------------------------|----------------------------------------------------|
 * | ADDED / MODIFIED / DELETED, decodes    | the typed object                                   |
 * | ADDED / MODIFIED / DELETED, does not   | REJECTED with the object's resourceVersion, if any |
 * | BOOKMARK                               | BOOKMARK with `metadata.resourceVersion` only      |
 * | ERROR                                  | ERROR with the Status (410 Expired, 500, …)        |
 * | not JSON, unknown type, no object      | ERROR 500 `InternalError` (the stream is broken)   |
 *
 * A broken line cannot be skipped safely: it may have been an event, and skipping it would
 * lose that change until the next relist. So it is reported like client-go reports a decode
 * failure, as an ERROR event; the caller ends the stream and watches again from the last good
 * resourceVersion.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { statusFromResponse } from "./errors.ts";
import { type WatchEvent } from "./list_watch.ts";
import { asObject, type Decoder } from "../resources/json.ts";
import { type KubeObject, rawObjectKey } from "../resources/kube_object.ts";

/** The event reported for a line that is not a watch event. */
function broken(reason: string): WatchEvent<never> {
  return {
    type: "ERROR",
    status: {
      code: 500,
      reason: "InternalError",
      message: `unable to decode an event from the watch stream: ${reason}`,
    },
  };
}

function shorten(line: string): string {
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}

/** Decodes one watch line with the kind's decoder. Never throws. */
export function decodeWatchLine<T extends KubeObject>(
  line: string,
  decode: Decoder<T>,
): WatchEvent<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return broken(`not JSON: ${shorten(line)}`);
  }
  const event = asObject(parsed);
  if (event === undefined) return broken(`not a JSON object: ${shorten(line)}`);
  const object = asObject(event.object);
  if (object === undefined) return broken(`event has no object: ${shorten(line)}`);
  const metadata = asObject(object.metadata);
  const resourceVersion = typeof metadata?.resourceVersion === "string" ? metadata.resourceVersion : "";
  switch (event.type) {
    case "ADDED":
    case "MODIFIED":
    case "DELETED": {
      const decoded = decode(object);
      if (decoded.ok) return { type: event.type, object: decoded.value };
      return {
        type: "REJECTED",
        resourceVersion,
        failure: { key: rawObjectKey(object), reason: decoded.reason },
      };
    }
    case "BOOKMARK":
      if (resourceVersion === "") return broken("BOOKMARK without metadata.resourceVersion");
      return { type: "BOOKMARK", resourceVersion };
    case "ERROR": {
      const code = typeof object.code === "number" ? object.code : 500;
      return { type: "ERROR", status: statusFromResponse(code, { body: object }) };
    }
    default:
      return broken(`unknown event type ${JSON.stringify(event.type)}`);
  }
}
