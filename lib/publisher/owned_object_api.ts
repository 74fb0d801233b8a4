/**
 * The writer's API calls bound to one kind, namespace and ownership, so the writer is one piece for
 * every kind. Every write is conditional (resourceVersion, plus uid on delete): a change made in
 * between, such as a relabelling to take an object over, is a 409, never overwritten.
 *
 * Effects: each call is one API request (a list may be several pages); binding does no I/O.
 *
 * @module
 */

import type { KubeClient, Manifest } from "../kube/client.ts";
import { KubeDecodeError } from "../kube/decode_error.ts";
import { isNotFound } from "../kube/errors.ts";
import type { JsonObject } from "../resources/json.ts";
import type { KubeObject } from "../resources/kube_object.ts";
import { apiVersion, type ResourceType } from "../resources/resource_type.ts";
import { isOwnedBy, type ObjectOwnership, ownerSelector } from "./object_ownership.ts";
import type { DesiredObject, ObservedObject } from "./owned_object_plan.ts";

/** The client calls the writer makes; a {@linkcode KubeClient} has them all. */
export type OwnedObjectClient = Pick<
  KubeClient,
  "get" | "listAll" | "create" | "mergePatch" | "apply" | "delete"
>;

/** What a name holds right now. */
export type Lookup<O extends ObservedObject> =
  | { readonly kind: "absent" }
  | { readonly kind: "owned"; readonly object: O }
  | { readonly kind: "foreign"; readonly object: O }
  /** Something is there, but it does not decode as the kind: neither ours to write nor to delete. */
  | { readonly kind: "unreadable"; readonly reason: string };

/** The owned objects of the namespace. */
export interface OwnedListing<O extends ObservedObject> {
  readonly owned: readonly O[];
  /** Names of listed objects that could not be decoded. */
  readonly unreadable: readonly string[];
}

/** What to bind: the kind, where, whose, and how to read an object. */
export interface OwnedObjectApiOptions<T extends KubeObject, O extends ObservedObject> {
  readonly client: OwnedObjectClient;
  readonly type: ResourceType<T>;
  readonly namespace: string;
  readonly ownership: ObjectOwnership;
  /** Reduces a decoded object to what the plan compares (its owned fields, and its group). */
  readonly observe: (object: T) => O;
  /** `managedFields` manager of creates and updates. @default the client's */
  readonly fieldManager?: string;
  /**
   * Write by server-side apply (forced) as `fieldManager`, instead of create and merge patch: the
   * whole intent is applied every pass and fields other managers own stay (kuberture's way, so
   * objects the original wrote are taken over cleanly). An update carries the resourceVersion it
   * was planned from.
   */
  readonly serverSideApply?: boolean;
}

/** The calls, bound. */
export interface OwnedObjectApi<O extends ObservedObject> {
  /** `DNSEndpoint`, `Service`: for messages. */
  readonly kind: string;
  /** `externaldns.k8s.io/v1alpha1`, `v1`: for Events on an object. */
  readonly apiVersion: string;
  readonly namespace: string;
  readonly ownership: ObjectOwnership;
  /** True when writes are server-side applies (every wanted object is applied each pass). */
  readonly applies: boolean;
  /** Lists by the ownership selector, re-checking both labels. */
  list(signal: AbortSignal): Promise<OwnedListing<O>>;
  lookup(name: string, signal: AbortSignal): Promise<Lookup<O>>;
  /** Creates `manifest` in the bound namespace. */
  create(manifest: Manifest, signal: AbortSignal): Promise<void>;
  /**
   * Takes `observed` to `desired` at the resourceVersion it was read at (a merge patch of just
   * `patch`, or an apply of the whole intent); true when the server stored a change.
   */
  update(desired: DesiredObject, observed: O, patch: JsonObject, signal: AbortSignal): Promise<boolean>;
  /** Deletes `observed`, only if its uid and resourceVersion are still those read. */
  delete(observed: O, signal: AbortSignal): Promise<void>;
}

/** Binds the calls. */
export function ownedObjectApi<T extends KubeObject, O extends ObservedObject>(
  options: OwnedObjectApiOptions<T, O>,
): OwnedObjectApi<O> {
  const { client, type, namespace, ownership, observe } = options;
  const manager = options.fieldManager === undefined ? {} : { fieldManager: options.fieldManager };
  const applies = options.serverSideApply === true;
  if (applies && options.fieldManager === undefined) {
    throw new TypeError("server-side apply needs a fieldManager");
  }
  const apply = (manifest: Manifest, signal: AbortSignal) =>
    client.apply(type, manifest, { fieldManager: options.fieldManager!, force: true, signal });
  return {
    kind: type.kind,
    apiVersion: apiVersion(type),
    namespace,
    ownership,
    applies,
    async list(signal) {
      const page = await client.listAll(type, { namespace, labelSelector: ownerSelector(ownership), signal });
      return {
        // The selector already chose these; the re-check guards against a server that ignores it.
        owned: page.items.filter((item) => isOwnedBy(item.metadata.labels, ownership)).map(observe),
        unreadable: page.rejected.map((failure) => failure.key.slice(failure.key.indexOf("/") + 1)),
      };
    },
    async lookup(name, signal) {
      try {
        const found = await client.get(type, { namespace, name }, { signal });
        const object = observe(found);
        return isOwnedBy(found.metadata.labels, ownership)
          ? { kind: "owned", object }
          : { kind: "foreign", object };
      } catch (error) {
        if (isNotFound(error)) return { kind: "absent" };
        if (error instanceof KubeDecodeError) return { kind: "unreadable", reason: error.message };
        throw error;
      }
    },
    async create(manifest, signal) {
      const metadata = { ...manifest.metadata, namespace };
      if (applies) await apply({ ...manifest, metadata }, signal);
      else await client.create(type, { ...manifest, metadata }, { ...manager, signal });
    },
    async update(desired, observed, patch, signal) {
      if (applies) {
        const { resourceVersion } = observed;
        const metadata = { ...desired.manifest.metadata, namespace, resourceVersion };
        const stored = await apply({ ...desired.manifest, metadata }, signal);
        return stored.metadata.resourceVersion !== resourceVersion;
      }
      await client.mergePatch(type, { namespace, name: observed.name }, patch, {
        ...manager,
        resourceVersion: observed.resourceVersion,
        signal,
      });
      return true;
    },
    async delete(observed, signal) {
      await client.delete(type, { namespace, name: observed.name }, {
        ...(observed.uid === "" ? {} : { uid: observed.uid }),
        resourceVersion: observed.resourceVersion,
        signal,
      });
    },
  };
}
