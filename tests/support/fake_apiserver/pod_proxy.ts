/**
 * The `pods/{name}[:{port}]/proxy/{path}` subresource, as the real API server serves it: a GET
 * is forwarded over plain HTTP to the pod's `status.podIP` and port (a number, or a container
 * port's name; the first declared container port when none is given), and the pod's answer
 * comes back with its status and body. When the pod cannot be reached the answer is the API
 * server's own `503 ServiceUnavailable` Status, `error trying to reach service: …`, as a real
 * one says. Tests give pods `status.podIP: 127.0.0.1` and ports of processes they started.
 *
 * Effects: one HTTP request to the pod per call.
 *
 * @module
 */

import { isJsonMap, type JsonMap } from "./json.ts";
import type { Reply } from "./reply.ts";
import { FakeApiError, methodNotAllowed, notFound, statusBody } from "./status.ts";
import type { Store } from "./store.ts";

/** How long the fake waits for a pod before answering 503 (the real one's dial timeout is 30 s). */
const POD_TIMEOUT_MS = 10_000;

function unavailable(message: string): FakeApiError {
  return new FakeApiError(statusBody(503, "ServiceUnavailable", message, {}));
}

/** The port `requested` names in `pod` (a number, a container port's name, or the first port). */
function portOf(pod: JsonMap, requested: string | undefined): number | undefined {
  if (requested !== undefined && /^\d+$/.test(requested)) return Number(requested);
  const spec = isJsonMap(pod.spec) ? pod.spec : {};
  const containers = Array.isArray(spec.containers) ? spec.containers.filter(isJsonMap) : [];
  const ports = containers.flatMap((container) => Array.isArray(container.ports) ? container.ports : [])
    .filter(isJsonMap);
  const port = requested === undefined ? ports[0] : ports.find((entry) => entry.name === requested);
  return typeof port?.containerPort === "number" ? port.containerPort : undefined;
}

/** What a proxy request addresses: the pod, the port it asked for, and the path behind it. */
export interface PodProxyRequest {
  readonly method: string;
  readonly namespace: string;
  /** `name` or `name:port`, as in the path. */
  readonly target: string;
  /** `/readyz`. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Aborted when the server stops. */
  readonly closing: AbortSignal;
}

/**
 * Forwards one proxy request to the pod and returns its answer; failures are thrown as
 * {@linkcode FakeApiError}s for the HTTP layer to answer.
 */
export async function proxyToPod(store: Store, request: PodProxyRequest): Promise<Reply> {
  if (request.method !== "GET") throw methodNotAllowed();
  const kind = store.byResource("", "v1", "pods");
  if (kind === undefined) throw unavailable("pods are not served");
  const [name = "", port] = request.target.split(":");
  const stored = store.get(kind, request.namespace, name);
  if (stored === undefined) throw notFound(kind.info, name);
  const pod = stored.object;
  const status = isJsonMap(pod.status) ? pod.status : {};
  const ip = typeof status.podIP === "string" ? status.podIP : "";
  if (ip === "") throw unavailable(`pod ${name} has no IP address yet`);
  const number = portOf(pod, port);
  if (number === undefined) throw unavailable(`pod ${name} has no port ${port ?? "declared"}`);
  const query = request.query.toString();
  const url = `http://${ip.includes(":") ? `[${ip}]` : ip}:${number}${request.path}${
    query ? `?${query}` : ""
  }`;
  let response: Response;
  try {
    response = await fetch(url, {
      signal: AbortSignal.any([request.closing, AbortSignal.timeout(POD_TIMEOUT_MS)]),
    });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw unavailable(`error trying to reach service: dial tcp ${ip}:${number}: ${why}`);
  }
  return { type: "text", status: response.status, text: await response.text() };
}
