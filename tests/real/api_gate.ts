/**
 * A fault gate in front of the real apiserver: a plain-HTTP reverse proxy on loopback that the
 * components' kubeconfigs point at (each with its own bearer token, which the gate passes on),
 * forwarding every request over TLS to the apiserver, and able to misbehave on command the way
 * the fake API server's faults do (`tests/support/fake_apiserver/faults.ts`): answer the next
 * requests with a 5xx or 429 Status, answer them late, cut every open watch, stall every open
 * watch (the connection stays open, nothing more comes), and partition one identity (by its
 * token). The soak runs its processes through it (`tests/soak/soak_real_cluster.ts`).
 *
 * Why not `cuttable_relay.ts`: the relay moves bytes and knows no requests, so it can cut a
 * component off but cannot answer a 500, delay an answer, or tell a watch from a get; the gate
 * works per request. Partitioning through the gate also needs no port per component.
 *
 * Decisions a reader could not guess:
 * - A partition holds the identity's new requests unanswered (the client learns of it only from
 *   its own deadline, as behind a link that drops packets) and pauses its open responses. Healed,
 *   the paused responses go on with what the server sent meanwhile (as TCP delivers it once the
 *   path is back) and held reads are forwarded; held writes are lost for good, as the fake's
 *   partition does, so a fenced-off leader's old write cannot land by surprise after the heal.
 * - A stalled watch stays stalled until its client gives up on it; watches opened after the
 *   stall are served normally.
 * - Held and delayed requests end when the gate closes, not when their client gives up: Deno's
 *   `request.signal` also fires after a successful response, and warns about it (the fake API
 *   server avoids it for the same reason). A client that gave up on a held read finds its answer
 *   dropped with the connection.
 * - While the apiserver cannot be reached (a restart), the gate answers 503 with a Status, as a
 *   load balancer in front of it would; `Accept-Encoding` is not passed on (fetch would inflate
 *   the body behind the header's back).
 *
 * Effects: a listening socket, HTTPS requests to the apiserver.
 *
 * @module
 */

/** A running gate. */
export interface ApiGate extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`: the server of the components' kubeconfigs. */
  readonly url: string;
  /** Answers the next `count` requests with this status code (429 with `Retry-After: 1`). */
  failNext(options: { code: number; count: number }): void;
  /** Forwards the next `count` requests only after `ms`. */
  delayNext(options: { ms: number; count: number }): void;
  /** Breaks every open watch stream (the client sees its connection end mid-stream). */
  cutWatches(): void;
  /** Stops forwarding anything on every open watch stream, keeping its connection open. */
  stallWatches(): void;
  /** Cuts the holder of `token` off until {@linkcode heal}. */
  partition(token: string): void;
  /** Ends `token`'s partition. */
  heal(token: string): void;
  /** Whether `token` is partitioned now. */
  partitioned(token: string): boolean;
}

/** Where the gate forwards to. */
export interface ApiGateOptions {
  /** The apiserver, `https://127.0.0.1:<port>`. */
  readonly upstream: string;
  /** The CA that signed the apiserver's certificate. */
  readonly caPem: string;
}

type Scripted = { readonly kind: "status"; readonly code: number } | {
  readonly kind: "delay";
  readonly ms: number;
};

/** One response being streamed to a client. */
interface Flow {
  readonly token: string;
  readonly watch: boolean;
  stalled: boolean;
  paused: boolean;
  /** Wakes a pull waiting while paused or stalled. */
  wake: () => void;
  /** Breaks the stream (a cut, or the gate closing). */
  readonly cut: () => void;
}

const HOP_HEADERS = ["host", "connection", "keep-alive", "transfer-encoding", "content-length", "upgrade"];

function status(code: number, message: string): Response {
  const reason = code === 429
    ? "TooManyRequests"
    : code === 503
    ? "ServiceUnavailable"
    : code === 504
    ? "Timeout"
    : "InternalError";
  return new Response(
    JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", message, reason, code }),
    {
      status: code,
      headers: {
        "Content-Type": "application/json",
        ...(code === 429 ? { "Retry-After": "1" } : {}),
      },
    },
  );
}

function bearer(request: Request): string {
  const header = request.headers.get("authorization") ?? "";
  return header.startsWith("Bearer ") ? header.slice("Bearer ".length) : "";
}

/**
 * Ends a body the way a lost connection does, with half a line: the client finds it broken. (An
 * errored body would do the same, but Deno's server prints every such error with its stack.)
 */
function breakOff(controller: ReadableStreamDefaultController<Uint8Array>): void {
  try {
    controller.enqueue(new TextEncoder().encode('{"type":"MODIFIED","object":{"kind":'));
    controller.close();
  } catch {
    // Already ended.
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Starts a gate on 127.0.0.1 in front of `options.upstream`. */
export function startApiGate(options: ApiGateOptions): ApiGate {
  const client = Deno.createHttpClient({ caCerts: [options.caPem] });
  const scripted: Scripted[] = [];
  const flows = new Set<Flow>();
  const cutOff = new Set<string>();
  /** Held requests per token: each is woken with true (forward it) at heal, false at close. */
  const held = new Map<string, Set<(forward: boolean) => void>>();
  const closing = new AbortController();

  const hold = (token: string): Promise<boolean> =>
    new Promise((resolve) => {
      const waiters = held.get(token) ?? new Set();
      held.set(token, waiters);
      const wake = (forward: boolean) => {
        waiters.delete(wake);
        resolve(forward);
      };
      waiters.add(wake);
    });

  const forward = async (request: Request, token: string, watch: boolean): Promise<Response> => {
    const upstreamAbort = new AbortController();
    closing.signal.addEventListener("abort", () => upstreamAbort.abort(), { once: true });
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    for (const name of [...HOP_HEADERS, "accept-encoding"]) headers.delete(name);
    let upstream: Response;
    try {
      const body = request.method === "GET" || request.method === "HEAD"
        ? undefined
        : await request.arrayBuffer();
      upstream = await fetch(`${options.upstream}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        ...(body === undefined ? {} : { body }),
        client,
        redirect: "manual",
        signal: upstreamAbort.signal,
      });
    } catch (error) {
      return status(
        503,
        `the apiserver cannot be reached: ${error instanceof Error ? error.message : error}`,
      );
    }
    const responseHeaders = new Headers(upstream.headers);
    for (const name of HOP_HEADERS) responseHeaders.delete(name);
    if (upstream.body === null) {
      return new Response(null, { status: upstream.status, headers: responseHeaders });
    }
    const reader = upstream.body.getReader();
    let controllerRef: ReadableStreamDefaultController<Uint8Array> | undefined;
    let wake = () => {};
    const flow: Flow = {
      token,
      watch,
      stalled: false,
      paused: cutOff.has(token),
      wake: () => wake(),
      cut: () => {
        flows.delete(flow);
        upstreamAbort.abort();
        if (controllerRef !== undefined) breakOff(controllerRef);
        flow.wake();
      },
    };
    flows.add(flow);
    const blocked = () => flow.stalled || flow.paused;
    const open = async () => {
      while (blocked() && flows.has(flow)) await new Promise<void>((resolve) => wake = resolve);
    };
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controllerRef = controller;
      },
      async pull(controller) {
        await open();
        if (!flows.has(flow)) return;
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch {
          // The apiserver's side broke (a restart): so does the client's.
          flows.delete(flow);
          breakOff(controller);
          return;
        }
        // What arrived while the flow was stalled or paused waits with it.
        await open();
        if (!flows.has(flow)) return;
        if (chunk.done) {
          flows.delete(flow);
          controller.close();
        } else controller.enqueue(chunk.value);
      },
      cancel() {
        flows.delete(flow);
        upstreamAbort.abort();
        flow.wake();
      },
    });
    return new Response(body, { status: upstream.status, headers: responseHeaders });
  };

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {}, signal: closing.signal },
    async (request) => {
      const token = bearer(request);
      const watch = ["true", "1"].includes(new URL(request.url).searchParams.get("watch") ?? "");
      if (cutOff.has(token)) {
        const released = await hold(token);
        const read = request.method === "GET" || request.method === "HEAD";
        if (!released || !read) {
          // Lost: never answered (the client gives up on its own) until the gate closes.
          if (!closing.signal.aborted) {
            await new Promise<void>((resolve) =>
              closing.signal.addEventListener("abort", () => resolve(), { once: true })
            );
          }
          return status(504, "partitioned");
        }
      }
      const fault = scripted.shift();
      if (fault?.kind === "status") return status(fault.code, `the soak's fault gate answers ${fault.code}`);
      if (fault?.kind === "delay") await pause(fault.ms, closing.signal);
      return await forward(request, token, watch);
    },
  );

  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    failNext({ code, count }) {
      for (let i = 0; i < count; i++) scripted.push({ kind: "status", code });
    },
    delayNext({ ms, count }) {
      for (let i = 0; i < count; i++) scripted.push({ kind: "delay", ms });
    },
    cutWatches() {
      for (const flow of [...flows]) if (flow.watch) flow.cut();
    },
    stallWatches() {
      for (const flow of flows) if (flow.watch) flow.stalled = true;
    },
    partition(token) {
      cutOff.add(token);
      for (const flow of flows) if (flow.token === token) flow.paused = true;
    },
    heal(token) {
      cutOff.delete(token);
      for (const flow of flows) {
        if (flow.token !== token) continue;
        flow.paused = false;
        flow.wake();
      }
      for (const wake of [...(held.get(token) ?? [])]) wake(true);
    },
    partitioned: (token) => cutOff.has(token),
    async [Symbol.asyncDispose]() {
      closing.abort();
      for (const flow of [...flows]) flow.cut();
      for (const waiters of held.values()) for (const wake of [...waiters]) wake(false);
      await server.finished;
      client.close();
    },
  };
}
