/**
 * A minimal wire-level client for the fake API server's own tests: JSON requests with fetch,
 * and a watch reader that returns the stream line by line (parsed when the line is JSON), so
 * tests see exactly what a real client would receive, including broken lines.
 *
 * @module
 */

/** A JSON answer. */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  /** The parsed body (undefined when empty or not JSON). */
  readonly body: Record<string, unknown>;
  readonly text: string;
}

/** Sends one request; `body` is JSON-encoded unless it is already a string. */
export async function call(
  url: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; client?: Deno.HttpClient } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const response = await fetch(`${url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
    ...(options.client === undefined ? {} : { client: options.client }),
  });
  const text = await response.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Not JSON: tests look at `text`.
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** One thing read from a watch stream. */
export type WatchRead =
  | { readonly type: "line"; readonly text: string; readonly json: WatchLine | undefined }
  /** The stream ended; `rest` is an unterminated last line, if any. */
  | { readonly type: "end"; readonly rest: string };

/** A parsed watch line. */
export interface WatchLine {
  readonly type: string;
  readonly object: Record<string, unknown> & { metadata?: Record<string, unknown> };
}

/** An open watch. */
export interface WatchReader extends AsyncDisposable {
  readonly status: number;
  readonly headers: Headers;
  /** The next line or the end. Fails after `timeoutMs` (a hang guard, default 10 s). */
  next(timeoutMs?: number): Promise<WatchRead>;
  /** The next line, which must be JSON. */
  event(timeoutMs?: number): Promise<WatchLine>;
  /** Reads to the end and returns the JSON lines (fails if the stream does not end within the guard). */
  rest(timeoutMs?: number): Promise<WatchLine[]>;
  /** A read in flight that has not finished (for proving that nothing arrives). */
  pendingRead(): Promise<WatchRead>;
  close(): Promise<void>;
}

function parseLine(text: string): WatchLine | undefined {
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null && typeof value.type === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Opens `GET path` as a stream (the caller adds `watch=true`). The response need not be 200. */
export async function openWatch(
  url: string,
  path: string,
  options: { headers?: Record<string, string>; client?: Deno.HttpClient } = {},
): Promise<WatchReader> {
  const abort = new AbortController();
  const response = await fetch(`${url}${path}`, {
    signal: abort.signal,
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    ...(options.client === undefined ? {} : { client: options.client }),
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let ended = false;
  let inFlight: Promise<WatchRead> | undefined;
  const readOne = async (): Promise<WatchRead> => {
    while (true) {
      const newline = buffer.indexOf("\n");
      if (newline >= 0) {
        const text = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        return { type: "line", text, json: parseLine(text) };
      }
      if (ended) {
        const rest = buffer;
        buffer = "";
        return { type: "end", rest };
      }
      const chunk = await reader.read();
      if (chunk.done) ended = true;
      else buffer += chunk.value;
    }
  };
  const shared = (): Promise<WatchRead> => {
    inFlight ??= readOne().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
  const next = async (timeoutMs = 10_000): Promise<WatchRead> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const guard = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no watch data within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([shared(), guard]);
    } finally {
      clearTimeout(timer);
    }
  };
  const close = async () => {
    abort.abort();
    await reader.cancel().catch(() => {});
    await inFlight?.catch(() => {});
  };
  return {
    status: response.status,
    headers: response.headers,
    next,
    async event(timeoutMs) {
      const read = await next(timeoutMs);
      if (read.type !== "line" || read.json === undefined) {
        throw new Error(`expected a JSON event, got ${JSON.stringify(read)}`);
      }
      return read.json;
    },
    async rest(timeoutMs) {
      const lines: WatchLine[] = [];
      while (true) {
        const read = await next(timeoutMs);
        if (read.type === "end") return lines;
        if (read.json !== undefined) lines.push(read.json);
      }
    },
    pendingRead: shared,
    close,
    [Symbol.asyncDispose]: close,
  };
}
