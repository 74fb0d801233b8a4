/**
 * Our Kubernetes API client: typed get, list, create, update, merge patch, scale, server-side
 * apply, delete and watch for any {@linkcode ResourceType}, plus raw GETs (`/version`, proxied `/readyz`).
 * Items and watch objects that fail to decode are reported as rejected instead of failing the call.
 *
 * Effects: HTTP through its {@linkcode Transport}; logs through the injected log.
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

  /** GETs a path the API server proxies (`…/pods/y:8081/proxy/readyz`); see `Transport.text`. */
  async getText(path: string, options: CallOptions = {}): Promise<TextAnswer> {
    return await this.#transport.text({ method: "GET", path, ...this.#callOptions(options) });
  }

  /** Reads one object; a 404 {@linkcode KubeApiError} (`isNotFound`) when it does not exist. */
  async get<T extends KubeObject>(
    type: ResourceType<T>,
    ref: ObjectRef,
    options: CallOptions = {},
  ): Promise<T> {
    const path = this.#path(type, ref.namespace, ref.name);
    const raw = await this.#call({ method: "GET", path, ...this.#callOptions(options) });
    return this.#decodeOne(type, raw, `GET ${path}`);
  }

  /** Reads one page of a collection; items that fail to decode are in `rejected`, never thrown. */
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

  /** Reads a whole collection in pages, all from one snapshot (see `paged_list.ts`). */
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

  /** Replaces an object (PUT); the required `metadata.resourceVersion` is its precondition. */
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

  /** Applies a JSON merge patch (RFC 7386); with `resourceVersion`, only to that version. */
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
   * Sets the replicas of a scalable object (a Deployment) through its `scale` subresource, which
   * RBAC grants apart from the object itself; the answer (a `Scale`) is not decoded.
   */
  async scale<T extends KubeObject>(
    type: ResourceType<T>,
    ref: ObjectRef,
    replicas: number,
    options: WriteOptions = {},
  ): Promise<void> {
    await this.#call({
      method: "PATCH",
      path: `${this.#path(type, ref.namespace, ref.name)}/scale`,
      body: { spec: { replicas } },
      contentType: MERGE_PATCH,
      query: { fieldManager: options.fieldManager ?? this.#fieldManager, force: undefined },
      ...this.#callOptions(options),
    });
  }

  /**
   * Server-side apply: `manifest` is the field manager's whole intent (fields it leaves out now are
   * removed); a field another manager owns is a 409 unless `force`. Sent as JSON (valid YAML).
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

  /** The {@linkcode ListWatcher} of one type and scope, for a reflector. */
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

  /** Watches a collection; the first `next()` rejects if the server refuses (410: too old). */
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
