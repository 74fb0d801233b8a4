/**
 * Core `v1` Event: the decoded shape, and {@linkcode buildEvent} for the manifest to create.
 *
 * Pure: no I/O; the time is passed in.
 *
 * @module
 */

import type { CoreV1Event } from "@kubernetes/client-node";
import type { Decoder } from "./json.ts";
import type { KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** The object an Event is about. */
export interface InvolvedObject {
  readonly apiVersion: string;
  readonly kind: string;
  /** Empty for cluster-scoped objects. */
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/** The two types `kubectl` knows. */
export type EventType = "Normal" | "Warning";

/** An Event as read back. */
export interface Event extends KubeObject {
  readonly involvedObject: InvolvedObject;
  readonly reason: string;
  readonly message: string;
  readonly type: string;
  readonly count: number;
  /** `source.component` or, for newer writers, `reportingComponent`. */
  readonly component: string;
}

/** What {@linkcode buildEvent} records. */
export interface EventSpec {
  readonly involvedObject: InvolvedObject;
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
  readonly component: string;
  /** The pod name, so replicas can be told apart. */
  readonly instance: string;
}

/** The longest Event message the API server accepts. */
export const EVENT_MESSAGE_LIMIT = 1024;

/** The manifest of a new Event, named as client-go names them, in the object's namespace. */
export function buildEvent(spec: EventSpec, now: Date): Record<string, unknown> {
  const time = now.toISOString().replace(/\.\d{3}Z$/, "Z");
  const nanos = BigInt(now.getTime()) * 1_000_000n;
  const involved = spec.involvedObject;
  const message = spec.message.length > EVENT_MESSAGE_LIMIT
    ? `${spec.message.slice(0, EVENT_MESSAGE_LIMIT - 3)}...`
    : spec.message;
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: {
      name: `${involved.name}.${nanos.toString(16)}`,
      namespace: involved.namespace === "" ? "default" : involved.namespace,
    },
    involvedObject: {
      apiVersion: involved.apiVersion,
      kind: involved.kind,
      name: involved.name,
      ...(involved.namespace === "" ? {} : { namespace: involved.namespace }),
      ...(involved.uid === "" ? {} : { uid: involved.uid }),
    },
    reason: spec.reason,
    message,
    type: spec.type,
    count: 1,
    firstTimestamp: time,
    lastTimestamp: time,
    source: { component: spec.component },
    reportingComponent: spec.component,
    reportingInstance: spec.instance,
  };
}

/** The Event resource type (core group; writes need RBAC `create` on `events`). */
export const EVENT: ResourceType<Event> = defineResourceType<CoreV1Event, Event>(
  { group: "", version: "v1", kind: "Event", plural: "events", namespaced: true },
  (root, metadata) => {
    const involved = root.object("involvedObject");
    return {
      metadata,
      involvedObject: {
        apiVersion: involved.optionalString("apiVersion") ?? "",
        kind: involved.string("kind"),
        namespace: involved.optionalString("namespace") ?? "",
        name: involved.string("name"),
        uid: involved.optionalString("uid") ?? "",
      },
      reason: root.optionalString("reason") ?? "",
      message: root.optionalString("message") ?? "",
      type: root.optionalString("type") ?? "",
      count: root.optionalInteger("count") ?? 1,
      component: root.object("source").optionalString("component") ||
        root.optionalString("reportingComponent") ||
        "",
    };
  },
);

/** Decodes a raw Event; never throws. */
export const decodeEvent: Decoder<Event> = EVENT.decode;
