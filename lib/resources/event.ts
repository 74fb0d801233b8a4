/**
 * Core `v1` Event: what the controller records about its work (`kubectl describe` shows them
 * under the object). Holds the narrow decoded shape, and {@linkcode buildEvent}, which makes the
 * manifest to create.
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

/** `Normal` or `Warning`, the two types `kubectl` knows. */
export type EventType = "Normal" | "Warning";

/** An Event as read back. */
export interface Event extends KubeObject {
  readonly involvedObject: InvolvedObject;
  /** A short CamelCase reason: `CorefileUpdated`. */
  readonly reason: string;
  readonly message: string;
  /** `Normal`, `Warning`, or whatever another writer put there. */
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
  /** The reporting controller: `ouroboros`. */
  readonly component: string;
  /** The reporting instance (pod name), so replicas can be told apart. */
  readonly instance: string;
}

/** The longest message the API server stores in an Event (it rejects longer ones). */
export const EVENT_MESSAGE_LIMIT = 1024;

/**
 * The manifest of a new Event about `spec.involvedObject`, at `now`. Named like client-go's
 * recorder (`<object name>.<nanoseconds in hex>`), in the object's namespace (`default` for
 * cluster-scoped objects), with the message cut to what the API server accepts.
 */
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
