/**
 * The route table (issue 30): which backend serves each hairpinned hostname. The controller writes
 * it into the ConfigMap key `routes.json`; the proxy reads it from the mounted file.
 *
 * ```json
 * {
 *   "version": 1,
 *   "routes": [{ "host": "*.apps.example.com", "backend": "gateway" }],
 *   "backends": {
 *     "gateway": { "address": "10.96.0.12", "httpPort": 80, "httpsPort": 443, "proxyProtocol": "v2" }
 *   }
 * }
 * ```
 *
 * Decisions a reader could not guess:
 * - `version` is read first and alone: a table of another version is refused whole, so a proxy
 *   older than its controller keeps its last good table rather than misread a newer one.
 * - Routes name backends: a backend's name is the only `route` label of the proxy's metrics, so no
 *   label comes from what a client sends; `default` is kept for the default target.
 * - One spelling: hosts and DNS addresses are names `hostnames/hostname.ts` accepts, written lower
 *   case without a trailing dot (`route_host.ts`), IP addresses canonical (RFC 5952), and unknown
 *   keys are refused at every level (a misspelt `httpsport` must not route silently to the
 *   default). Both ports are required: a Service without one is the controller's to report.
 * - A backend no route names is allowed. A key written twice in one JSON object is not seen
 *   (`JSON.parse` keeps the last); the controller renders from a `Map`, so it never writes one.
 * - Rendering sorts routes by host and backends by name, with a fixed key order: the same table
 *   always gives the same bytes, so the controller writes only when the table changed.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { errorMessage } from "../util/error_message.ts";
import { formatIp, parseIp } from "../util/ip.ts";
import { backendNameProblem, routeHostProblem } from "./route_host.ts";

/** The format version this code reads and writes. */
export const ROUTE_TABLE_VERSION = 1;

/** The ConfigMap key (and file name in the proxy's mount) that holds the table. */
export const ROUTE_TABLE_KEY = "routes.json";

/** The metric label of connections no route matched, so no backend may take the name. */
export const DEFAULT_ROUTE = "default";

/** Where a backend's connections go: the same fields as the proxy's default target. */
export interface RouteBackend {
  /** A canonical IP address (a Service's ClusterIP) or a DNS name (`svc.ns.svc.cluster.local`). */
  readonly address: string;
  /** The port serving plain HTTP (the proxy's HTTP listener sends there). */
  readonly httpPort: number;
  /** The port serving TLS (the proxy's HTTPS listener sends there). */
  readonly httpsPort: number;
  /** The PROXY protocol header version this backend expects. */
  readonly proxyProtocol: "v1" | "v2";
}

/** One hostname (`app.example.com` or `*.example.com`) and the name of its backend. */
export interface Route {
  readonly host: string;
  readonly backend: string;
}

/** A parsed table; every route names a backend of `backends`. */
export interface RouteTable {
  readonly routes: readonly Route[];
  readonly backends: ReadonlyMap<string, RouteBackend>;
}

/** The outcome of {@linkcode parseRouteTable}. */
export type RouteTableResult =
  | { readonly ok: true; readonly table: RouteTable }
  | { readonly ok: false; readonly problems: readonly string[] };

/** A backend name: a metric label value, `ingress-nginx/controller` at most 128 characters. */
const BACKEND_NAME = /^[a-z0-9](?:[a-z0-9./-]{0,126}[a-z0-9])?$/;
const BACKEND_KEYS = ["address", "httpPort", "httpsPort", "proxyProtocol"];
const SHAPE = '{"version": 1, "routes": [...], "backends": {...}}';

/**
 * Parses and checks the text of `routes.json`. Each problem reads `<JSON path>: <what is wrong>;
 * <what is accepted>`, all of them at once, in document order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseRouteTable } from "./route_table.ts";
 *
 * const text = '{"version": 1, "routes": [{"host": "app.example.com", "backend": "gw"}], "backends": {}}';
 * assert.deepEqual(parseRouteTable(text), {
 *   ok: false,
 *   problems: ['$.routes[0].backend: "gw" is not in $.backends; give the name of one of its backends'],
 * });
 * ```
 */
export function parseRouteTable(text: string): RouteTableResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [`$: not JSON (${errorMessage(error)}); give ${SHAPE}`] };
  }
  if (!isObject(json)) return { ok: false, problems: [`$: ${describe(json)}; give ${SHAPE}`] };
  if (json.version !== ROUTE_TABLE_VERSION) {
    const problem = `$.version: ${describe(json.version)} is not a version this proxy reads; give ` +
      `${ROUTE_TABLE_VERSION} (a newer controller than proxy? upgrade the proxy)`;
    return { ok: false, problems: [problem] };
  }
  const problems: string[] = [];
  unknownKeys(json, "$", ["version", "routes", "backends"], problems);
  const { backends, names } = readBackends(json.backends, problems);
  const routes = readRoutes(json.routes, names, problems);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, table: { routes, backends } };
}

/**
 * The table as `routes.json` text: pretty JSON with a final newline, routes sorted by host,
 * backends by name, keys in a fixed order. `table` is one {@linkcode parseRouteTable} accepts.
 */
export function renderRouteTable(table: RouteTable): string {
  const routes = [...table.routes]
    .sort((a, b) => compare(a.host, b.host))
    .map(({ host, backend }) => ({ host, backend }));
  const backends = Object.fromEntries(
    [...table.backends]
      .sort(([a], [b]) => compare(a, b))
      .map(([name, { address, httpPort, httpsPort, proxyProtocol }]) => [
        name,
        { address, httpPort, httpsPort, proxyProtocol },
      ]),
  );
  return `${JSON.stringify({ version: ROUTE_TABLE_VERSION, routes, backends }, null, 2)}\n`;
}

/** The backends that are whole, and every name given (so a route naming a broken one adds nothing). */
function readBackends(
  value: unknown,
  problems: string[],
): { backends: Map<string, RouteBackend>; names: Set<string> | undefined } {
  const backends = new Map<string, RouteBackend>();
  if (!isObject(value)) {
    problems.push(`$.backends: ${describe(value)}; give an object of backends by name`);
    return { backends, names: undefined };
  }
  const names = new Set<string>();
  for (const [name, entry] of Object.entries(value)) {
    names.add(name);
    const path = `$.backends[${JSON.stringify(name)}]`;
    const before = problems.length;
    if (!BACKEND_NAME.test(name) || name === DEFAULT_ROUTE) {
      problems.push(
        `${path}: ${JSON.stringify(name)} is not a backend name; give 1–128 of a-z, 0-9, '.', '/', '-' ` +
          `(a letter or digit at either end), not "${DEFAULT_ROUTE}"`,
      );
    }
    if (!isObject(entry)) {
      problems.push(
        `${path}: ${describe(entry)}; give {${BACKEND_KEYS.map((key) => `"${key}"`).join(", ")}}`,
      );
      continue;
    }
    unknownKeys(entry, path, BACKEND_KEYS, problems);
    const address = readAddress(entry.address, `${path}.address`, problems);
    const httpPort = readPort(entry.httpPort, `${path}.httpPort`, problems);
    const httpsPort = readPort(entry.httpsPort, `${path}.httpsPort`, problems);
    const proxyProtocol = entry.proxyProtocol;
    if (proxyProtocol !== "v1" && proxyProtocol !== "v2") {
      problems.push(`${path}.proxyProtocol: ${describe(proxyProtocol)}; give "v1" or "v2"`);
    } else if (
      address !== undefined && httpPort !== undefined && httpsPort !== undefined && problems.length === before
    ) {
      backends.set(name, { address, httpPort, httpsPort, proxyProtocol });
    }
  }
  return { backends, names };
}

function readAddress(value: unknown, path: string, problems: string[]): string | undefined {
  const accepted = "give a Service's ClusterIP or a DNS name such as web.ns.svc.cluster.local";
  let problem: string | undefined;
  if (typeof value !== "string") problem = `${describe(value)}; ${accepted}`;
  else {
    const ip = parseIp(value);
    const canonical = ip === undefined ? undefined : formatIp(ip);
    const nameProblem = ip === undefined ? backendNameProblem(value) : undefined;
    if (canonical !== undefined && canonical !== value) {
      problem = `${JSON.stringify(value)} is not canonical; write "${canonical}"`;
    } else if (nameProblem !== undefined) problem = `${JSON.stringify(value)} ${nameProblem}; ${accepted}`;
    else return value;
  }
  problems.push(`${path}: ${problem}`);
  return undefined;
}

function readPort(value: unknown, path: string, problems: string[]): number | undefined {
  if (typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= 65535) return value;
  problems.push(`${path}: ${describe(value)} is not a port; give an integer from 1 to 65535`);
  return undefined;
}

function readRoutes(value: unknown, names: Set<string> | undefined, problems: string[]): Route[] {
  if (!Array.isArray(value)) {
    problems.push(`$.routes: ${describe(value)}; give a list of {"host", "backend"} objects`);
    return [];
  }
  const routes: Route[] = [];
  const firstPath = new Map<string, string>();
  value.forEach((entry: unknown, index) => {
    const path = `$.routes[${index}]`;
    if (!isObject(entry)) {
      problems.push(`${path}: ${describe(entry)}; give {"host": "app.example.com", "backend": "<name>"}`);
      return;
    }
    unknownKeys(entry, path, ["host", "backend"], problems);
    const { host, backend } = entry;
    if (typeof host !== "string") {
      problems.push(`${path}.host: ${describe(host)}; give a hostname or a *.<domain> wildcard`);
    } else {
      const earlier = firstPath.get(host);
      const problem = routeHostProblem(host) ??
        (earlier === undefined ? undefined : `is routed already by ${earlier}; give each host once`);
      if (problem !== undefined) problems.push(`${path}.host: ${JSON.stringify(host)} ${problem}`);
      firstPath.set(host, earlier ?? path);
    }
    if (typeof backend !== "string") {
      problems.push(`${path}.backend: ${describe(backend)}; give the name of one of $.backends`);
    } else if (names?.has(backend) === false) {
      const quoted = JSON.stringify(backend);
      problems.push(`${path}.backend: ${quoted} is not in $.backends; give the name of one of its backends`);
    }
    if (typeof host === "string" && typeof backend === "string") routes.push({ host, backend });
  });
  return routes;
}

function unknownKeys(
  object: Record<string, unknown>,
  path: string,
  known: readonly string[],
  problems: string[],
): void {
  for (const key of Object.keys(object)) {
    if (!known.includes(key)) {
      problems.push(`${path}.${key}: not a key of this table; give only ${known.join(", ")}`);
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value in a problem: `missing`, or its JSON cut to 60 characters. */
function describe(value: unknown): string {
  if (value === undefined) return "missing";
  const json = JSON.stringify(value);
  return json.length > 60 ? `${json.slice(0, 57)}...` : json;
}

/** Code-unit order, the same on every machine and locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
