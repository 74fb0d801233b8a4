/**
 * Turns a request path into what it addresses: a discovery document, `/version`, or a resource
 * collection, object or subresource (`/api/v1/namespaces/x/configmaps/y`,
 * `/apis/apps/v1/namespaces/x/deployments/y/scale`, `/api/v1/namespaces/x/pods/y:8081/proxy/readyz`,
 * the legacy `/…/watch/…` form), and the
 * verb used to match faults.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Verb } from "./faults.ts";

/** What a path addresses. */
export type Route =
  | { readonly type: "version" }
  | { readonly type: "health" }
  | { readonly type: "api" }
  | { readonly type: "apis" }
  | { readonly type: "group"; readonly group: string }
  | { readonly type: "resources"; readonly group: string; readonly version: string }
  | {
    readonly type: "resource";
    readonly group: string;
    readonly version: string;
    readonly plural: string;
    /** Set for `/namespaces/<ns>/…` paths. */
    readonly namespace: string | undefined;
    readonly name: string | undefined;
    readonly subresource: string | undefined;
    /** The deprecated `/watch/` path prefix. */
    readonly legacyWatch: boolean;
    /** For the `proxy` subresource: the path behind it (`/readyz`), `/` when none. */
    readonly proxyPath?: string;
  }
  | { readonly type: "unknown" };

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * Parses `pathname`. `namespacedPlural(group, version, plural)` tells whether `plural` is a
 * namespaced resource there, to tell `/api/v1/namespaces/x/configmaps` (a collection in
 * namespace x) from `/api/v1/namespaces/x/status` (namespace x's status).
 */
export function parseRoute(
  pathname: string,
  namespacedPlural: (group: string, version: string, plural: string) => boolean,
): Route {
  const raw = pathname.split("/").filter((segment) => segment !== "");
  const segments: string[] = [];
  for (const segment of raw) {
    const decoded = decode(segment);
    if (decoded === undefined) return { type: "unknown" };
    segments.push(decoded);
  }
  const [root, ...rest] = segments;
  if (root === "version" && rest.length === 0) return { type: "version" };
  if ((root === "healthz" || root === "readyz" || root === "livez") && rest.length === 0) {
    return { type: "health" };
  }
  let group: string;
  let version: string | undefined;
  let tail: string[];
  if (root === "api") {
    if (rest.length === 0) return { type: "api" };
    group = "";
    version = rest[0];
    tail = rest.slice(1);
  } else if (root === "apis") {
    if (rest.length === 0) return { type: "apis" };
    group = rest[0]!;
    if (rest.length === 1) return { type: "group", group };
    version = rest[1];
    tail = rest.slice(2);
  } else {
    return { type: "unknown" };
  }
  if (version === undefined) return { type: "unknown" };
  if (tail.length === 0) return { type: "resources", group, version };
  let legacyWatch = false;
  if (tail[0] === "watch") {
    legacyWatch = true;
    tail = tail.slice(1);
  }
  let namespace: string | undefined;
  if (tail[0] === "namespaces" && tail.length >= 3 && namespacedPlural(group, version, tail[2]!)) {
    namespace = tail[1];
    tail = tail.slice(2);
  }
  let proxyPath: string | undefined;
  if (tail.length > 3 && tail[2] === "proxy") {
    proxyPath = `/${tail.slice(3).join("/")}`;
    tail = tail.slice(0, 3);
  }
  if (tail.length === 0 || tail.length > 3) return { type: "unknown" };
  return {
    type: "resource",
    group,
    version,
    plural: tail[0]!,
    namespace,
    name: tail[1],
    subresource: tail[2],
    legacyWatch,
    ...(proxyPath === undefined ? {} : { proxyPath }),
  };
}

/** The verb a request counts as, for fault matching and the audit log. */
export function verbOf(method: string, route: Route, watch: boolean): Verb {
  if (route.type === "unknown") return "other";
  if (route.type !== "resource") return method === "GET" ? "discovery" : "other";
  const named = route.name !== undefined;
  switch (method) {
    case "GET":
      if (watch || route.legacyWatch) return "watch";
      return named ? "get" : "list";
    case "POST":
      return named ? "other" : "create";
    case "PUT":
      return named ? "update" : "other";
    case "PATCH":
      return named ? "patch" : "other";
    case "DELETE":
      return named ? "delete" : "deletecollection";
    default:
      return "other";
  }
}

/** Whether the query asks for a watch (`watch=true` or `watch=1`). */
export function isWatchQuery(query: URLSearchParams): boolean {
  const value = query.get("watch");
  return value === "true" || value === "1";
}
