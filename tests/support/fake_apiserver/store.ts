/**
 * The fake API server's state: objects per resource type, one global integer resourceVersion
 * bumped on every write, and a bounded event history per resource type from which watches
 * resume and from which older list snapshots (continue tokens, `resourceVersionMatch=Exact`)
 * are rebuilt.
 *
 * Write semantics follow the real server: `uid`, `creationTimestamp` and `resourceVersion` are
 * the server's; `generation` (for kinds that keep one) moves only when something outside
 * `metadata` and `status` changes; a stale `resourceVersion` is a 409 Conflict; an update that
 * changes nothing is not a write (no new resourceVersion, no event); kinds with a status
 * subresource ignore `status` on the main resource and everything but `status` on `/status`.
 * `metadata.managedFields` are what the write's hook computes (`managed_fields.ts`, `apply.ts`),
 * or, without one, what the body carries.
 *
 * Stored objects are never mutated: every write stores a new object with its JSON text
 * serialised once, which lists and watch streams reuse.
 *
 * Pure: no I/O. Time, uids and randomness are passed in.
 *
 * @module
 */

import { groupVersion, type KindInfo } from "./kinds.ts";
import { isJsonMap, type Json, jsonEqual, type JsonMap } from "./json.ts";
import type { FieldRequirement, LabelRequirement } from "./selectors.ts";
import { matchesFields, matchesLabels } from "./selectors.ts";
import {
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  notFound,
  resourceVersionTooLarge,
  STALE_OBJECT,
  tooOldResourceVersion,
} from "./status.ts";
import { decodeBody, validate } from "./validation.ts";

/** One stored object version. Immutable. */
export interface StoredObject {
  /** `namespace/name`, or `name` for cluster-scoped kinds. */
  readonly key: string;
  readonly name: string;
  /** `""` for cluster-scoped kinds. */
  readonly namespace: string;
  readonly rv: number;
  readonly uid: string;
  readonly labels: Readonly<Record<string, string>> | undefined;
  readonly object: JsonMap;
  /** `JSON.stringify(object)`, computed once. */
  readonly json: string;
}

/** One change, as watchers see it. */
export interface StoreEvent {
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  readonly rv: number;
  /** The object after the change; for `DELETED`, the last state with the deletion's resourceVersion. */
  readonly current: StoredObject;
  /** The object before the change (absent for `ADDED`). */
  readonly previous: StoredObject | undefined;
  /** The watch line `{"type":…,"object":…}\n`, built once on first use. */
  line(): string;
}

/** Filters for lists and watches. */
export interface Filter {
  /** Only this namespace (namespaced kinds); undefined = all. */
  readonly namespace?: string;
  readonly labels?: readonly LabelRequirement[];
  readonly fields?: readonly FieldRequirement[];
}

/** Whether a stored object passes `filter`. */
export function matches(filter: Filter, object: StoredObject): boolean {
  if (filter.namespace !== undefined && object.namespace !== filter.namespace) return false;
  if (
    filter.labels !== undefined && filter.labels.length > 0 && !matchesLabels(filter.labels, object.labels)
  ) {
    return false;
  }
  if (filter.fields !== undefined && filter.fields.length > 0) {
    return matchesFields(filter.fields, object.name, object.namespace);
  }
  return true;
}

/** How a write is checked. */
export interface WriteOptions {
  /** Compute and return the result without storing it (`dryRun=All`). */
  readonly dryRun?: boolean;
  /**
   * Direct test set-up (not HTTP): keep `status` as given, allow a PUT without resourceVersion on
   * custom resources, ignore a resourceVersion on create.
   */
  readonly direct?: boolean;
  /**
   * Computes the stored object's `metadata.managedFields` (`managed_fields.ts`, `apply.ts`).
   * Absent: whatever the body carries is stored as it is (direct test set-up).
   */
  readonly managedFields?: ManagedFieldsHook;
}

/**
 * The `managedFields` of a write's result, from the stored object before it (absent for a
 * create), the object about to be stored, and now (RFC 3339 to the second); `undefined`: none.
 */
export type ManagedFieldsHook = (
  before: JsonMap | undefined,
  after: JsonMap,
  time: string,
) => Json[] | undefined;

/** Options for an update. */
export interface UpdateOptions extends WriteOptions {
  /** `"status"`: only the status changes. */
  readonly subresource?: "status";
  /** The object came from a patch: the server fills in the resourceVersion, so none is required. */
  readonly patch?: boolean;
}

/** A list answer: items in key order, at the snapshot's resourceVersion. */
export interface Snapshot {
  readonly rv: number;
  readonly items: readonly StoredObject[];
}

/** What the store needs from the outside world. */
export interface StoreOptions {
  /** The kinds served. */
  readonly kinds: readonly KindInfo[];
  /** Events kept per resource type for watch resumption and old snapshots. */
  readonly historyLimit: number;
  /** Wall-clock milliseconds, for `creationTimestamp`. */
  readonly now: () => number;
  /** A new uid. */
  readonly newUid: () => string;
  /** A number in [0, 1), for `generateName` suffixes. */
  readonly random: () => number;
}

const NAME_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function stringMap(value: Json | undefined): Record<string, string> | undefined {
  if (!isJsonMap(value)) return undefined;
  for (const entry of Object.values(value)) if (typeof entry !== "string") return undefined;
  return value as Record<string, string>;
}

function withoutKeys(object: JsonMap, keys: readonly string[]): JsonMap {
  const result: JsonMap = {};
  for (const [key, value] of Object.entries(object)) if (!keys.includes(key)) result[key] = value;
  return result;
}

/** Everything that is not metadata or status: a change here bumps `generation`. */
function specPart(object: JsonMap): JsonMap {
  return withoutKeys(object, ["apiVersion", "kind", "metadata", "status"]);
}

/** Sets (or removes) `object.metadata.managedFields` as `hook` computes them; nothing without a hook. */
function withManagedFields(
  object: JsonMap,
  before: JsonMap | undefined,
  hook: ManagedFieldsHook | undefined,
  now: () => string,
): void {
  if (hook === undefined) return;
  const metadata = object.metadata as JsonMap;
  const managed = hook(before, object, now());
  if (managed === undefined) delete metadata.managedFields;
  else metadata.managedFields = managed;
}

class Event implements StoreEvent {
  #line: string | undefined;
  constructor(
    readonly type: "ADDED" | "MODIFIED" | "DELETED",
    readonly current: StoredObject,
    readonly previous: StoredObject | undefined,
  ) {}
  get rv(): number {
    return this.current.rv;
  }
  line(): string {
    this.#line ??= `{"type":"${this.type}","object":${this.current.json}}\n`;
    return this.#line;
  }
}

/** The objects, history and watchers of one resource type. */
export class KindStore {
  readonly info: KindInfo;
  readonly objects = new Map<string, StoredObject>();
  #sortedKeys: string[] | undefined;
  #history: StoreEvent[] = [];
  #historyStart = 0;
  #floor = 0;
  readonly #limit: number;
  readonly #listeners = new Set<(event: StoreEvent) => void>();

  constructor(info: KindInfo, historyLimit: number) {
    this.info = info;
    this.#limit = Math.max(0, historyLimit);
  }

  /** The oldest resourceVersion a watch may resume from: history after it is complete. */
  get floor(): number {
    return this.#floor;
  }

  /** Keys of the current objects in the order lists return them. */
  sortedKeys(): readonly string[] {
    this.#sortedKeys ??= [...this.objects.keys()].sort();
    return this.#sortedKeys;
  }

  /** Records a change, trims history and tells every watcher. */
  commit(event: StoreEvent): void {
    const { current } = event;
    if (event.type === "DELETED") {
      this.objects.delete(current.key);
      this.#sortedKeys = undefined;
    } else {
      if (event.type === "ADDED") this.#sortedKeys = undefined;
      this.objects.set(current.key, current);
    }
    this.#history.push(event);
    while (this.#history.length - this.#historyStart > this.#limit) {
      this.#floor = Math.max(this.#floor, this.#history[this.#historyStart]!.rv);
      this.#historyStart++;
    }
    if (this.#historyStart > 1024 && this.#historyStart * 2 > this.#history.length) {
      this.#history = this.#history.slice(this.#historyStart);
      this.#historyStart = 0;
    }
    for (const listener of this.#listeners) listener(event);
  }

  /** Forgets all history: resuming from any version before `rv` is now impossible. */
  forget(rv: number): void {
    this.#history = [];
    this.#historyStart = 0;
    this.#floor = rv;
  }

  /** Events after `rv`, oldest first; `rv` must be at least {@linkcode floor}. */
  eventsAfter(rv: number): StoreEvent[] {
    let low = this.#historyStart;
    let high = this.#history.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#history[middle]!.rv <= rv) low = middle + 1;
      else high = middle;
    }
    return this.#history.slice(low);
  }

  /** Adds a watcher of every later change; returns the function that removes it. */
  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Number of open watchers (for tests of the fake itself). */
  get watcherCount(): number {
    return this.#listeners.size;
  }
}

/** All state of the fake API server. */
export class Store {
  readonly #options: StoreOptions;
  readonly #kinds = new Map<string, KindStore>();
  #rv = 1;

  constructor(options: StoreOptions) {
    this.#options = options;
    for (const info of options.kinds) {
      this.#kinds.set(`${groupVersion(info)}/${info.kind}`, new KindStore(info, options.historyLimit));
    }
  }

  /** The current global resourceVersion. */
  get resourceVersion(): number {
    return this.#rv;
  }

  /** Now, as the server writes times: RFC 3339 to the second. */
  now(): string {
    return rfc3339(this.#options.now());
  }

  /** Every served resource type. */
  kinds(): KindStore[] {
    return [...this.#kinds.values()];
  }

  /** The store of `apiVersion` + `kind`, if served. */
  byKind(apiVersion: string, kind: string): KindStore | undefined {
    return this.#kinds.get(`${apiVersion}/${kind}`);
  }

  /** The store of a resource path (`group`, `version`, `plural`), if served. */
  byResource(group: string, version: string, plural: string): KindStore | undefined {
    for (const store of this.#kinds.values()) {
      const { info } = store;
      if (info.group === group && info.version === version && info.plural === plural) return store;
    }
    return undefined;
  }

  /** Forgets every event: watches and continue tokens from before now fail with 410. */
  compact(): void {
    for (const store of this.#kinds.values()) store.forget(this.#rv);
  }

  /** Removes a resource type with all its objects (a CRD deleted), emitting DELETED for each. */
  uninstall(store: KindStore): void {
    for (const key of [...store.sortedKeys()]) {
      const object = store.objects.get(key)!;
      this.remove(store, object.namespace, object.name, {});
    }
    this.#kinds.delete(`${groupVersion(store.info)}/${store.info.kind}`);
  }

  /** Adds a resource type back (a CRD installed), empty. */
  install(info: KindInfo): KindStore {
    const key = `${groupVersion(info)}/${info.kind}`;
    let store = this.#kinds.get(key);
    if (store === undefined) {
      store = new KindStore(info, this.#options.historyLimit);
      store.forget(this.#rv);
      this.#kinds.set(key, store);
    }
    return store;
  }

  #key(info: KindInfo, namespace: string, name: string): string {
    return info.namespaced ? `${namespace}/${name}` : name;
  }

  /** One object, or undefined. */
  get(store: KindStore, namespace: string, name: string): StoredObject | undefined {
    return store.objects.get(this.#key(store.info, namespace, name));
  }

  #stored(
    info: KindInfo,
    namespace: string,
    name: string,
    rv: number,
    uid: string,
    object: JsonMap,
  ): StoredObject {
    const metadata = object.metadata as JsonMap;
    return {
      key: this.#key(info, namespace, name),
      name,
      namespace,
      rv,
      uid,
      labels: stringMap(metadata.labels),
      object,
      json: JSON.stringify(object),
    };
  }

  /** Checks apiVersion/kind/metadata shape and returns the body's metadata (copied). */
  #checkBody(info: KindInfo, body: JsonMap): JsonMap {
    const expected = groupVersion(info);
    if (body.apiVersion !== undefined && body.apiVersion !== expected) {
      throw badRequest(
        `the API version in the data (${
          String(body.apiVersion)
        }) does not match the expected API version (${expected})`,
      );
    }
    if (body.kind !== undefined && body.kind !== info.kind) {
      throw badRequest(
        `the kind in the data (${String(body.kind)}) does not match the expected kind (${info.kind})`,
      );
    }
    const metadata = body.metadata ?? {};
    if (!isJsonMap(metadata)) throw badRequest("metadata must be an object");
    for (const field of ["labels", "annotations"]) {
      const value = metadata[field];
      if (value !== undefined && value !== null && stringMap(value) === undefined) {
        throw badRequest(`metadata.${field} must be a map of strings`);
      }
    }
    return { ...metadata };
  }

  #checkNamespace(info: KindInfo, metadata: JsonMap, namespace: string): void {
    if (!info.namespaced) {
      delete metadata.namespace;
      return;
    }
    if (metadata.namespace !== undefined && metadata.namespace !== "" && metadata.namespace !== namespace) {
      throw badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    }
    metadata.namespace = namespace;
  }

  #validate(info: KindInfo, name: string, object: JsonMap): void {
    const causes = validate(info, name, object);
    if (causes.length > 0) throw invalid(info, name, { causes });
  }

  #generateName(prefix: string): string {
    let suffix = "";
    for (let i = 0; i < 5; i++) {
      suffix += NAME_SUFFIX_ALPHABET[Math.floor(this.#options.random() * NAME_SUFFIX_ALPHABET.length)];
    }
    return `${prefix}${suffix}`;
  }

  /** Creates an object in `namespace` (ignored for cluster-scoped kinds). */
  create(store: KindStore, namespace: string, given: JsonMap, options: WriteOptions = {}): StoredObject {
    const { info } = store;
    const metadata = this.#checkBody(info, given);
    const body = decodeBody(info, given);
    this.#checkNamespace(info, metadata, namespace);
    if ((metadata.name === undefined || metadata.name === "") && typeof metadata.generateName === "string") {
      metadata.name = this.#generateName(metadata.generateName);
    }
    const name = metadata.name;
    if (typeof name !== "string" || name === "") {
      throw invalid(info, "", {
        causes: [{
          reason: "FieldValueRequired",
          message: "Required value: name or generateName is required",
          field: "metadata.name",
        }],
      });
    }
    if (!options.direct && metadata.resourceVersion !== undefined && metadata.resourceVersion !== "") {
      throw badRequest("resourceVersion should not be set on objects to be created");
    }
    this.#validate(info, name, body);
    if (this.get(store, namespace, name) !== undefined) throw alreadyExists(info, name);
    const rv = options.dryRun ? this.#rv : this.#rv + 1;
    const uid = this.#options.newUid();
    delete metadata.deletionTimestamp;
    delete metadata.deletionGracePeriodSeconds;
    const object: JsonMap = {
      apiVersion: groupVersion(info),
      kind: info.kind,
      ...withoutKeys(body, ["apiVersion", "kind", "metadata"]),
      metadata: {
        ...metadata,
        uid,
        resourceVersion: String(rv),
        ...(info.generation ? { generation: 1 } : {}),
        creationTimestamp: rfc3339(this.#options.now()),
      },
    };
    if (!info.generation) delete (object.metadata as JsonMap).generation;
    if (info.statusSubresource && !options.direct) delete object.status;
    withManagedFields(object, undefined, options.managedFields, () => this.now());
    if (info.kind === "Namespace" && !isJsonMap(object.status)) object.status = { phase: "Active" };
    const stored = this.#stored(info, info.namespaced ? namespace : "", name, rv, uid, object);
    if (options.dryRun) return stored;
    this.#rv = rv;
    store.commit(new Event("ADDED", stored, undefined));
    return stored;
  }

  /**
   * Replaces an object (PUT). A `metadata.resourceVersion` in the body is a precondition; without
   * one the write wins for built-in kinds and is refused (422) for custom resources.
   */
  update(
    store: KindStore,
    namespace: string,
    name: string,
    given: JsonMap,
    options: UpdateOptions = {},
  ): StoredObject {
    const { info } = store;
    const existing = this.get(store, namespace, name);
    if (existing === undefined) throw notFound(info, name);
    const metadata = this.#checkBody(info, given);
    const body = options.subresource === undefined ? decodeBody(info, given) : given;
    this.#checkNamespace(info, metadata, namespace);
    if (metadata.name !== undefined && metadata.name !== name) {
      throw badRequest(
        `the name of the object (${String(metadata.name)}) does not match the name on the URL (${name})`,
      );
    }
    const rvText = metadata.resourceVersion;
    if (rvText !== undefined && rvText !== null && rvText !== "") {
      if (String(rvText) !== String(existing.rv)) throw conflict(info, name, STALE_OBJECT);
    } else if (!info.unconditionalUpdate && !options.direct && !options.patch) {
      throw invalid(info, name, {
        causes: [{
          reason: "FieldValueInvalid",
          message: "Invalid value: 0x0: must be specified for an update",
          field: "metadata.resourceVersion",
        }],
        resource: true,
      });
    }
    if (typeof metadata.uid === "string" && metadata.uid !== "" && metadata.uid !== existing.uid) {
      throw conflict(
        info,
        name,
        `Precondition failed: UID in precondition: ${metadata.uid}, UID in object meta: ${existing.uid}`,
      );
    }
    const old = existing.object;
    const oldMetadata = old.metadata as JsonMap;
    let next: JsonMap;
    if (options.subresource === "status") {
      next = { ...old };
      if (body.status === undefined) delete next.status;
      else next.status = body.status;
    } else {
      next = {
        apiVersion: groupVersion(info),
        kind: info.kind,
        ...withoutKeys(body, ["apiVersion", "kind", "metadata"]),
        metadata,
      };
      if (info.statusSubresource && !options.direct) {
        if (old.status === undefined) delete next.status;
        else next.status = old.status;
      }
    }
    const nextMetadata: JsonMap = {
      ...(options.subresource === "status" ? oldMetadata : next.metadata as JsonMap),
      name,
      uid: existing.uid,
      creationTimestamp: oldMetadata.creationTimestamp ?? null,
      resourceVersion: String(existing.rv),
    };
    if (info.namespaced) nextMetadata.namespace = namespace;
    else delete nextMetadata.namespace;
    if (info.generation) {
      const generation = typeof oldMetadata.generation === "number" ? oldMetadata.generation : 1;
      nextMetadata.generation = jsonEqual(specPart(old), specPart(next)) ? generation : generation + 1;
    } else {
      delete nextMetadata.generation;
    }
    next.metadata = nextMetadata;
    withManagedFields(next, old, options.managedFields, () => this.now());
    this.#validate(info, name, next);
    // A write that changes nothing is not a write: same resourceVersion, no event.
    if (jsonEqual(next, old)) return existing;
    const rv = options.dryRun ? this.#rv : this.#rv + 1;
    nextMetadata.resourceVersion = String(rv);
    const stored = this.#stored(info, existing.namespace, name, rv, existing.uid, next);
    if (options.dryRun) return stored;
    this.#rv = rv;
    store.commit(new Event("MODIFIED", stored, existing));
    return stored;
  }

  /** Deletes an object; the preconditions (from DeleteOptions) must hold. Returns the deleted state. */
  remove(
    store: KindStore,
    namespace: string,
    name: string,
    preconditions: { readonly resourceVersion?: string; readonly uid?: string },
    options: WriteOptions = {},
  ): StoredObject {
    const { info } = store;
    const existing = this.get(store, namespace, name);
    if (existing === undefined) throw notFound(info, name);
    if (
      preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== String(existing.rv)
    ) {
      throw conflict(
        info,
        name,
        `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ` +
          `ResourceVersion in object meta: ${existing.rv}`,
      );
    }
    if (preconditions.uid !== undefined && preconditions.uid !== existing.uid) {
      throw conflict(
        info,
        name,
        `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${existing.uid}`,
      );
    }
    if (options.dryRun) return existing;
    const rv = this.#rv + 1;
    const object: JsonMap = {
      ...existing.object,
      metadata: { ...(existing.object.metadata as JsonMap), resourceVersion: String(rv) },
    };
    const stored = this.#stored(info, existing.namespace, name, rv, existing.uid, object);
    this.#rv = rv;
    store.commit(new Event("DELETED", stored, existing));
    return stored;
  }

  /**
   * The objects passing `filter` as of `atRv` (default: now), in key order. An older version is
   * rebuilt from history; one older than the history window is 410, a future one 504.
   */
  snapshot(store: KindStore, filter: Filter, atRv?: number): Snapshot {
    const rv = atRv ?? this.#rv;
    if (rv > this.#rv) throw resourceVersionTooLarge(rv, this.#rv);
    if (rv < store.floor) throw tooOldResourceVersion(rv, store.floor);
    const later = store.eventsAfter(rv);
    let objects: ReadonlyMap<string, StoredObject> = store.objects;
    let keys = store.sortedKeys();
    if (later.length > 0) {
      const past = new Map(store.objects);
      for (let i = later.length - 1; i >= 0; i--) {
        const event = later[i]!;
        if (event.previous === undefined) past.delete(event.current.key);
        else past.set(event.current.key, event.previous);
      }
      objects = past;
      keys = [...past.keys()].sort();
    }
    const items: StoredObject[] = [];
    const everything = filter.namespace === undefined && (filter.labels?.length ?? 0) === 0 &&
      (filter.fields?.length ?? 0) === 0;
    for (const key of keys) {
      const object = objects.get(key)!;
      if (everything || matches(filter, object)) items.push(object);
    }
    return { rv, items };
  }

  /**
   * The events a watch from `rv` must replay before live ones. Throws 410 when history no longer
   * reaches back to `rv` and 504 (`ResourceVersionTooLarge`) when `rv` is in the future.
   */
  replayAfter(store: KindStore, rv: number): StoreEvent[] {
    if (rv > this.#rv) throw resourceVersionTooLarge(rv, this.#rv);
    if (rv < store.floor) throw tooOldResourceVersion(rv, store.floor);
    return store.eventsAfter(rv);
  }

  /** A synthetic `ADDED` event for an existing object (the initial state of a watch from "0"). */
  static added(object: StoredObject): StoreEvent {
    return new Event("ADDED", object, undefined);
  }

  /**
   * The same change for a watcher whose selector the object entered (`ADDED` with the new state)
   * or left (`DELETED` with the previous state at the change's resourceVersion), as the real
   * watch cache sends it.
   */
  static retyped(event: StoreEvent, type: "ADDED" | "DELETED"): StoreEvent {
    if (type === "ADDED" || event.previous === undefined) {
      return new Event(type, event.current, event.previous);
    }
    const previous = event.previous;
    const object: JsonMap = {
      ...previous.object,
      metadata: { ...(previous.object.metadata as JsonMap), resourceVersion: String(event.rv) },
    };
    return new Event(
      "DELETED",
      { ...previous, rv: event.rv, object, json: JSON.stringify(object) },
      previous,
    );
  }
}
