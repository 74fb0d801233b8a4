/**
 * What the par side did to one object in one pass, as a value (the managers never log), and the
 * one write they all make: a merge patch conditional on the version the plan was made from.
 *
 * Effects: `patchObject` writes through the API client.
 *
 * @module
 */

import type { KubeClient } from "../../kube/client.ts";
import { isConflict } from "../../kube/errors.ts";
import type { JsonObject } from "../../resources/json.ts";
import { type KubeObject, objectKey } from "../../resources/kube_object.ts";
import type { ResourceType } from "../../resources/resource_type.ts";
import { errorMessage } from "../../util/error_message.ts";

/** What a write was for. */
export type ParAction =
  /** A Deployment's pod template pointed at this server. */
  | "opt-in"
  /** An opted-in template's DNS settings re-targeted (a new address or cluster domain). */
  | "update"
  /** A Deployment's original DNS settings put back. */
  | "restore"
  /** Only the annotation removed, as someone else changed the Deployment (uninstall). */
  | "release"
  /** A proxy ConfigMap rendered. */
  | "render"
  /** A proxy Deployment rolled for its new configuration. */
  | "restart";

/** One object's outcome. `target` names it: `Deployment shop/web`, `ConfigMap par/nginx`. */
export type ParOutcome =
  | {
    readonly kind: "written";
    readonly target: string;
    readonly action: ParAction;
    readonly detail: string;
    readonly notice?: string;
  }
  | { readonly kind: "unchanged"; readonly target: string; readonly notice?: string }
  | { readonly kind: "skipped"; readonly target: string; readonly reason: string }
  | {
    readonly kind: "failed";
    readonly target: string;
    readonly action: ParAction;
    readonly reason: string;
    /** A 409: the object changed after the plan read it (often our own write not yet seen). */
    readonly conflict?: boolean;
  };

/** The part of the API client the par side writes with. */
export type ParWriteApi = Pick<KubeClient, "mergePatch">;

/** `Deployment shop/web`. */
export function targetName(kind: string, object: KubeObject): string {
  return `${kind} ${objectKey(object.metadata)}`;
}

/** What one write intends. */
export interface PatchRequest<T extends KubeObject> {
  readonly type: ResourceType<T>;
  /** The object as the plan saw it; its resourceVersion is the write's precondition. */
  readonly object: KubeObject;
  readonly patch: JsonObject;
  readonly action: ParAction;
  readonly detail: string;
  readonly signal: AbortSignal;
  readonly notice?: string;
}

/** Sends one merge patch; an abort is rethrown, every other error is a `failed` outcome. */
export async function patchObject<T extends KubeObject>(
  api: ParWriteApi,
  request: PatchRequest<T>,
): Promise<ParOutcome> {
  const { type, object, action, signal } = request;
  const target = targetName(type.kind, object);
  try {
    await api.mergePatch(
      type,
      { namespace: object.metadata.namespace, name: object.metadata.name },
      request.patch,
      {
        resourceVersion: object.metadata.resourceVersion,
        signal,
      },
    );
    return {
      kind: "written",
      target,
      action,
      detail: request.detail,
      ...(request.notice === undefined ? {} : { notice: request.notice }),
    };
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (!isConflict(error)) return { kind: "failed", target, action, reason: errorMessage(error) };
    const reason = `it changed while this pass planned (${errorMessage(error)}); the next pass plans again`;
    return { kind: "failed", target, action, reason, conflict: true };
  }
}

/**
 * Objects written whose new version the caches may not show yet, skipped by the next pass rather
 * than patched again (a 409 from the precondition).
 */
export class PendingWrites {
  readonly #plannedFrom = new Map<string, string>();

  /** True while `object` is still at the version a successful write was planned from. */
  waiting(target: string, object: KubeObject): boolean {
    const from = this.#plannedFrom.get(target);
    if (from === undefined) return false;
    if (from === object.metadata.resourceVersion) return true;
    this.#plannedFrom.delete(target);
    return false;
  }

  record(outcome: ParOutcome, object: KubeObject): void {
    if (outcome.kind === "written") this.#plannedFrom.set(outcome.target, object.metadata.resourceVersion);
  }

  /** Forgets every object not in `targets`. */
  retain(targets: ReadonlySet<string>): void {
    for (const target of [...this.#plannedFrom.keys()]) {
      if (!targets.has(target)) this.#plannedFrom.delete(target);
    }
  }
}
