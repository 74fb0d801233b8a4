/**
 * What callers hand `KubeClient` (`client.ts`): which object or collection a call is about, the
 * manifest a write sends, and the options of each call (deadline, cancellation, selectors,
 * paging, write preconditions), so the client's module holds only the calls themselves.
 * `client.ts` re-exports every name here.
 *
 * Pure: types only.
 *
 * @module
 */

import type { ListOptions } from "./list_watch.ts";
import type { TransportOptions } from "./transport.ts";
import type { Log } from "../util/logging.ts";

/** Names one object: `namespace` is required for namespaced types and refused for cluster-scoped ones. */
export interface ObjectRef {
  readonly namespace?: string;
  readonly name: string;
}

/** Options every call takes. */
export interface CallOptions {
  /** Aborting cancels the call; the abort reason is rethrown. */
  readonly signal?: AbortSignal;
  /** This call's deadline instead of the client's. */
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
  /** Items per page. @default 500 (kube-rs' and kubectl's page size) */
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

/**
 * Options for `KubeClient.apply` (server-side apply).
 *
 * @example
 * ```ts
 * import { SERVICE } from "../resources/service.ts";
 * import { KubeClient } from "./client.ts";
 * import type { ApplyOptions } from "./client_options.ts";
 *
 * using client = new KubeClient({ server: "http://127.0.0.1:8080" });
 * const manifest = { metadata: { name: "api", namespace: "kuberture" }, spec: { clusterIP: "None" } };
 * const options: ApplyOptions = { fieldManager: "kuberture", force: true };
 * await client.apply(SERVICE, manifest, options);
 * ```
 */
export interface ApplyOptions extends WriteOptions {
  /**
   * Who owns the applied fields: required, the server refuses an apply without one (422).
   * Each field the manifest sets becomes this manager's; a field it set in an earlier apply and
   * leaves out now is removed, unless another manager owns it too.
   */
  readonly fieldManager: string;
  /**
   * Take over fields another manager owns with a different value, instead of the 409 Conflict
   * the server answers without it (`isConflict`; its message lists each field and its manager).
   * @default false
   */
  readonly force?: boolean;
}

/** Options for `KubeClient.mergePatch`. */
export interface PatchOptions extends WriteOptions {
  /**
   * Apply only if the object is still at this version (else 409 Conflict): put into the patch
   * as `metadata.resourceVersion`, the API server's optimistic-concurrency precondition.
   */
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
