/**
 * PATCH and who writes: the three patch types the fake accepts (JSON merge patch, strategic
 * merge patch approximated as merge patch, server-side apply) and the field manager every write
 * records (`managed_fields.ts`). Anything else, JSON patch included, is 415 (so kubectl's
 * migration of client-side-apply ownership, a JSON patch it sends after a server-side apply, is
 * refused; kubectl warns that this is non-fatal and goes on).
 *
 * A `metadata.resourceVersion` (or `uid`) in a patch, an apply's included, is a precondition
 * (409 when stale), as on the real server. A merge patch on a missing object is 404; an apply creates it (201). Options
 * are checked as the real server checks `PatchOptions`: apply needs `fieldManager`, and `force`
 * is refused on other patches (both 422).
 *
 * Effects: writes to the {@linkcode Store} it is given.
 *
 * @module
 */

import { APPLY_PATCH, applyConfiguration, parseConfiguration } from "./apply.ts";
import { isJsonMap, type Json, type JsonMap, parseJsonObject } from "./json.ts";
import { groupVersion, type KindInfo } from "./kinds.ts";
import {
  encodeManagedFields,
  managerFromUserAgent,
  updatedManagedFields,
  type Writer,
} from "./managed_fields.ts";
import { mergePatch, strategicMergePatch } from "./merge_patch.ts";
import { badRequest, conflict, FakeApiError, notFound, STALE_OBJECT, statusBody } from "./status.ts";
import type { KindStore, ManagedFieldsHook, Store, StoredObject } from "./store.ts";

const MERGE_PATCH = "application/merge-patch+json";
const STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json";

/** The writer of a request: its `fieldManager`, else its user agent's product name. */
export function writerOf(query: URLSearchParams, userAgent: string, subresource?: string): Writer {
  const named = query.get("fieldManager") ?? "";
  return {
    manager: named === "" ? managerFromUserAgent(userAgent) : named,
    ...(subresource === undefined ? {} : { subresource }),
  };
}

/** The store hook that records an ordinary write (operation `Update`) of `writer` on `info`. */
export function recordedBy(info: KindInfo, writer: Writer): ManagedFieldsHook {
  return (before, after, time) =>
    updatedManagedFields(before, after, { writer, apiVersion: groupVersion(info), time });
}

function mediaType(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** The patch function of a non-apply content type; 415 for any other (apply included, where it is not served). */
export function patchFunction(contentType: string | null): (target: Json, patch: Json) => Json {
  const type = mediaType(contentType);
  if (type === MERGE_PATCH) return mergePatch;
  if (type === STRATEGIC_MERGE_PATCH) return strategicMergePatch;
  throw new FakeApiError(
    statusBody(
      415,
      "UnsupportedMediaType",
      `the body of the request was in an unknown format - accepted media types include: ` +
        `${MERGE_PATCH}, ${STRATEGIC_MERGE_PATCH}, ${APPLY_PATCH}`,
      {},
    ),
  );
}

/** Refuses a stale `metadata.resourceVersion` or a wrong `uid` in a patch. */
export function checkPatchPreconditions(
  info: KindInfo,
  name: string,
  existing: StoredObject,
  patchBody: JsonMap,
): void {
  const metadata = isJsonMap(patchBody.metadata) ? patchBody.metadata : {};
  const rv = metadata.resourceVersion;
  if (rv !== undefined && rv !== null && String(rv) !== String(existing.rv)) {
    throw conflict(info, name, STALE_OBJECT);
  }
  const uid = metadata.uid;
  if (typeof uid === "string" && uid !== existing.uid) {
    throw conflict(
      info,
      name,
      `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${existing.uid}`,
    );
  }
}

function invalidPatchOptions(field: string, reason: string, detail: string): FakeApiError {
  return new FakeApiError(
    statusBody(422, "Invalid", `PatchOptions.meta.k8s.io "" is invalid: ${field}: ${detail}`, {
      group: "meta.k8s.io",
      kind: "PatchOptions",
      causes: [{ reason, message: detail, field }],
    }),
  );
}

/** One PATCH request, as the HTTP layer hands it over. */
export interface PatchRequest {
  readonly kind: KindStore;
  readonly namespace: string;
  readonly name: string;
  readonly contentType: string | null;
  readonly body: string;
  readonly query: URLSearchParams;
  readonly userAgent: string;
  readonly dryRun: boolean;
  readonly subresource?: "status";
}

/** What a PATCH did: the object as stored, and whether it was created (an apply of a new object). */
export interface Patched {
  readonly stored: StoredObject;
  readonly created: boolean;
}

/** Applies a PATCH of any accepted type to the object (or, for an apply, creates it). */
export function patchObject(store: Store, request: PatchRequest): Patched {
  const { kind, namespace, name, query, dryRun, subresource } = request;
  const { info } = kind;
  const apply = mediaType(request.contentType) === APPLY_PATCH;
  if (apply && (query.get("fieldManager") ?? "") === "") {
    throw invalidPatchOptions(
      "fieldManager",
      "FieldValueRequired",
      "Required value: is required for apply patch",
    );
  }
  if (!apply && query.has("force")) {
    throw invalidPatchOptions(
      "force",
      "FieldValueForbidden",
      "Forbidden: may not be specified for non-apply patch",
    );
  }
  const existing = store.get(kind, namespace, name);
  const options = { dryRun, patch: true, ...(subresource === undefined ? {} : { subresource }) };
  if (!apply) {
    const merge = patchFunction(request.contentType);
    const patchBody = parseJsonObject(request.body);
    if (existing === undefined) throw notFound(info, name);
    checkPatchPreconditions(info, name, existing, patchBody);
    const patched = merge(existing.object, patchBody);
    if (!isJsonMap(patched)) throw badRequest("the patch must leave an object");
    const metadata = isJsonMap(patched.metadata) ? { ...patched.metadata } : {};
    metadata.resourceVersion = String(existing.rv);
    const writer = writerOf(query, request.userAgent, subresource);
    const stored = store.update(kind, namespace, name, { ...patched, metadata }, {
      ...options,
      managedFields: recordedBy(info, writer),
    });
    return { stored, created: false };
  }
  const config = parseConfiguration(request.body, groupVersion(info));
  const given = isJsonMap(config.metadata) ? config.metadata : {};
  if (given.name !== undefined && given.name !== name) {
    throw badRequest(
      `the name of the object (${String(given.name)}) does not match the name on the URL (${name})`,
    );
  }
  if (existing === undefined && subresource !== undefined) throw notFound(info, name);
  // A resourceVersion in a configuration is a precondition, never a field anyone owns. Given for
  // an object that does not exist, it is approximated as 404 (the version asked for is gone).
  if (given.resourceVersion !== undefined && given.resourceVersion !== null) {
    if (existing === undefined) throw notFound(info, name);
    checkPatchPreconditions(info, name, existing, config);
    const { resourceVersion: _precondition, ...metadata } = given;
    config.metadata = metadata;
  }
  const live: JsonMap = existing?.object ??
    {
      apiVersion: groupVersion(info),
      kind: info.kind,
      metadata: { name, ...(info.namespaced ? { namespace } : {}) },
    };
  const applied = applyConfiguration(live, config, {
    manager: query.get("fieldManager")!,
    force: query.get("force") === "true",
    apiVersion: groupVersion(info),
    time: store.now(),
    statusSubresource: info.statusSubresource,
    ...(subresource === undefined ? {} : { subresource }),
  });
  const managedFields = (): Json[] | undefined => encodeManagedFields(applied.entries);
  if (existing === undefined) {
    return {
      stored: store.create(kind, namespace, applied.object, { dryRun, managedFields }),
      created: true,
    };
  }
  return {
    stored: store.update(kind, namespace, name, applied.object, { ...options, managedFields }),
    created: false,
  };
}
