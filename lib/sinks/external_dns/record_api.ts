/**
 * The API calls the sink makes for one output kind (DNSEndpoints or Services) in the records
 * namespace, with answers already reduced to {@linkcode ObservedRecord}s. It hides which kind is
 * in use from the reconciler, and it is the only place that writes: every update carries the
 * resourceVersion it was planned from and every delete the uid and resourceVersion, so a change
 * made in between (someone taking an object over by relabelling it) is a 409, never overwritten.
 *
 * @module
 */

import type { KubeClient } from "../../kube/client.ts";
import { KubeDecodeError } from "../../kube/decode_error.ts";
import { isNotFound } from "../../kube/errors.ts";
import type { JsonObject } from "../../resources/json.ts";
import type { KubeObject } from "../../resources/kube_object.ts";
import { DNS_ENDPOINT } from "../../resources/dns_endpoint.ts";
import type { ResourceType } from "../../resources/resource_type.ts";
import { SERVICE } from "../../resources/service.ts";
import { observeDnsEndpoint, type ObservedRecord, observeService } from "./observed.ts";
import { isOwned, ownershipSelector } from "./ownership.ts";
import type { RecordOutput } from "./record_names.ts";
import type { DesiredRecord } from "./records.ts";

/** The client calls the sink uses; a {@linkcode KubeClient} has them all. */
export type RecordClient = Pick<KubeClient, "get" | "listAll" | "create" | "mergePatch" | "delete">;

/** What a name holds right now. */
export type Lookup =
  | { readonly kind: "absent" }
  | { readonly kind: "owned"; readonly record: ObservedRecord }
  | { readonly kind: "foreign"; readonly record: ObservedRecord }
  /** Something is there, but it does not decode as the kind: neither ours to write nor to delete. */
  | { readonly kind: "unreadable"; readonly reason: string };

/** The owned records of the namespace. */
export interface OwnedListing {
  readonly owned: readonly ObservedRecord[];
  /** Names of listed objects that could not be decoded. */
  readonly unreadable: readonly string[];
}

/** The calls, bound to one kind, namespace and instance. */
export interface RecordApi {
  /** `DNSEndpoint` or `Service`, for messages. */
  readonly noun: string;
  list(signal: AbortSignal): Promise<OwnedListing>;
  lookup(name: string, signal: AbortSignal): Promise<Lookup>;
  create(record: DesiredRecord, signal: AbortSignal): Promise<void>;
  patch(record: ObservedRecord, patch: JsonObject, signal: AbortSignal): Promise<void>;
  delete(record: ObservedRecord, signal: AbortSignal): Promise<void>;
}

function bind<T extends KubeObject>(
  client: RecordClient,
  type: ResourceType<T>,
  namespace: string,
  instance: string,
  observe: (object: T) => ObservedRecord,
): RecordApi {
  return {
    noun: type.kind,
    async list(signal) {
      const page = await client.listAll(type, {
        namespace,
        labelSelector: ownershipSelector(instance),
        signal,
      });
      return {
        // The selector already chose these; the re-check guards against a server that ignores it.
        owned: page.items.filter((item) => isOwned(item.metadata.labels, instance)).map(observe),
        unreadable: page.rejected.map((failure) => failure.key.slice(failure.key.indexOf("/") + 1)),
      };
    },
    async lookup(name, signal) {
      try {
        const found = await client.get(type, { namespace, name }, { signal });
        const record = observe(found);
        return isOwned(found.metadata.labels, instance)
          ? { kind: "owned", record }
          : { kind: "foreign", record };
      } catch (error) {
        if (isNotFound(error)) return { kind: "absent" };
        if (error instanceof KubeDecodeError) return { kind: "unreadable", reason: error.message };
        throw error;
      }
    },
    async create(record, signal) {
      await client.create(type, record.manifest, { signal });
    },
    async patch(record, patch, signal) {
      await client.mergePatch(type, { namespace, name: record.name }, patch, {
        resourceVersion: record.resourceVersion,
        signal,
      });
    },
    async delete(record, signal) {
      await client.delete(type, { namespace, name: record.name }, {
        ...(record.uid === "" ? {} : { uid: record.uid }),
        resourceVersion: record.resourceVersion,
        signal,
      });
    },
  };
}

/** The calls for `output`'s kind. `annotationPrefix` finds a Service's hostname annotation. */
export function recordApi(
  client: RecordClient,
  where: {
    readonly output: RecordOutput;
    readonly namespace: string;
    readonly instance: string;
    readonly annotationPrefix: string;
  },
): RecordApi {
  return where.output === "crd"
    ? bind(client, DNS_ENDPOINT, where.namespace, where.instance, observeDnsEndpoint)
    : bind(
      client,
      SERVICE,
      where.namespace,
      where.instance,
      (s) => observeService(s, where.annotationPrefix),
    );
}
