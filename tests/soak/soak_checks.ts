/**
 * The soak's judges: read what the cluster holds and say how it differs from what it should hold.
 * Each returns problems as sentences naming the objects involved; an empty list is a pass.
 *
 * Decisions a reader could not guess:
 * - The Corefile block is read with a parser of its own (two line shapes: `rewrite name <host>
 *   <fqdn>` and the one-label wildcard `regex`), not ouroboros's, so a wrong rule is seen.
 * - There is one single-writer judge, `tests/real/single_writer.ts`'s, over the apiserver's own
 *   record of requests in the real audit log's shape ({@linkcode AuditedRequest}); the in-memory
 *   server's audit entries are mapped to that shape ({@linkcode auditedFromFake}) so both backends
 *   feed it. The fake records arrival in milliseconds and appends in the order it applied
 *   requests, so the mapping makes that order the timestamps' microseconds.
 *
 * Pure: texts and audit entries in, problems out.
 *
 * @module
 */

import type { AuditEntry } from "../support/fake_apiserver/mod.ts";
import type { AuditedRequest } from "../real/rbac_usage.ts";
import type { SingleWriterRules } from "../real/single_writer.ts";

const BEGIN = "# === BEGIN ouroboros (do not edit by hand) ===";
const END = "# === END ouroboros ===";
const WILDCARD_HEAD = "^[^.]+\\.";
const WILDCARD_TAIL = "\\.$";

/** A Corefile split into our block's hostnames and everything around it. */
export interface ReadCorefile {
  /** The hostnames, in stored order; `undefined` without a block. */
  readonly hosts: readonly string[] | undefined;
  /** Block lines that are neither rule shape. */
  readonly foreign: readonly string[];
  /** The text with the block (markers included) taken out. */
  readonly outside: string;
}

/** Reads `corefile` as ouroboros's block and the rest; rules must point at `fqdn`. */
export function readCorefile(corefile: string, fqdn: string): ReadCorefile {
  const lines = corefile.split("\n");
  const begin = lines.findIndex((line) => line.trim() === BEGIN);
  const end = lines.findIndex((line) => line.trim() === END);
  if (begin < 0 || end < begin) return { hosts: undefined, foreign: [], outside: corefile };
  const hosts: string[] = [];
  const foreign: string[] = [];
  for (const line of lines.slice(begin + 1, end)) {
    const words = line.trim().split(/\s+/);
    if (words.length === 4 && words[0] === "rewrite" && words[1] === "name" && words[3] === fqdn) {
      hosts.push(words[2]!);
    } else if (
      words.length === 7 && words[0] === "rewrite" && words[1] === "name" && words[2] === "regex" &&
      words[4] === fqdn && words[5] === "answer" && words[6] === "auto" &&
      words[3]!.startsWith(WILDCARD_HEAD) && words[3]!.endsWith(WILDCARD_TAIL)
    ) {
      hosts.push(`*.${words[3]!.slice(WILDCARD_HEAD.length, -WILDCARD_TAIL.length).replaceAll("\\.", ".")}`);
    } else foreign.push(line);
  }
  return { hosts, foreign, outside: [...lines.slice(0, begin), ...lines.slice(end + 1)].join("\n") };
}

/** What `actual` lacks of `expected`, and what it has besides, as one sentence each; `[]` when equal. */
export function setDifference(
  what: string,
  expected: readonly string[],
  actual: readonly string[],
): string[] {
  const want = new Set(expected);
  const have = new Set(actual);
  const missing = [...want].filter((item) => !have.has(item)).sort();
  const extra = [...have].filter((item) => !want.has(item)).sort();
  const problems: string[] = [];
  if (missing.length > 0) problems.push(`${what} lacks ${missing.join(", ")}`);
  if (extra.length > 0) problems.push(`${what} holds ${extra.join(", ")}, which it should not`);
  return problems;
}

/** The request's verb as the apiserver's audit log names it. */
function verbOf(entry: AuditEntry, name: string | undefined): string {
  switch (entry.method) {
    case "GET":
      return entry.watch ? "watch" : name === undefined ? "list" : "get";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return name === undefined ? "deletecollection" : "delete";
    default:
      return entry.method.toLowerCase();
  }
}

/** `/api/v1/…` or `/apis/<group>/<version>/…` split into group, namespace, resource, name, subresource. */
function objectRefOf(path: string): {
  apiGroup: string;
  namespace?: string;
  resource?: string;
  name?: string;
  subresource?: string;
} {
  const parts = path.split("/").filter((part) => part !== "");
  let rest: string[];
  let apiGroup: string;
  if (parts[0] === "api") {
    apiGroup = "";
    rest = parts.slice(2);
  } else if (parts[0] === "apis") {
    apiGroup = parts[1] ?? "";
    rest = parts.slice(3);
  } else return { apiGroup: "" };
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, subresource] = rest;
  return {
    apiGroup,
    ...(namespace === undefined ? {} : { namespace }),
    ...(resource === undefined ? {} : { resource }),
    ...(name === undefined ? {} : { name }),
    ...(subresource === undefined ? {} : { subresource }),
  };
}

/** Microseconds since the epoch as RFC 3339 with six fractional digits, as the audit log writes them. */
function microTime(micros: number): string {
  const millis = Math.floor(micros / 1000);
  return new Date(millis).toISOString().replace(
    /\.(\d{3})Z$/,
    (_, ms: string) => `.${ms}${String(micros % 1000).padStart(3, "0")}Z`,
  );
}

/**
 * The in-memory server's audit entries as the real audit log's requests: the user is also the
 * uid (each soak process is its own user there), a create's name is unknown (the fake records the
 * path only), and each entry's time is its arrival millisecond with its place in the log as the
 * microseconds, so the judge's time order is the order the fake applied them. Requests that are
 * not resource requests are left out, as `parseAuditLog` leaves them.
 */
export function auditedFromFake(entries: readonly AuditEntry[]): AuditedRequest[] {
  const requests: AuditedRequest[] = [];
  let last = 0;
  for (const entry of entries) {
    const ref = objectRefOf(entry.path);
    if (ref.resource === undefined) continue;
    const micros = Math.max(entry.at * 1000, last + 1);
    last = micros;
    const at = microTime(micros);
    const query = new URLSearchParams(entry.query as Record<string, string>).toString();
    requests.push({
      user: entry.user,
      uid: entry.user,
      verb: verbOf(entry, ref.name),
      apiGroup: ref.apiGroup,
      resource: ref.resource,
      ...(ref.subresource === undefined ? {} : { subresource: ref.subresource }),
      ...(ref.namespace === undefined ? {} : { namespace: ref.namespace }),
      ...(ref.name === undefined ? {} : { name: ref.name }),
      code: entry.status,
      requestURI: query === "" ? entry.path : `${entry.path}?${query}`,
      received: at,
      completed: at,
    });
  }
  return requests;
}

/** One replicated workload as the single-writer judge sees it. */
export interface SoakWriters {
  /** The workload, for the problem text. */
  readonly name: string;
  /** The replicas' uids in the audit record, each with its soak name. */
  readonly uids: ReadonlyMap<string, string>;
  readonly lease: { readonly namespace: string; readonly name: string };
  /** The guarded objects: a resource (core group) in a namespace. */
  readonly guarded: { readonly resource: string; readonly namespace: string };
}

const WRITE_VERBS = new Set(["create", "update", "patch", "delete", "deletecollection"]);

/**
 * The judge's rules for one workload: a guarded write is any write of a replica to the guarded
 * resource in its namespace; a Lease write is a replica's create or update of its Lease (a create
 * whose name the record lacks counts: the fake records a create's path only).
 */
export function soakWriterRules(writers: SoakWriters): SingleWriterRules {
  const own = (request: AuditedRequest) => writers.uids.has(request.uid);
  return {
    isGuardedWrite: (request) =>
      own(request) && WRITE_VERBS.has(request.verb) && request.apiGroup === "" &&
      request.resource === writers.guarded.resource && request.namespace === writers.guarded.namespace,
    isLeaseWrite: (request) =>
      own(request) && request.apiGroup === "coordination.k8s.io" && request.resource === "leases" &&
      request.namespace === writers.lease.namespace &&
      (request.name === writers.lease.name || (request.name === undefined && request.verb === "create")) &&
      (request.verb === "update" || request.verb === "create"),
  };
}
