/**
 * What callers hand `KubeClient`: object refs, manifests and each call's options.
 * `client.ts` re-exports every name here.
 *
 * Pure: types only.
 *
 * @module
 */

import type { ListOptions } from "./list_watch.ts";
import type { TransportOptions } from "./transport.ts";
import type { Log } from "../util/logging.ts";

/** Names one object: `namespace` is required for namespaced types, refused for others. */
export interface ObjectRef {
  readonly namespace?: string;
  readonly name: string;
}

/** Options every call takes. */
export interface CallOptions {
  /** Aborting cancels the call; the abort reason is rethrown. */
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

/** Which objects a list or watch covers. */
export interface Scope {
  /** One namespace; absent: all namespaces (or a cluster-scoped type). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

/** Options for `KubeClient.list`: one page. */
export interface ClientListOptions extends ListOptions, Scope {
  readonly timeoutMs?: number;
}

/** Options for `KubeClient.listAll`. */
export interface ListAllOptions extends Scope, CallOptions {
  /** `"0"` for the watch cache, a version for "at least this new", absent for a consistent read. */
  readonly resourceVersion?: string;
  /** @default 500 */
  readonly pageSize?: number;
}

/** The metadata a written object carries. Other fields pass through unchanged. */
export interface ManifestMetadata {
  readonly name?: string;
  readonly generateName?: string;
  readonly namespace?: string;
  readonly resourceVersion?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly [field: string]: unknown;
}

/** A whole object to create or replace, as JSON. `apiVersion` and `kind` default to the type's. */
export interface Manifest {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ManifestMetadata;
  readonly [field: string]: unknown;
}

/** Options for writes. */
export interface WriteOptions extends CallOptions {
  /** Recorded in `managedFields`. @default the client's (`ouroboros`) */
  readonly fieldManager?: string;
}

/** Options for `KubeClient.apply` (server-side apply). */
export interface ApplyOptions extends WriteOptions {
  /** Who owns the applied fields; required (the server answers 422 without one). */
  readonly fieldManager: string;
  /** Take over fields another manager owns, instead of a 409 Conflict. @default false */
  readonly force?: boolean;
}

/** Options for `KubeClient.mergePatch`. */
export interface PatchOptions extends WriteOptions {
  /** Apply only if the object is still at this version (else 409 Conflict). */
  readonly resourceVersion?: string;
}

/** Options for `KubeClient.delete`. */
export interface DeleteOptions extends CallOptions {
  /** Delete only if the object is still at this version (else 409 Conflict). */
  readonly resourceVersion?: string;
  /** Delete only this incarnation of the name (else 409 Conflict). */
  readonly uid?: string;
  readonly propagationPolicy?: "Foreground" | "Background" | "Orphan";
}

/** Options for `KubeClient`: where the server is and how to authenticate. */
export interface KubeClientOptions extends TransportOptions {
  /** @default "ouroboros" */
  readonly fieldManager?: string;
  /** Where the client's and its transport's log lines go. @default {logger("kube")} */
  readonly log?: Log;
}
