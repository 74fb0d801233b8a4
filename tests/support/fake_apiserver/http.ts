/**
 * The fake API server's request handler: authentication (who the user is, `identity.ts`),
 * partitions (`partition.ts`), content negotiation, fault injection, the audit log, and the REST
 * verbs on discovery, collections, objects and subresources (PATCH in `patch.ts`; every write
 * records its field manager, `managed_fields.ts`; a pod's `proxy` in `pod_proxy.ts`), with every
 * failure answered as a `Status`.
 *
 * Watches that ask for a resourceVersion older than the retained history get HTTP 410 at
 * request time (see `mod.ts` for the rule); an in-stream `ERROR` event comes from the
 * `watch-error-event` fault.
 *
 * @module
 */

import { apiGroupDocument, apiGroupList, apiResourceList, apiVersions, VERSION_INFO } from "./discovery.ts";
import type { Fault, FaultPlan } from "./faults.ts";
import type { Authenticator } from "./identity.ts";
import { isJsonMap, type Json, type JsonMap, parseJsonObject } from "./json.ts";
import { groupVersion, type KindInfo } from "./kinds.ts";
import { decodeContinue, encodeContinue, page, type SnapshotCache } from "./paging.ts";
import {
  checkPatchPreconditions,
  patchFunction,
  patchObject,
  type PatchRequest,
  recordedBy,
  writerOf,
} from "./patch.ts";
import { isWatchQuery, parseRoute, type Route, verbOf } from "./routes.ts";
import type { PartitionTable } from "./partition.ts";
import { acceptsJson, failure, json, raw, type Reply, toResponse } from "./reply.ts";
import { parseFieldSelector, parseLabelSelector } from "./selectors.ts";
import {
  badRequest,
  continueExpired,
  FakeApiError,
  methodNotAllowed,
  notFound,
  pathNotFound,
  statusBody,
} from "./status.ts";
import {
  type Filter,
  type KindStore,
  type ManagedFieldsHook,
  Store,
  type StoredObject,
  type StoreEvent,
} from "./store.ts";
import { replicasOf, scaleOf, withReplicas } from "./subresources.ts";
import { proxyToPod } from "./pod_proxy.ts";
import { ResponseStream, WatchSession } from "./watch.ts";

/** One request as the audit log records it. */
export interface AuditEntry {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  /** The HTTP status answered; 0 when the request was never answered (blackholed). */
  readonly status: number;
  readonly watch: boolean;
  /** `Date.now()` when the request arrived (for a held read served after a partition: when it was served). */
  readonly at: number;
  readonly userAgent: string;
  /** Who sent it: the user of its bearer token; `""` when authentication is off or the request was refused. */
  readonly user: string;
}

/** What the handler needs from the server around it. */
export interface HandlerContext {
  readonly store: Store;
  readonly faults: FaultPlan;
  readonly snapshots: SnapshotCache<StoredObject>;
  readonly bookmarkIntervalMs: number;
  /** Compaction epoch, for continue tokens. */
  epoch(): number;
  /** `127.0.0.1:port`, for `/api`'s serverAddressByClientCIDRs. */
  serverAddress(): string;
  /** Aborted when the server stops or closes: blackholes and delays give up then. */
  closing(): AbortSignal;
  /** Records a request. */
  audit(entry: AuditEntry): void;
  /** Registers an open streaming body so stop/close/dropWatches reach it; returns the unregister function. */
  trackStream(stream: ResponseStream): () => void;
  /** Registers an open watch. */
  trackWatch(session: WatchSession): () => void;
}

/** What the handler needs from the server: the above, with streams registered under their user. */
export interface ServerContext extends Omit<HandlerContext, "trackStream" | "trackWatch"> {
  /** Who holds the tokens. */
  readonly authenticator: Authenticator;
  /** Who is cut off. */
  readonly partitions: PartitionTable;
  /** Registers an open streaming body of `user`'s; returns the unregister function. */
  trackStream(stream: ResponseStream, user: string): () => void;
  /** Registers an open watch of `user`'s. */
  trackWatch(session: WatchSession, user: string): () => void;
}

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function until(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

function queryRecord(query: URLSearchParams): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [key, value] of query) record[key] = value;
  return record;
}

/** Handles one HTTP request. */
export async function handle(request: Request, server: ServerContext): Promise<Response> {
  let at = Date.now();
  const url = new URL(request.url);
  const query = url.searchParams;
  const { store } = server;
  const user = server.authenticator.authenticate(request.headers.get("authorization"));
  const route = parseRoute(url.pathname, (group, version, plural) => {
    return store.byResource(group, version, plural)?.info.namespaced === true;
  });
  const watch = request.method === "GET" && route.type === "resource" &&
    (isWatchQuery(query) || route.legacyWatch);
  const record = (status: number) =>
    server.audit({
      method: request.method,
      path: url.pathname,
      query: queryRecord(query),
      status,
      watch,
      at,
      userAgent: request.headers.get("user-agent") ?? "",
      user: user ?? "",
    });
  const finish = (reply: Reply): Response => {
    record(reply.status);
    return toResponse(reply);
  };

  if (user === undefined) return finish(failure(statusBody(401, "Unauthorized", "Unauthorized")));
  /** While `user` is cut off: held, then served late (a healed read) or released by the server stopping. */
  const partitioned = async (): Promise<Response | undefined> => {
    if (!server.partitions.isCut(user)) return undefined;
    record(0);
    if (!(await server.partitions.hold(user, { method: request.method, signal: server.closing() }))) {
      return new Response(null, { status: 503 });
    }
    at = Date.now(); // healed: the network delivers the read now
    return undefined;
  };
  const cut = await partitioned();
  if (cut !== undefined) return cut;
  const context: HandlerContext = {
    ...server,
    trackStream: (stream) => server.trackStream(stream, user),
    trackWatch: (session) => server.trackWatch(session, user),
  };

  const fault = context.faults.take(verbOf(request.method, route, watch), { path: url.pathname, user });
  // Held requests end when the server stops or closes. (Deno's request.signal is not used: it
  // also fires after a successful response, and warns about that.)
  if (fault?.type === "blackhole") {
    record(0);
    await until(context.closing());
    return new Response(null, { status: 503 });
  }
  if (fault?.type === "delay") {
    if (!(await sleep(fault.ms, context.closing()))) {
      return finish(failure(statusBody(503, "ServiceUnavailable", "the server is shutting down")));
    }
    const cutWhileDelayed = await partitioned();
    if (cutWhileDelayed !== undefined) return cutWhileDelayed;
  }
  if (fault !== undefined) {
    const early = faultReply(fault, watch, context);
    if (early !== undefined) return finish(early);
  }

  let reply: Reply;
  try {
    if (route.type === "resource" && route.subresource === "proxy" && route.plural === "pods" && !watch) {
      reply = await proxyToPod(store, {
        method: request.method,
        namespace: route.namespace ?? "",
        target: route.name ?? "",
        path: route.proxyPath ?? "/",
        query,
        closing: context.closing(),
      });
    } else if (
      route.type !== "health" && route.type !== "unknown" && !acceptsJson(request.headers.get("accept"))
    ) {
      reply = failure(
        statusBody(406, "NotAcceptable", "only the following media types are accepted: application/json", {}),
      );
    } else {
      const body = request.method === "POST" || request.method === "PUT" || request.method === "PATCH" ||
          request.method === "DELETE"
        ? await request.text()
        : "";
      reply = dispatch(request, route, query, body, watch, context, fault);
    }
  } catch (error) {
    reply = error instanceof FakeApiError
      ? failure(error.body)
      : failure(statusBody(500, "InternalError", `Internal error occurred: ${String(error)}`));
  }
  if (fault !== undefined && reply.type !== "stream") reply = spoil(fault, reply);
  return finish(reply);
}

/** Faults answered before the request is looked at. */
function faultReply(fault: Fault, watch: boolean, context: HandlerContext): Reply | undefined {
  switch (fault.type) {
    case "status": {
      const details = {
        ...(fault.causes === undefined ? {} : { causes: fault.causes.map((reason) => ({ reason })) }),
        ...(fault.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: fault.retryAfterSeconds }),
      };
      return failure(
        statusBody(fault.code, fault.reason, fault.message ?? `injected ${fault.reason}`, details),
        fault.retryAfterSeconds,
      );
    }
    case "watch-error-event": {
      const status = statusBody(fault.code, fault.reason, `injected ${fault.reason}`);
      if (!watch) return failure(status);
      const stream = openStream(context);
      stream.write(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
      stream.end();
      return { type: "stream", status: 200, stream };
    }
    case "close-immediately": {
      if (!watch) return raw(200, "");
      const stream = openStream(context);
      stream.end();
      return { type: "stream", status: 200, stream };
    }
    case "stall": {
      const stream = openStream(context);
      stream.stall();
      return { type: "stream", status: 200, stream };
    }
    case "malformed-line":
      return watch ? undefined : raw(200, "this is not JSON {\n");
    default:
      return undefined;
  }
}

/** Faults that damage an answer already computed (non-watch requests). */
function spoil(fault: Fault, reply: Reply): Reply {
  if (fault.type === "cut-mid-json" && reply.type === "json") {
    return { ...reply, text: reply.text.slice(0, Math.floor(reply.text.length / 2)) };
  }
  return reply;
}

function openStream(context: HandlerContext): ResponseStream {
  let untrack: () => void = () => {};
  const stream = new ResponseStream(() => untrack());
  untrack = context.trackStream(stream);
  return stream;
}

function dispatch(
  request: Request,
  route: Route,
  query: URLSearchParams,
  body: string,
  watch: boolean,
  context: HandlerContext,
  fault: Fault | undefined,
): Reply {
  const { store } = context;
  const kinds = store.kinds().map((kind) => kind.info);
  if (route.type !== "resource" && route.type !== "unknown" && request.method !== "GET") {
    throw methodNotAllowed();
  }
  switch (route.type) {
    case "version":
      return json(200, VERSION_INFO);
    case "health":
      return { type: "text", status: 200, text: "ok" };
    case "api":
      return json(200, apiVersions(kinds, context.serverAddress()));
    case "apis":
      return json(200, apiGroupList(kinds));
    case "group": {
      const document = apiGroupDocument(kinds, route.group);
      if (document === undefined) throw pathNotFound();
      return json(200, document);
    }
    case "resources": {
      const document = apiResourceList(kinds, route.group, route.version);
      if (document === undefined) throw pathNotFound();
      return json(200, document);
    }
    case "unknown":
      throw pathNotFound();
    case "resource":
      return resource(request, route, query, body, watch, context, fault);
  }
}

type ResourceRoute = Extract<Route, { type: "resource" }>;

function requireJson(request: Request): void {
  const type = (request.headers.get("content-type") ?? "application/json").split(";")[0]!.trim()
    .toLowerCase();
  if (type !== "application/json" && type !== "" && type !== "*/*") {
    throw new FakeApiError(
      statusBody(
        415,
        "UnsupportedMediaType",
        `the body of the request was in an unknown format - accepted media types include: application/json`,
        {},
      ),
    );
  }
}

function filterOf(query: URLSearchParams, namespace: string | undefined, name?: string): Filter {
  const labels = parseLabelSelector(query.get("labelSelector") ?? "");
  if (!labels.ok) throw badRequest(labels.reason);
  const fields = parseFieldSelector(query.get("fieldSelector") ?? "");
  if (!fields.ok) throw badRequest(fields.reason);
  const fieldRequirements = name === undefined
    ? fields.value
    : [...fields.value, { field: "metadata.name" as const, op: "=" as const, value: name }];
  return {
    ...(namespace === undefined ? {} : { namespace }),
    labels: labels.value,
    fields: fieldRequirements,
  };
}

function parseResourceVersion(text: string): number {
  if (!/^\d+$/.test(text)) throw badRequest(`invalid resource version: "${text}"`);
  return Number(text);
}

function isDryRun(query: URLSearchParams): boolean {
  return query.getAll("dryRun").includes("All");
}

function resource(
  request: Request,
  route: ResourceRoute,
  query: URLSearchParams,
  body: string,
  watch: boolean,
  context: HandlerContext,
  fault: Fault | undefined,
): Reply {
  const kind = context.store.byResource(route.group, route.version, route.plural);
  if (kind === undefined) throw pathNotFound();
  const { info } = kind;
  if (info.namespaced && route.name !== undefined && route.namespace === undefined) throw pathNotFound();
  if (watch) {
    if (route.subresource !== undefined) throw pathNotFound();
    return startWatch(kind, route, query, context, fault);
  }
  if (route.subresource !== undefined) return subresource(request, kind, route, query, body, context);
  const namespace = route.namespace ?? "";
  const { store } = context;
  const dryRun = isDryRun(query);
  if (route.name === undefined) {
    switch (request.method) {
      case "GET":
        return list(kind, route, query, context);
      case "POST": {
        if (info.namespaced && route.namespace === undefined) throw methodNotAllowed();
        requireJson(request);
        const created = store.create(kind, namespace, parseJsonObject(body), {
          dryRun,
          ...recorder(request, query, info),
        });
        return raw(201, created.json);
      }
      case "DELETE": {
        if (info.namespaced && route.namespace === undefined) throw methodNotAllowed();
        const snapshot = store.snapshot(kind, filterOf(query, route.namespace));
        const deleted = snapshot.items.map((item) =>
          store.remove(kind, item.namespace, item.name, {}, { dryRun })
        );
        return raw(200, listText(info, store.resourceVersion, deleted, undefined, undefined));
      }
      default:
        throw methodNotAllowed();
    }
  }
  const name = route.name;
  switch (request.method) {
    case "GET": {
      const found = store.get(kind, namespace, name);
      if (found === undefined) throw notFound(info, name);
      return raw(200, found.json);
    }
    case "PUT": {
      requireJson(request);
      const parsed = parseJsonObject(body);
      if (info.createOnUpdate && store.get(kind, namespace, name) === undefined) {
        const created = store.create(kind, namespace, createdByPut(parsed, name), {
          dryRun,
          ...recorder(request, query, info),
        });
        return raw(201, created.json);
      }
      return raw(
        200,
        store.update(kind, namespace, name, parsed, { dryRun, ...recorder(request, query, info) }).json,
      );
    }
    case "PATCH":
      return patchReply(request, { kind, namespace, name, body, query, dryRun }, context);
    case "DELETE": {
      const options = body.trim() === "" ? {} : parseJsonObject(body);
      const preconditions = isJsonMap(options.preconditions) ? options.preconditions : {};
      const deleted = store.remove(kind, namespace, name, {
        ...(typeof preconditions.resourceVersion === "string"
          ? { resourceVersion: preconditions.resourceVersion }
          : {}),
        ...(typeof preconditions.uid === "string" ? { uid: preconditions.uid } : {}),
      }, { dryRun: dryRun || (Array.isArray(options.dryRun) && options.dryRun.includes("All")) });
      return raw(200, deleted.json);
    }
    default:
      throw methodNotAllowed();
  }
}

/** The store option recording a write by the request's field manager (operation `Update`). */
function recorder(
  request: Request,
  query: URLSearchParams,
  info: KindInfo,
  subresource?: string,
): { managedFields: ManagedFieldsHook } {
  return {
    managedFields: recordedBy(info, writerOf(query, request.headers.get("user-agent") ?? "", subresource)),
  };
}

/** Answers a PATCH (`patch.ts`): 201 when an apply created the object, else 200. */
function patchReply(
  request: Request,
  target: Omit<PatchRequest, "contentType" | "userAgent">,
  context: HandlerContext,
): Reply {
  const { stored, created } = patchObject(context.store, {
    ...target,
    contentType: request.headers.get("content-type"),
    userAgent: request.headers.get("user-agent") ?? "",
  });
  return raw(created ? 201 : 200, stored.json);
}

/** A PUT that creates (a Lease): the name comes from the URL, a resourceVersion is no precondition. */
function createdByPut(body: JsonMap, name: string): JsonMap {
  const metadata = isJsonMap(body.metadata) ? { ...body.metadata } : {};
  if (metadata.name !== undefined && metadata.name !== name) {
    throw badRequest(
      `the name of the object (${String(metadata.name)}) does not match the name on the URL (${name})`,
    );
  }
  delete metadata.resourceVersion;
  return { ...body, metadata: { ...metadata, name } };
}

function subresource(
  request: Request,
  kind: KindStore,
  route: ResourceRoute,
  query: URLSearchParams,
  body: string,
  context: HandlerContext,
): Reply {
  const { info } = kind;
  const { store } = context;
  const name = route.name!;
  const namespace = route.namespace ?? "";
  const dryRun = isDryRun(query);
  const existing = store.get(kind, namespace, name);
  if (route.subresource === "status" && info.statusSubresource) {
    switch (request.method) {
      case "GET":
        if (existing === undefined) throw notFound(info, name);
        return raw(200, existing.json);
      case "PUT":
        requireJson(request);
        return raw(
          200,
          store.update(kind, namespace, name, parseJsonObject(body), {
            dryRun,
            subresource: "status",
            ...recorder(request, query, info, "status"),
          }).json,
        );
      case "PATCH":
        return patchReply(
          request,
          { kind, namespace, name, body, query, dryRun, subresource: "status" },
          context,
        );
      default:
        throw methodNotAllowed();
    }
  }
  if (route.subresource === "scale" && info.scaleSubresource) {
    if (existing === undefined) throw notFound(info, name);
    let scale: Json;
    switch (request.method) {
      case "GET":
        return json(200, scaleOf(existing));
      case "PUT":
        requireJson(request);
        scale = parseJsonObject(body);
        break;
      case "PATCH": {
        const patchBody = parseJsonObject(body);
        checkPatchPreconditions(info, name, existing, patchBody);
        scale = patchFunction(request.headers.get("content-type"))(scaleOf(existing), patchBody);
        break;
      }
      default:
        throw methodNotAllowed();
    }
    const replicas = replicasOf(scale);
    if (typeof replicas === "string") throw badRequest(replicas);
    const rv = isJsonMap(scale) && isJsonMap(scale.metadata) ? scale.metadata.resourceVersion : undefined;
    const updated = store.update(kind, namespace, name, withReplicas(existing, replicas, rv), {
      dryRun,
      patch: true,
      ...recorder(request, query, info, "scale"),
    });
    return json(200, scaleOf(updated));
  }
  throw pathNotFound();
}

function listText(
  info: KindInfo,
  rv: number,
  items: readonly StoredObject[],
  next: string | undefined,
  remaining: number | undefined,
): string {
  const metadata: Record<string, string | number> = { resourceVersion: String(rv) };
  if (next !== undefined) metadata.continue = next;
  if (remaining !== undefined && remaining > 0) metadata.remainingItemCount = remaining;
  let text = `{"kind":"${info.kind}List","apiVersion":"${groupVersion(info)}","metadata":${
    JSON.stringify(metadata)
  },"items":[`;
  for (let i = 0; i < items.length; i++) {
    if (i > 0) text += ",";
    text += items[i]!.json;
  }
  return text + "]}";
}

function list(kind: KindStore, route: ResourceRoute, query: URLSearchParams, context: HandlerContext): Reply {
  const { store, snapshots } = context;
  const filter = filterOf(query, route.namespace);
  const limitText = query.get("limit");
  const limit = limitText !== null && /^\d+$/.test(limitText) && Number(limitText) > 0
    ? Number(limitText)
    : undefined;
  const cacheKey = (rv: number) =>
    [
      groupVersion(kind.info),
      kind.info.plural,
      rv,
      route.namespace ?? "",
      query.get("labelSelector") ?? "",
      query.get("fieldSelector") ?? "",
    ].join("|");
  const continueText = query.get("continue");
  let rv: number;
  let items: readonly StoredObject[];
  let offset = 0;
  if (continueText !== null && continueText !== "") {
    const token = decodeContinue(continueText);
    if (token.epoch !== context.epoch() || token.rv < kind.floor) throw continueExpired();
    rv = token.rv;
    offset = token.offset;
    const cached = snapshots.get(cacheKey(rv));
    if (cached !== undefined) items = cached;
    else items = store.snapshot(kind, filter, rv).items;
  } else {
    const rvText = query.get("resourceVersion") ?? "";
    const match = query.get("resourceVersionMatch") ?? "";
    if (match !== "" && rvText === "") {
      throw badRequest("resourceVersionMatch is forbidden unless resourceVersion is provided");
    }
    if (match !== "" && match !== "Exact" && match !== "NotOlderThan") {
      throw badRequest(
        `resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`,
      );
    }
    let at: number | undefined;
    if (rvText !== "" && rvText !== "0") {
      const requested = parseResourceVersion(rvText);
      if (match === "Exact") at = requested;
      else if (requested > store.resourceVersion) at = requested; // 504 Too large resource version
    }
    const snapshot = store.snapshot(kind, filter, at);
    rv = snapshot.rv;
    items = snapshot.items;
  }
  const selected = page(items, offset, limit);
  let next: string | undefined;
  if (selected.next !== undefined) {
    next = encodeContinue({ rv, offset: selected.next, epoch: context.epoch() });
    snapshots.set(cacheKey(rv), items);
  }
  const unfiltered = (filter.labels?.length ?? 0) === 0 && (filter.fields?.length ?? 0) === 0;
  return raw(200, listText(kind.info, rv, selected.items, next, unfiltered ? selected.remaining : undefined));
}

function startWatch(
  kind: KindStore,
  route: ResourceRoute,
  query: URLSearchParams,
  context: HandlerContext,
  fault: Fault | undefined,
): Reply {
  const { store } = context;
  const filter = filterOf(query, route.namespace, route.name);
  const rvText = query.get("resourceVersion") ?? "";
  const sendInitialEvents = query.get("sendInitialEvents");
  let replay: readonly StoreEvent[];
  if (sendInitialEvents === "true" || (sendInitialEvents !== "false" && (rvText === "" || rvText === "0"))) {
    replay = store.snapshot(kind, filter).items.map((object) => Store.added(object));
  } else if (rvText === "" || rvText === "0") {
    replay = [];
  } else {
    replay = store.replayAfter(kind, parseResourceVersion(rvText));
  }
  const timeoutText = query.get("timeoutSeconds");
  const timeoutSeconds = timeoutText !== null && /^\d+$/.test(timeoutText) ? Number(timeoutText) : 0;
  let untrack: () => void = () => {};
  const session = new WatchSession(store, kind, {
    filter,
    replay,
    before: fault?.type === "malformed-line" ? "this is not JSON {\n" : undefined,
    bookmarks: query.get("allowWatchBookmarks") === "true",
    bookmarkIntervalMs: context.bookmarkIntervalMs,
    initialEventsEnd: sendInitialEvents === "true",
    timeoutMs: timeoutSeconds > 0 ? timeoutSeconds * 1000 : undefined,
  }, () => untrack());
  untrack = context.trackWatch(session);
  if (fault?.type === "cut-mid-json") session.stream.cutNext();
  return { type: "stream", status: 200, stream: session.stream };
}
