/**
 * Decodes one line of a watch stream into a {@linkcode WatchEvent}. An object that does not decode
 * is REJECTED; a line that is no event at all is ERROR 500, as in client-go: it may have been a
 * change, so the caller must re-watch from the last good version rather than skip it.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { statusFromResponse } from "./errors.ts";
import { type WatchEvent } from "./list_watch.ts";
import { asObject, type Decoder } from "../resources/json.ts";
import { type KubeObject, rawObjectKey } from "../resources/kube_object.ts";

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
