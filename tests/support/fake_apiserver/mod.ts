/**
 * A faithful in-memory Kubernetes API server for tests, on `127.0.0.1` (port 0 by default),
 * speaking the real wire format. The real kubectl 1.35 and `@kubernetes/client-node` are driven
 * against it in `tests/fake_apiserver/`, which is what makes it trustworthy.
 *
 * Conventions it follows (as the real kube-apiserver does):
 * - Discovery in the legacy JSON form: `/version`, `/api`, `/apis`, `/apis/<g>`, `/api/v1`,
 *   `/apis/<g>/<v>` with verbs, short names (`cm`, `ing`, …), categories and subresources. A
 *   request that accepts only aggregated discovery (or only Tables or protobuf) gets 406, so
 *   clients fall back to plain JSON. `/openapi/*` is 404: run kubectl with `--validate=false`.
 * - One global integer resourceVersion (a string on the wire) bumped by every write; `uid`,
 *   `creationTimestamp`; `generation` only on kinds that keep one (Deployment, DaemonSet,
 *   ReplicaSet, EndpointSlice, Ingress, the Gateway API kinds, DNSEndpoint, par's Records), bumped when anything
 *   outside metadata and status changes.
 * - create → 201 (409 AlreadyExists); PUT with a stale resourceVersion → 409 Conflict ("the
 *   object has been modified; …"); PUT without one → last write wins for built-in kinds, 422 for
 *   custom resources (Gateway, HTTPRoute, DNSEndpoint, Records); an update that changes nothing is no
 *   write (no new resourceVersion, no event); kinds with a status subresource ignore `status` on
 *   the main resource. JSON merge patch (`application/merge-patch+json`), with
 *   `metadata.resourceVersion` in the patch as a precondition; strategic merge patch is
 *   approximated as merge patch (enough for `kubectl apply` of maps and scalars); server-side
 *   apply (`application/apply-patch+yaml`, `apply.ts`) creates or merges with field ownership and
 *   409 conflicts unless `force=true`; JSON patch is 415. Every HTTP write records its
 *   `fieldManager` (else its user agent's product name) in `metadata.managedFields` as the real
 *   server does (`managed_fields.ts`; lists are atomic there, see `field_set.ts`); direct writes
 *   through this object keep whatever `managedFields` they are given. DELETE → 200
 *   with the object and a DELETED event; collection DELETE honours selectors. Deployments and
 *   ReplicaSets have `/scale` (`autoscaling/v1 Scale`: GET, PUT, PATCH). Namespaces are not enforced: objects may
 *   be created in a namespace that does not exist, and deleting one does not cascade.
 * - Lists: label selectors (`=`, `==`, `!=`, `in`, `notin`, exists, `!key`), field selectors on
 *   `metadata.name`/`metadata.namespace`, `limit`/`continue` paging where every page shows the
 *   snapshot of the first and carries its resourceVersion. `resourceVersion` absent or `"0"`:
 *   the current state; `N` (NotOlderThan): the current state, or 504 `ResourceVersionTooLarge`
 *   if N is in the future; `resourceVersionMatch=Exact`: the state at N, rebuilt from history.
 * - Watches (`?watch=true`): newline-delimited JSON events, chunked, `application/json`;
 *   `resourceVersion` absent or `"0"` first sends the current objects as ADDED; `N` replays
 *   history after N, then live events; `timeoutSeconds` ends the stream cleanly;
 *   `allowWatchBookmarks=true` gets a BOOKMARK every `bookmarkIntervalMs` carrying only kind,
 *   apiVersion and `metadata.resourceVersion`; `sendInitialEvents=true` ends the initial state
 *   with a bookmark annotated `k8s.io/initial-events-end`. With a selector, an object that
 *   starts matching arrives as ADDED and one that stops matching as DELETED.
 * - Errors are always `Status` bodies: `{"kind":"Status","apiVersion":"v1","status":"Failure",
 *   "message","reason","code","details"}`. A ConfigMap whose data and binaryData exceed 1 MiB
 *   is 422 Invalid; so is a name that is not a DNS subdomain (DNS label for Namespaces/Services).
 * - Leases (`coordination.k8s.io/v1`, see `lease.ts`): a PUT must carry `metadata.resourceVersion`
 *   (422 without, 409 Conflict when stale), a PUT to a missing Lease creates it (201), and of
 *   two concurrent creates exactly one is 201 and the other 409 AlreadyExists (requests are
 *   handled one at a time against the store). `acquireTime`/`renewTime` must be MicroTimes with
 *   exactly six fractional digits (400 otherwise, as the real server's Go parser insists) and
 *   come back in UTC, so `2026-12-03T13:37:03.123456Z` round-trips unchanged; the other spec
 *   fields are typed (400) and validated (422) as the real server does.
 *
 * **Who is asking.** With `token` and/or `users` set, every request must carry one of those
 * bearer tokens (else 401 with the real server's bare `Unauthorized` Status); `users` maps each
 * token to a user name, `token`'s user is {@linkcode TOKEN_USER}. The audit log records each
 * request's `user` (`""` with authentication off or when refused), `faults.inject(…, { user })`
 * aims a fault at one client, and `partition(user)` cuts one client off: its requests are taken
 * and never answered (status 0 in the audit log), its open watches break at once, other users
 * are unaffected; `heal(user)` serves its held reads late and loses its held writes. A hang, not
 * a dropped connection, because that is what a partition looks like to a client: nothing comes
 * back, and only the client's own deadline ends the request (`partition.ts` says more).
 *
 * **The 410 rule.** Each resource type keeps its last `historyLimit` events. A watch (or an
 * `Exact` list, or a continue token) may start from resourceVersion N only if every event after
 * N is still kept, that is N ≥ the type's floor (the newest forgotten event, or the
 * resourceVersion at the last `compact()`). Otherwise the request itself is answered with HTTP
 * 410 `Expired` ("too old resource version: N (floor)"), never with a 200 stream; the in-stream
 * `ERROR` 410 event is produced on demand by the `watch-error-event` fault. `compact()` also
 * expires every continue token issued before it, whatever its resourceVersion.
 *
 * Faults (see {@linkcode FaultControls}) script the next requests of a verb; `stop()` refuses
 * connections until `restart()`; the audit log records every request.
 *
 * @example
 * ```ts
 * await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
 * server.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "x" }, data: {} });
 * server.faults.inject("watch", { type: "status", code: 410, reason: "Expired" });
 * ```
 *
 * @example Two clients told apart, one of them cut off
 * ```ts
 * await using server = await startFakeApiServer({ users: { "token-a": "a", "token-b": "b" } });
 * server.faults.inject("update", { type: "status", code: 500, reason: "InternalError" }, { user: "b" });
 * server.partition("a"); // a's requests hang, its watches break; b carries on
 * server.heal("a");
 * server.audit.filter((entry) => entry.user === "a" && entry.status === 0); // what a sent into the void
 * ```
 *
 * @module
 */

import { type AuditEntry, handle, type ServerContext } from "./http.ts";
import { type Fault, type FaultControls, FaultPlan, type InjectOptions } from "./faults.ts";
import { Authenticator, TOKEN_USER } from "./identity.ts";
import { isJsonMap, type JsonMap, toJson } from "./json.ts";
import { KINDS, selectKinds } from "./kinds.ts";
import { SnapshotCache } from "./paging.ts";
import { PartitionTable } from "./partition.ts";
import { badRequest, FakeApiError, statusBody } from "./status.ts";
import { type KindStore, Store, type StoredObject } from "./store.ts";
import type { ResponseStream, WatchSession } from "./watch.ts";

export type { AuditEntry, Fault, FaultControls, InjectOptions };
export { FakeApiError, TOKEN_USER };

/** How to start the fake. */
export interface FakeApiServerOptions {
  /**
   * Require `Authorization: Bearer <token>`; anything else is 401. Its user is
   * {@linkcode TOKEN_USER} (`"admin"`).
   */
  token?: string;
  /**
   * More bearer tokens, each mapped to its user name (`{ "token-a": "a", "token-b": "b" }`), so
   * that clients can be told apart: in the audit log, by `faults.inject(…, { user })`, by
   * `partition(user)`. Any entry turns authentication on, as `token` does.
   */
  users?: Readonly<Record<string, string>>;
  /** PEM certificate and key: serve HTTPS. */
  tls?: { cert: string; key: string };
  /** Period of BOOKMARK events on watches that allowed them (default 1000; 0 = never). */
  bookmarkIntervalMs?: number;
  /** Events kept per resource type for watch resumption (default 1000); older versions → 410. */
  historyLimit?: number;
  /** Port to listen on (default 0: any free port). */
  port?: number;
  /** Serve only these API groups (`""` is core); default all. */
  groups?: readonly string[];
  /** Do not serve these API groups, e.g. `["gateway.networking.k8s.io"]` for "Gateway API not installed". */
  omitGroups?: readonly string[];
  /**
   * Do not serve these kinds (a CRD of a group not installed): `GRPCRoute` (every version) or
   * `gateway.networking.k8s.io/v1/TLSRoute` (one version). `setGroupInstalled(group, true)`
   * installs them later.
   */
  omitKinds?: readonly string[];
  /** Wall clock for `creationTimestamp` (default `Date.now`). */
  now?: () => number;
}

/** A running fake API server. */
export interface FakeApiServer extends AsyncDisposable {
  /** `http(s)://127.0.0.1:PORT`. */
  readonly url: string;
  readonly port: number;
  /** Every request so far, oldest first. */
  readonly audit: readonly AuditEntry[];
  /**
   * Changes the `token` (token rotation); `undefined` removes it, which turns authentication off
   * unless `users` has entries.
   */
  setToken(token: string | undefined): void;
  /**
   * Cuts `user` off as a network partition would: each of its requests is taken and never
   * answered (the client waits until its own deadline; the audit log records it with status 0),
   * and its open watches and streams break at once. Other users are unaffected. `user` must be a
   * user the server knows (`""` when authentication is off).
   */
  partition(user: string): void;
  /**
   * Ends `user`'s partition. Its reads held meanwhile (get, list, watch) are served now, as if
   * delivered late; its held writes are lost for good (never applied).
   */
  heal(user: string): void;
  /** The users partitioned now, sorted. */
  partitioned(): string[];
  /** Creates an object directly (no HTTP), emitting the same watch event; `apiVersion` + `kind` pick the type. */
  create(object: Record<string, unknown>): Record<string, unknown>;
  /** Replaces an object directly; a `metadata.resourceVersion` in it is a precondition. */
  update(object: Record<string, unknown>): Record<string, unknown>;
  /** Deletes an object directly (404 FakeApiError when absent). */
  remove(apiVersion: string, kind: string, namespace: string, name: string): void;
  /** One object, or undefined. `namespace` is ignored for cluster-scoped kinds. */
  get(apiVersion: string, kind: string, namespace: string, name: string): Record<string, unknown> | undefined;
  /** The objects of a type (optionally one namespace), in the order lists return them. */
  list(apiVersion: string, kind: string, namespace?: string): Record<string, unknown>[];
  /** The current global resourceVersion. */
  resourceVersion(): string;
  /** Forgets all history: watches from any older resourceVersion → 410; continue tokens expire. */
  compact(): void;
  readonly faults: FaultControls;
  /** Open watch streams right now. */
  openWatches(): number;
  /**
   * Installs or removes an API group at runtime (a CRD applied or deleted). Removing deletes its
   * objects (DELETED events), ends its watches and drops it from discovery; its paths then 404.
   */
  setGroupInstalled(group: string, installed: boolean): void;
  /** Closes the listener and breaks every connection; new connections are refused until `restart()`. */
  stop(): Promise<void>;
  /** Listens again on the same port with the same state. */
  restart(): Promise<void>;
  /** Shuts down for good (ends every stream). Idempotent. */
  close(): Promise<void>;
}

type Lifecycle =
  | {
    readonly type: "listening";
    readonly server: Deno.HttpServer<Deno.NetAddr>;
    readonly closing: AbortController;
  }
  | { readonly type: "stopped" }
  | { readonly type: "closed" };

function clone(object: StoredObject): Record<string, unknown> {
  return JSON.parse(object.json) as Record<string, unknown>;
}

function noKind(apiVersion: string, kind: string): FakeApiError {
  return new FakeApiError(
    statusBody(404, "NotFound", `no matches for kind "${kind}" in version "${apiVersion}"`, {}),
  );
}

class FakeApiServerImpl implements FakeApiServer {
  readonly faults: FaultPlan;
  readonly #audit: AuditEntry[] = [];
  readonly #store: Store;
  readonly #snapshots = new SnapshotCache<StoredObject>();
  readonly #options: FakeApiServerOptions;
  /** Open watches and streamed bodies, each with the user who opened it. */
  readonly #watches = new Map<WatchSession, string>();
  readonly #streams = new Map<ResponseStream, string>();
  readonly #authenticator: Authenticator;
  readonly #partitions = new PartitionTable();
  #epoch = 0;
  #lifecycle: Lifecycle = { type: "stopped" };
  #port = 0;

  constructor(options: FakeApiServerOptions, store: Store) {
    this.#options = options;
    this.#store = store;
    this.#authenticator = new Authenticator({ token: options.token, users: options.users });
    this.faults = new FaultPlan({
      drop: () => {
        for (const session of [...this.#watches.keys()]) session.stream.end();
      },
      stall: () => {
        for (const session of [...this.#watches.keys()]) session.stall();
      },
    });
  }

  get port(): number {
    return this.#port;
  }

  get url(): string {
    return `${this.#options.tls === undefined ? "http" : "https"}://127.0.0.1:${this.#port}`;
  }

  get audit(): readonly AuditEntry[] {
    return this.#audit;
  }

  /** Starts listening (at start and on restart). */
  listen(port: number): void {
    const closing = new AbortController();
    const context: ServerContext = {
      store: this.#store,
      faults: this.faults,
      snapshots: this.#snapshots,
      bookmarkIntervalMs: this.#options.bookmarkIntervalMs ?? 1000,
      epoch: () => this.#epoch,
      authenticator: this.#authenticator,
      partitions: this.#partitions,
      serverAddress: () => `127.0.0.1:${this.port}`,
      closing: () => closing.signal,
      audit: (entry) => this.#audit.push(entry),
      trackStream: (stream, user) => {
        this.#streams.set(stream, user);
        return () => this.#streams.delete(stream);
      },
      trackWatch: (session, user) => {
        this.#watches.set(session, user);
        return () => this.#watches.delete(session);
      },
    };
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port,
      onListen: () => {},
      onError: (error) =>
        new Response(
          JSON.stringify(statusBody(500, "InternalError", `Internal error occurred: ${String(error)}`)),
          { status: 500, headers: { "content-type": "application/json" } },
        ),
      ...(this.#options.tls === undefined
        ? {}
        : { cert: this.#options.tls.cert, key: this.#options.tls.key }),
    }, (request) => handle(request, context));
    this.#lifecycle = { type: "listening", server, closing };
    this.#port = server.addr.port;
  }

  setToken(token: string | undefined): void {
    this.#authenticator.setToken(token);
  }

  partition(user: string): void {
    const known = this.#authenticator.userNames();
    if (!known.includes(user)) {
      throw new Error(`cannot partition unknown user ${JSON.stringify(user)} (known: ${known.join(", ")})`);
    }
    this.#partitions.cut(user);
    for (const [session, owner] of [...this.#watches]) if (owner === user) session.stream.abort();
    for (const [stream, owner] of [...this.#streams]) if (owner === user) stream.abort();
  }

  heal(user: string): void {
    this.#partitions.heal(user);
  }

  partitioned(): string[] {
    return this.#partitions.users();
  }

  #kind(apiVersion: string, kind: string): KindStore {
    const store = this.#store.byKind(apiVersion, kind);
    if (store === undefined) throw noKind(apiVersion, kind);
    return store;
  }

  #target(object: Record<string, unknown>): { kind: KindStore; body: JsonMap; namespace: string } {
    const body = toJson(object);
    if (!isJsonMap(body)) throw badRequest("the object must be a JSON object");
    const kind = this.#kind(String(body.apiVersion), String(body.kind));
    const metadata = isJsonMap(body.metadata) ? body.metadata : {};
    const namespace = typeof metadata.namespace === "string" && metadata.namespace !== ""
      ? metadata.namespace
      : "default";
    return { kind, body, namespace: kind.info.namespaced ? namespace : "" };
  }

  create(object: Record<string, unknown>): Record<string, unknown> {
    const { kind, body, namespace } = this.#target(object);
    return clone(this.#store.create(kind, namespace, body, { direct: true }));
  }

  update(object: Record<string, unknown>): Record<string, unknown> {
    const { kind, body, namespace } = this.#target(object);
    const metadata = isJsonMap(body.metadata) ? body.metadata : {};
    const name = typeof metadata.name === "string" ? metadata.name : "";
    return clone(this.#store.update(kind, namespace, name, body, { direct: true }));
  }

  remove(apiVersion: string, kind: string, namespace: string, name: string): void {
    this.#store.remove(this.#kind(apiVersion, kind), namespace, name, {});
  }

  get(
    apiVersion: string,
    kind: string,
    namespace: string,
    name: string,
  ): Record<string, unknown> | undefined {
    const store = this.#store.byKind(apiVersion, kind);
    if (store === undefined) return undefined;
    const found = this.#store.get(store, namespace, name);
    return found === undefined ? undefined : clone(found);
  }

  list(apiVersion: string, kind: string, namespace?: string): Record<string, unknown>[] {
    const store = this.#store.byKind(apiVersion, kind);
    if (store === undefined) return [];
    const filter = namespace === undefined || !store.info.namespaced ? {} : { namespace };
    return this.#store.snapshot(store, filter).items.map(clone);
  }

  resourceVersion(): string {
    return String(this.#store.resourceVersion);
  }

  compact(): void {
    this.#store.compact();
    this.#snapshots.clear();
    this.#epoch++;
  }

  openWatches(): number {
    return this.#watches.size;
  }

  setGroupInstalled(group: string, installed: boolean): void {
    if (installed) {
      for (const info of KINDS) if (info.group === group) this.#store.install(info);
      return;
    }
    for (const kind of this.#store.kinds()) {
      if (kind.info.group !== group) continue;
      this.#store.uninstall(kind);
      for (const session of [...this.#watches.keys()]) if (session.kind === kind) session.stream.end();
    }
    this.#snapshots.clear();
  }

  async #shutdown(next: Lifecycle, breakConnections: boolean): Promise<void> {
    const lifecycle = this.#lifecycle;
    this.#lifecycle = next;
    if (lifecycle.type !== "listening") return;
    lifecycle.closing.abort();
    for (const session of [...this.#watches.keys()]) {
      if (breakConnections) session.stream.abort();
      else session.stream.end();
    }
    for (const stream of [...this.#streams.keys()]) {
      if (breakConnections) stream.abort();
      else stream.end();
    }
    await lifecycle.server.shutdown();
  }

  async stop(): Promise<void> {
    if (this.#lifecycle.type === "closed") throw new Error("the fake API server is closed");
    await this.#shutdown({ type: "stopped" }, true);
  }

  // deno-lint-ignore require-await
  async restart(): Promise<void> {
    if (this.#lifecycle.type === "closed") throw new Error("the fake API server is closed");
    if (this.#lifecycle.type === "listening") return;
    this.listen(this.port);
  }

  async close(): Promise<void> {
    await this.#shutdown({ type: "closed" }, false);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/**
 * Starts a fake API server on `127.0.0.1` with the given options (all optional). Close it with
 * `close()` or `await using`.
 */
export function startFakeApiServer(options: FakeApiServerOptions = {}): Promise<FakeApiServer> {
  const store = new Store({
    kinds: selectKinds(options.groups, options.omitGroups, options.omitKinds),
    historyLimit: options.historyLimit ?? 1000,
    now: options.now ?? Date.now,
    newUid: () => crypto.randomUUID(),
    random: Math.random,
  });
  const server = new FakeApiServerImpl(options, store);
  server.listen(options.port ?? 0);
  return Promise.resolve(server);
}
