/**
 * Core `v1` Event as `ouroboros doctor` reads it: `event.ts`'s view plus when it last happened.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { EVENT, type Event } from "./event.ts";
import { asObject } from "./json.ts";
import type { ResourceType } from "./resource_type.ts";

/** An Event with its last time. */
export interface TimedEvent extends Event {
  /** RFC 3339: `lastTimestamp`, else `eventTime`, `firstTimestamp`, `creationTimestamp`. */
  readonly lastSeen?: string;
}

/** The Event resource type, read with its times. */
export const TIMED_EVENT: ResourceType<TimedEvent> = {
  group: EVENT.group,
  version: EVENT.version,
  kind: EVENT.kind,
  plural: EVENT.plural,
  namespaced: EVENT.namespaced,
  decode(raw) {
    const decoded = EVENT.decode(raw);
    if (!decoded.ok) return decoded;
    const object = asObject(raw) ?? {};
    const time = (name: string) => {
      const value = object[name];
      return typeof value === "string" && value !== "" ? value : undefined;
    };
    const lastSeen = time("lastTimestamp") ?? time("eventTime") ?? time("firstTimestamp") ??
      decoded.value.metadata.creationTimestamp;
    return { ok: true, value: { ...decoded.value, ...(lastSeen === undefined ? {} : { lastSeen }) } };
  },
};
