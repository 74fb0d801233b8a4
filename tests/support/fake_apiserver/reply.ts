/**
 * The answers of the fake API server's handler before they become `Response`s: a JSON body (an
 * object, a list, a `Status` failure), plain text, or a stream (watches and streamed faults);
 * and content negotiation, which decides whether a client may be answered in JSON at all.
 *
 * Pure, apart from building `Response` objects.
 *
 * @module
 */

import type { StatusBody } from "./status.ts";
import type { ResponseStream } from "./watch.ts";

/** One answer, before it is sent. */
export type Reply =
  | { readonly type: "json"; readonly status: number; readonly text: string; readonly headers?: HeadersInit }
  | { readonly type: "text"; readonly status: number; readonly text: string }
  | { readonly type: "stream"; readonly status: number; readonly stream: ResponseStream };

/** A JSON answer of `value`. */
export function json(status: number, value: unknown): Reply {
  return { type: "json", status, text: JSON.stringify(value) };
}

/** A JSON answer whose text is already serialised. */
export function raw(status: number, text: string): Reply {
  return { type: "json", status, text };
}

/** A `Status` failure, with `Retry-After` when given. */
export function failure(body: StatusBody, retryAfterSeconds?: number): Reply {
  return {
    type: "json",
    status: body.code,
    text: JSON.stringify(body),
    ...(retryAfterSeconds === undefined ? {} : { headers: { "retry-after": String(retryAfterSeconds) } }),
  };
}

/** Whether the client accepts plain JSON (`application/json` without `as=`, or a wildcard). */
export function acceptsJson(accept: string | null): boolean {
  if (accept === null || accept.trim() === "") return true;
  return accept.split(",").some((entry) => {
    const [type, ...parameters] = entry.split(";").map((part) => part.trim().toLowerCase());
    if (type !== "application/json" && type !== "*/*" && type !== "application/*") return false;
    return !parameters.some((parameter) => parameter.startsWith("as="));
  });
}

/** The `Response` for an answer. */
export function toResponse(reply: Reply): Response {
  switch (reply.type) {
    case "json": {
      const headers = new Headers(reply.headers);
      headers.set("content-type", "application/json");
      return new Response(reply.text, { status: reply.status, headers });
    }
    case "text":
      return new Response(reply.text, { status: reply.status, headers: { "content-type": "text/plain" } });
    case "stream":
      return new Response(reply.stream.body, {
        status: reply.status,
        headers: { "content-type": "application/json", "cache-control": "no-cache, private" },
      });
  }
}
