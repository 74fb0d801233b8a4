/**
 * Core `v1` Event as `ouroboros doctor` reads it back: the fields of `event.ts`'s view plus
 * when it last happened, so the doctor can keep only recent ones. A separate type from
 * `event.ts` (what the recorder writes and reads) so neither carries fields the other never
 * reads.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { CoreV1Event } from "@kubernetes/client-node";
import type { KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** An Event with its last time. */
export interface TimedEvent extends KubeObject {
  /** `Kind namespace/name` of the object it is about, as `kind`, `namespace` and `name`. */
  readonly involvedObject: { readonly kind: string; readonly namespace: string; readonly name: string };
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly count: number;
  /** `source.component`, else `reportingComponent`. */
  readonly component: string;
  /**
   * When it last happened, RFC 3339: `lastTimestamp`, else `eventTime`, else `firstTimestamp`,
   * else the object's `creationTimestamp`; absent when none is set.
   */
  readonly lastSeen?: string;
}

/** The Event resource type, read with its times. */
export const TIMED_EVENT: ResourceType<TimedEvent> = defineResourceType<CoreV1Event, TimedEvent>(
  { group: "", version: "v1", kind: "Event", plural: "events", namespaced: true },
  (root, metadata) => {
    const involved = root.object("involvedObject");
    const lastSeen = root.optionalString("lastTimestamp") || root.optionalString("eventTime") ||
      root.optionalString("firstTimestamp") || metadata.creationTimestamp;
    return {
      metadata,
      involvedObject: {
        kind: involved.optionalString("kind") ?? "",
        namespace: involved.optionalString("namespace") ?? "",
        name: involved.optionalString("name") ?? "",
      },
      type: root.optionalString("type") ?? "",
      reason: root.optionalString("reason") ?? "",
      message: root.optionalString("message") ?? "",
      count: root.optionalInteger("count") ?? 1,
      component: root.object("source").optionalString("component") ||
        root.optionalString("reportingComponent") ||
        "",
      ...(lastSeen ? { lastSeen } : {}),
    };
  },
);
