/**
 * Our Kubernetes API client: typed get, list (one page or all of them), create, update,
 * merge patch, server-side apply, delete and watch over {@linkcode Transport}, for any
 * {@linkcode ResourceType}, a raw GET for paths outside the resource API (`/version`), and a
 * text GET for what the API server proxies (a pod's `/readyz`).
 * Long because every verb is one short method here, so callers see the whole client in one place.
 * Answers are decoded at the boundary: callers get narrow typed objects, list items and watch
 * objects that fail to decode are reported as rejected instead of failing the call.
 *
 * What calls take is in `client_options.ts` (re-exported here), reading all pages in
 * `paged_list.ts`, decoding a page in `list_page.ts`, reading a watch in `watch_stream.ts`.
 *
 * Effects: HTTP through its {@linkcode Transport}; logs through the injected log.
 *
 * @example
 * ```ts
 * import { CONFIG_MAP } from "../resources/config_map.ts";
 * import { INGRESS } from "../resources/ingress.ts";
 * import { KubeClient } from "./client.ts";
 *
 * using client = new KubeClient({ server: "http://127.0.0.1:8080" });
 * const corefile = await client.get(CONFIG_MAP, { namespace: "kube-system", name: "coredns" });
 * const ingresses = await client.listAll(INGRESS, { pageSize: 500 });
 * ```
 *
 * @module
 */

import { apiVersion, resourcePath, type ResourceType } from "../resources/resource_type.ts";
import { asObject, type JsonObject } from "../resources/json.ts";
import { type KubeObject, rawObjectKey } from "../resources/kube_object.ts";
import { type Log, logger } from "../util/logging.ts";
import type { ClusterConfig } from "./config.ts";
import { KubeDecodeError } from "./decode_error.ts";
import { decodeListPage } from "./list_page.ts";
import type { ListPage, ListWatcher, WatchEvent, WatchOptions } from "./list_watch.ts";
import { pagedList } from "./paged_list.ts";
import { type TextAnswer, Transport, type TransportRequest } from "./transport.ts";
import { watchStream } from "./watch_stream.ts";

import type {
  ApplyOptions,
  CallOptions,
  ClientListOptions,
  DeleteOptions,
  KubeClientOptions,
  ListAllOptions,
  Manifest,
  ObjectRef,
  PatchOptions,
  Scope,
  WriteOptions,
} from "./client_options.ts";

export type * from "./client_options.ts";
export type { TextAnswer } from "./transport.ts";
export { DEFAULT_PAGE_SIZE } from "./paged_list.ts";

const MERGE_PATCH = "application/merge-patch+json";
const APPLY_PATCH = "application/apply-patch+yaml";

/** A typed client for one API server. Close it (or `using` it) to release its TLS clients. */
export class KubeClient {
  readonly #transport: Transport;
  readonly #fieldManager: string;
  readonly #log: Log;

  /** `{ server: "http://127.0.0.1:PORT" }` alone is enough for a plain-HTTP test server. */
  constructor(options: KubeClientOptions) {
    this.#transport = new Transport(options);
    this.#fieldManager = options.fieldManager ?? "ouroboros";
    this.#log = options.log ?? logger("kube");
  }

  /** A client for a loaded configuration (in-cluster or kubeconfig). */
  static fromConfig(
    config: ClusterConfig,
    options: Omit<
      KubeClientOptions,
      "server" | "caCerts" | "clientCertificate" | "credentials" | "proxyUrl"
    > = {},
  ): KubeClient {
    return new KubeClient({
      ...options,
      server: config.server,
      caCerts: config.caCerts,
      ...(config.clientCertificate === undefined ? {} : { clientCertificate: config.clientCertificate }),
      ...(config.credentials === undefined ? {} : { credentials: config.credentials }),
      ...(config.proxyUrl === undefined ? {} : { proxyUrl: config.proxyUrl }),
    });
  }

  /** The API server URL. */
  get server(): string {
    return this.#transport.server;
  }

  #path<T extends KubeObject>(type: ResourceType<T>, namespace: string | undefined, name?: string): string {
    if (type.namespaced && (namespace === undefined || namespace === "") && name !== undefined) {
      throw new TypeError(`${type.kind} is namespaced: a namespace is required for ${JSON.stringify(name)}`);
    }
    if (!type.namespaced && namespace !== undefined && namespace !== "") {
      throw new TypeError(
        `${type.kind} is cluster-scoped: it has no namespace (got ${JSON.stringify(namespace)})`,
      );
    }
    return resourcePath(type, {
      ...(namespace === undefined || namespace === "" ? {} : { namespace }),
      ...(name === undefined ? {} : { name }),
    });
  }

  #decodeOne<T extends KubeObject>(type: ResourceType<T>, raw: unknown, request: string): T {
    const decoded = type.decode(raw);
    if (!decoded.ok) throw new KubeDecodeError(request, `${rawObjectKey(raw)}: ${decoded.reason}`);
    return decoded.value;
  }

  async #call(request: TransportRequest): Promise<unknown> {
    return await this.#transport.json(request);
  }

  #callOptions(options: CallOptions): Pick<TransportRequest, "signal" | "timeoutMs"> {
    return {
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    };
  }

  /** GETs a path outside the resource API (`/version`) and returns its JSON as it came. */
  async getJson(path: string, options: CallOptions = {}): Promise<unknown> {
    return await this.#call({ method: "GET", path, ...this.#callOptions(options) });
  }

  /**
   * GETs a path the API server proxies (`/api/v1/namespaces/x/pods/y:8081/proxy/readyz`) and
   * returns the endpoint's status and body whatever the status; errors the API server raised
   * itself (a `Status`: 403, 404, 503) reject with {@linkcode KubeApiError}. A read: no write
   * fence applies.
   */
  async getText(path: string, options: CallOptions = {}): Promise<TextAnswer> {
    return await this.#transport.text({ method: "GET", path, ...this.#callOptions(options) });
  }

  /** Reads one object. Rejects with a 404 {@linkcode KubeApiError} (`isNotFound`) when it does not exist. */
  async get<T extends KubeObject>(
    type: ResourceType<T>,
    ref: ObjectRef,
    options: CallOptions = {},
  ): Promise<T> {
    const path = this.#path(type, ref.namespace, ref.name);
    const raw = await this.#call({ method: "GET", path, ...this.#callOptions(options) });
    return this.#decodeOne(type, raw, `GET ${path}`);
  }

  /**
   * Reads one page of a collection. Items that fail to decode are in `rejected`, never thrown.
   * With `limit`, `continue` is set while more pages follow.
   */
  async list<T extends KubeObject>(
    type: ResourceType<T>,
    options: ClientListOptions = {},
  ): Promise<ListPage<T>> {
    const path = this.#path(type, options.namespace);
    const raw = await this.#call({
      method: "GET",
      verb: "LIST",
      path,
      query: {
        resourceVersion: options.resourceVersion,
        limit: options.limit === undefined ? undefined : String(options.limit),
        continue: options.continue,
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
      },
      ...this.#callOptions(options),
    });
    return decodeListPage(raw, { decode: type.decode, request: `LIST ${path}` });
  }

  /**
   * Reads a whole collection in pages of `pageSize` (every page is from the same snapshot). If
   * the `continue` token expires mid-way (410 on page 2 or later), the pages read are dropped and
   * the collection is read again in one unpaged request, as client-go's pager does; a 410 on the
   * first page is an error (the `resourceVersion` asked for is too old). See `paged_list.ts`.
   */
  async listAll<T extends KubeObject>(
    type: ResourceType<T>,
    options: ListAllOptions = {},
  ): Promise<ListPage<T>> {
    const scope: ClientListOptions = {
      ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
      ...(options.labelSelector === undefined ? {} : { labelSelector: options.labelSelector }),
      ...(options.fieldSelector === undefined ? {} : { fieldSelector: options.fieldSelector }),
      ...this.#callOptions(options),
    };
    return await pagedList((request) => this.list(type, { ...scope, ...request }), {
      ...(options.resourceVersion === undefined ? {} : { resourceVersion: options.resourceVersion }),
      ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
      resource: `${apiVersion(type)} ${type.plural}`,
      log: this.#log,
    });
  }

  #manifestFor<T extends KubeObject>(type: ResourceType<T>, manifest: Manifest): Manifest {
    return {
      ...manifest,
      apiVersion: manifest.apiVersion ?? apiVersion(type),
      kind: manifest.kind ?? type.kind,
    };
  }

  /** Sends a write with the field manager and returns the object as the server stored it. */
  async #write<T extends KubeObject>(
    type: ResourceType<T>,
    request: Pick<TransportRequest, "method" | "path" | "body" | "contentType" | "verb">,
    options: WriteOptions & { readonly force?: boolean },
  ): Promise<T> {
    const raw = await this.#call({
      ...request,
      query: {
        fieldManager: options.fieldManager ?? this.#fieldManager,
        force: options.force === true ? "true" : undefined,
      },
      ...this.#callOptions(options),
    });
    return this.#decodeOne(type, raw, `${request.verb ?? request.method} ${request.path}`);
  }

  /** Creates an object (409 `AlreadyExists` when the name is taken); returns it as stored. */
  async create<T extends KubeObject>(
    type: ResourceType<T>,
    manifest: Manifest,
    options: WriteOptions = {},
  ): Promise<T> {
    const path = this.#path(type, manifest.metadata.namespace);
    return await this.#write(
      type,
      { method: "POST", path, body: this.#manifestFor(type, manifest) },
      options,
    );
  }

  /**
   * Replaces an object (PUT). Its `metadata.resourceVersion` is required and is the
   * precondition: if the object changed since it was read, the server answers 409 Conflict
   * (`isConflict`) and nothing is written.
   */
  async update<T extends KubeObject>(
    type: ResourceType<T>,
    manifest: Manifest,
    options: WriteOptions = {},
  ): Promise<T> {
    const { name, namespace, resourceVersion } = manifest.metadata;
    if (name === undefined || name === "") {
      throw new TypeError(`update of a ${type.kind} needs metadata.name`);
    }
    if (resourceVersion === undefined || resourceVersion === "") {
      throw new TypeError(
        `update of ${type.kind} ${
          JSON.stringify(name)
        } needs metadata.resourceVersion (the version it was read at)`,
      );
    }
    const path = this.#path(type, namespace, name);
    return await this.#write(type, { method: "PUT", path, body: this.#manifestFor(type, manifest) }, options);
  }

  /**
   * Applies a JSON merge patch (RFC 7386: objects merge, `null` deletes a key, lists are
   * replaced whole). With `resourceVersion`, the patch applies only to that version.
   */
  async mergePatch<T extends KubeObject>(
    type: ResourceType<T>,
    ref: ObjectRef,
    patch: JsonObject,
    options: PatchOptions = {},
  ): Promise<T> {
    const path = this.#path(type, ref.namespace, ref.name);
    let body: JsonObject = patch;
    if (options.resourceVersion !== undefined) {
      const metadata = asObject(patch.metadata) ?? {};
      body = { ...patch, metadata: { ...metadata, resourceVersion: options.resourceVersion } };
    }
    return await this.#write(type, { method: "PATCH", path, body, contentType: MERGE_PATCH }, options);
  }

  /**
   * Server-side apply: `manifest` is `options.fieldManager`'s whole intent for the object,
   * created if missing. The manager comes to own exactly the fields it sets; those it applied
   * before and leaves out now are removed unless another manager owns them. A field another
   * manager owns with a different value is a 409 (`isConflict`, the message names each field)
   * unless `force` takes it over; a repeat writes nothing. Sent as JSON (valid YAML) with content
   * type `application/apply-patch+yaml`, through the write fence like every write. Example:
   * {@linkcode ApplyOptions}.
   */
  async apply<T extends KubeObject>(
    type: ResourceType<T>,
    manifest: Manifest,
    options: ApplyOptions,
  ): Promise<T> {
    const { name, namespace } = manifest.metadata;
    if (name === undefined || name === "" || options.fieldManager === "") {
      throw new TypeError(`apply of a ${type.kind} needs metadata.name and a fieldManager`);
    }
    const request = { method: "PATCH", verb: "APPLY", contentType: APPLY_PATCH } as const;
    const path = this.#path(type, namespace, name);
    return await this.#write(type, { ...request, path, body: this.#manifestFor(type, manifest) }, options);
  }

  /** Deletes an object; 404 (`isNotFound`) when it is already gone. */
  async delete<T extends KubeObject>(
    type: ResourceType<T>,
    ref: ObjectRef,
    options: DeleteOptions = {},
  ): Promise<void> {
    const path = this.#path(type, ref.namespace, ref.name);
    const preconditions = {
      ...(options.resourceVersion === undefined ? {} : { resourceVersion: options.resourceVersion }),
      ...(options.uid === undefined ? {} : { uid: options.uid }),
    };
    const hasBody = Object.keys(preconditions).length > 0 || options.propagationPolicy !== undefined;
    await this.#call({
      method: "DELETE",
      path,
      ...(hasBody
        ? {
          body: {
            apiVersion: "v1",
            kind: "DeleteOptions",
            ...(Object.keys(preconditions).length > 0 ? { preconditions } : {}),
            ...(options.propagationPolicy === undefined
              ? {}
              : { propagationPolicy: options.propagationPolicy }),
          },
        }
        : {}),
      ...this.#callOptions(options),
    });
  }

  /**
   * The {@linkcode ListWatcher} for one type and scope, for a reflector: `list` reads one page,
   * `watch` streams events (see {@linkcode KubeClient.watch}).
   */
  listWatcher<T extends KubeObject>(type: ResourceType<T>, scope: Scope = {}): ListWatcher<T> {
    const where = scope.namespace === undefined ? "" : ` in ${scope.namespace}`;
    const selectors = [scope.labelSelector, scope.fieldSelector].filter((s) => s !== undefined && s !== "");
    return {
      description: `${apiVersion(type)} ${type.plural}${where}${
        selectors.length === 0 ? "" : ` (${selectors.join(", ")})`
      }`,
      list: (options) => this.list(type, { ...scope, ...options }),
      watch: (options) =>
        this.watch(type, {
          ...options,
          ...(scope.namespace === undefined ? {} : { namespace: scope.namespace }),
          ...(scope.labelSelector === undefined ? {} : { labelSelector: scope.labelSelector }),
          ...(scope.fieldSelector === undefined ? {} : { fieldSelector: scope.fieldSelector }),
        }),
    };
  }

  /**
   * Watches a collection from `resourceVersion`. Rejects (on the first `next()`) with a
   * {@linkcode KubeApiError} when the server refuses the watch (410 when the version is too
   * old). Then yields events as their lines complete, and:
   *
   * - ends after an ERROR event (the server closes the stream after one; a line that is not a
   *   watch event is reported as ERROR 500, see `watch_line.ts`);
   * - ends when the server closes the stream, or the connection breaks mid-stream: an
   *   incomplete last line is dropped, never decoded, so the caller re-watches from the last
   *   complete event;
   * - ends when `signal` aborts or the consumer stops iterating, releasing the connection.
   *
   * Reading the stream is `watch_stream.ts`.
   */
  async *watch<T extends KubeObject>(
    type: ResourceType<T>,
    options: WatchOptions & { readonly namespace?: string },
  ): AsyncGenerator<WatchEvent<T>, void, undefined> {
    const path = this.#path(type, options.namespace);
    const request = `WATCH ${path}`;
    const { signal } = options;
    if (signal.aborted) return;
    let body: ReadableStream<Uint8Array>;
    try {
      body = await this.#transport.stream({
        method: "GET",
        verb: "WATCH",
        path,
        query: {
          watch: "true",
          resourceVersion: options.resourceVersion,
          allowWatchBookmarks: options.allowWatchBookmarks ? "true" : undefined,
          timeoutSeconds: String(options.timeoutSeconds),
          labelSelector: options.labelSelector,
          fieldSelector: options.fieldSelector,
        },
        signal,
      });
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
    yield* watchStream(body, { decode: type.decode, request, signal, log: this.#log });
  }

  /** Releases the TLS clients; calls still running may finish, new ones fail. */
  close(): void {
    this.#transport.close();
  }

  /** Same as {@linkcode close}, for `using`. */
  [Symbol.dispose](): void {
    this.close();
  }
}
