/**
 * A plain-HTTP server for credential tests: it records the `Authorization` header of every
 * request and answers 401 (with a Status body, like the API server) unless the token is one the
 * test currently accepts.
 *
 * @module
 */

/** The server and what it saw. */
export interface AuthServer extends AsyncDisposable {
  readonly url: string;
  /** Every `Authorization` header received, in order (`""` when absent). */
  readonly seen: string[];
  /** Bearer tokens answered with 200; the rest get 401. */
  readonly accepted: Set<string>;
}

/** Starts the server on a free port. */
export function startAuthServer(accepted: Iterable<string>): AuthServer {
  const seen: string[] = [];
  const tokens = new Set(accepted);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const header = request.headers.get("authorization") ?? "";
    seen.push(header);
    if (header.startsWith("Bearer ") && tokens.has(header.slice("Bearer ".length))) {
      return Response.json({ kind: "APIVersions", versions: ["v1"] });
    }
    return Response.json(
      {
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        reason: "Unauthorized",
        code: 401,
        message: "Unauthorized",
      },
      { status: 401 },
    );
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    seen,
    accepted: tokens,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}
