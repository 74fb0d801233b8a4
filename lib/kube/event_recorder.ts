/**
 * Kubernetes Events about the objects ouroboros depends on, so cluster-side problems show up in
 * `kubectl get events`, not only in our log.
 * - Best effort, a second channel: the caller logs the problem; `record` never throws or stalls.
 * - The same (object, type, reason, message) is sent once per window; the next one after it
 *   bumps `count` by merge patch, as client-go's correlator does (a fresh Event if it expired).
 * - 403 and 404 are one DEBUG line per window (the chart may not grant `events`); other failures
 *   are forgotten, so the next occurrence tries again.
 *
 * Effects: HTTP through the injected client; time from the injected clocks; logs.
 *
 * @module
 */

import {
  buildEvent,
  EVENT,
  type EventSpec,
  type EventType,
  type InvolvedObject,
} from "../resources/event.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import { type Log, logger } from "../util/logging.ts";
import type { KubeClient, Manifest } from "./client.ts";
import { isForbidden, isNotFound } from "./errors.ts";
import { asObject } from "../resources/json.ts";
import { errorMessage } from "../util/error_message.ts";

/** The two client calls the recorder makes. */
export type EventApi = Pick<KubeClient, "create" | "mergePatch">;

/** One thing to record. */
export interface EventNotice {
  /** Its namespace is where the Event is created. */
  readonly object: InvolvedObject;
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
}

/** What {@linkcode EventRecorder.record} did (`suppressed`: a repeat within the window). */
export type RecordResult =
  | { readonly kind: "created"; readonly name: string }
  | { readonly kind: "counted"; readonly name: string; readonly count: number }
  | { readonly kind: "suppressed" }
  | { readonly kind: "failed"; readonly reason: "forbidden" | "not-found" | "error" | "aborted" };

/** Options for {@linkcode EventRecorder}. */
export interface EventRecorderOptions {
  readonly client: EventApi;
  /** `source.component` and `reportingComponent`. @default "ouroboros" */
  readonly component?: string;
  /** `reportingInstance`: the pod name, so replicas can be told apart. */
  readonly instance: string;
  readonly clock?: Clock;
  /** Wall time for the Events' timestamps and names. @default () => new Date() */
  readonly wallClock?: () => Date;
  /** One Event per key per this long. @default 600_000 (10 min) */
  readonly windowMs?: number;
  /** Deadline of each request. @default 5_000 */
  readonly timeoutMs?: number;
  /** Keys remembered at most. @default 1_000 */
  readonly maxEntries?: number;
  /** Keys not seen for this long are forgotten. @default 3_600_000 (the API server's Event TTL) */
  readonly retentionMs?: number;
  readonly log?: Log;
}

/** The default de-duplication window. */
export const DEFAULT_EVENT_WINDOW_MS = 600_000;
/** The default deadline of one Event request. */
export const DEFAULT_EVENT_TIMEOUT_MS = 5_000;

/** What the recorder remembers per key; `repeats` are held back until the next send. */
type Entry =
  | { readonly state: "sending"; repeats: number; lastSeen: number }
  | { readonly state: "stored"; readonly stored: Stored; repeats: number; lastSeen: number }
  /** 403/404 at `sentAt`: repeats in the window stay quiet. */
  | { readonly state: "refused"; readonly sentAt: number; lastSeen: number };

interface Stored {
  readonly name: string;
  readonly namespace: string;
  readonly count: number;
  readonly sentAt: number;
}

/** Records Events with de-duplication; holds at most `maxEntries` keys, none past `retentionMs`. */
export class EventRecorder {
  readonly #client: EventApi;
  readonly #component: string;
  readonly #instance: string;
  readonly #clock: Clock;
  readonly #wallClock: () => Date;
  readonly #windowMs: number;
  readonly #timeoutMs: number;
  readonly #maxEntries: number;
  readonly #retentionMs: number;
  readonly #log: Log;
  readonly #entries = new Map<string, Entry>();
  #lastNameMs = -1;
  #sequence = 0;

  constructor(options: EventRecorderOptions) {
    this.#client = options.client;
    this.#component = options.component ?? "ouroboros";
    this.#instance = options.instance;
    this.#clock = options.clock ?? systemClock;
    this.#wallClock = options.wallClock ?? (() => new Date());
    this.#windowMs = options.windowMs ?? DEFAULT_EVENT_WINDOW_MS;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_EVENT_TIMEOUT_MS;
    this.#maxEntries = options.maxEntries ?? 1_000;
    this.#retentionMs = options.retentionMs ?? 3_600_000;
    this.#log = options.log ?? logger("kube");
  }

  /** How many keys are remembered. */
  get size(): number {
    return this.#entries.size;
  }

  /** Records `notice` unless sent within the window; resolves by the deadline, never rejects. */
  async record(notice: EventNotice, signal?: AbortSignal): Promise<RecordResult> {
    const now = this.#clock.now();
    this.#forgetOld(now);
    const key = keyOf(notice);
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      entry.lastSeen = now;
      if (entry.state === "sending") {
        entry.repeats++;
        return { kind: "suppressed" };
      }
      const sentAt = entry.state === "stored" ? entry.stored.sentAt : entry.sentAt;
      if (now - sentAt < this.#windowMs) {
        if (entry.state === "stored") entry.repeats++;
        return { kind: "suppressed" };
      }
    }
    const previous = entry?.state === "stored" ? entry.stored : undefined;
    const held = entry?.state === "stored" ? entry.repeats : 0;
    // Re-inserting moves the key to the end, so the map's order is least recently sent first.
    this.#entries.delete(key);
    this.#entries.set(key, { state: "sending", repeats: 0, lastSeen: now });
    this.#trim();
    try {
      return previous === undefined
        ? await this.#create(key, notice, signal)
        : await this.#count(key, notice, previous, held + 1, signal);
    } catch (error) {
      return this.#failed(key, notice, error, signal);
    }
  }

  async #create(key: string, notice: EventNotice, signal: AbortSignal | undefined): Promise<RecordResult> {
    const date = this.#wallClock();
    const spec: EventSpec = {
      involvedObject: notice.object,
      type: notice.type,
      reason: notice.reason,
      message: notice.message,
      component: this.#component,
      instance: this.#instance,
    };
    const built = buildEvent(spec, date);
    const metadata = asObject(built.metadata) ?? {};
    const namespace = typeof metadata.namespace === "string" ? metadata.namespace : "default";
    const name = `${notice.object.name}.${this.#nameSuffix(date)}`;
    const manifest: Manifest = { ...built, metadata: { ...metadata, name, namespace } };
    await this.#client.create(EVENT, manifest, this.#callOptions(signal));
    this.#stored(key, { name, namespace, count: 1, sentAt: this.#clock.now() });
    return { kind: "created", name };
  }

  async #count(
    key: string,
    notice: EventNotice,
    previous: Stored,
    added: number,
    signal: AbortSignal | undefined,
  ): Promise<RecordResult> {
    const count = previous.count + added;
    const lastTimestamp = this.#wallClock().toISOString().replace(/\.\d{3}Z$/, "Z");
    try {
      await this.#client.mergePatch(
        EVENT,
        { namespace: previous.namespace, name: previous.name },
        { count, lastTimestamp },
        this.#callOptions(signal),
      );
    } catch (error) {
      // The Event expired (or was deleted): start a new one.
      if (isNotFound(error)) return await this.#create(key, notice, signal);
      throw error;
    }
    this.#stored(key, { ...previous, count, sentAt: this.#clock.now() });
    return { kind: "counted", name: previous.name, count };
  }

  #stored(key: string, stored: Stored): void {
    const entry = this.#entries.get(key);
    const repeats = entry?.state === "sending" ? entry.repeats : 0;
    this.#entries.set(key, { state: "stored", stored, repeats, lastSeen: entry?.lastSeen ?? stored.sentAt });
  }

  #failed(key: string, notice: EventNotice, error: unknown, signal: AbortSignal | undefined): RecordResult {
    const fields = {
      namespace: notice.object.namespace,
      object: `${notice.object.kind}/${notice.object.name}`,
      reason: notice.reason,
      error: errorMessage(error),
    };
    if (signal?.aborted === true) {
      this.#entries.delete(key);
      return { kind: "failed", reason: "aborted" };
    }
    if (isForbidden(error) || isNotFound(error)) {
      const now = this.#clock.now();
      this.#entries.set(key, { state: "refused", sentAt: now, lastSeen: now });
      this.#log.debug(
        isForbidden(error)
          ? "cannot record a Kubernetes Event: RBAC does not allow creating events; the problem is only in this log"
          : "cannot record a Kubernetes Event: its namespace does not exist; the problem is only in this log",
        fields,
      );
      return { kind: "failed", reason: isForbidden(error) ? "forbidden" : "not-found" };
    }
    this.#entries.delete(key);
    this.#log.debug("cannot record a Kubernetes Event; will try again next time", fields);
    return { kind: "failed", reason: "error" };
  }

  #callOptions(signal: AbortSignal | undefined): { signal?: AbortSignal; timeoutMs: number } {
    return { ...(signal === undefined ? {} : { signal }), timeoutMs: this.#timeoutMs };
  }

  /** client-go's name suffix (epoch nanoseconds in hex), plus a sequence within a millisecond. */
  #nameSuffix(date: Date): string {
    const ms = date.getTime();
    this.#sequence = ms === this.#lastNameMs ? this.#sequence + 1 : 0;
    this.#lastNameMs = ms;
    return (BigInt(ms) * 1_000_000n + BigInt(this.#sequence % 1_000_000)).toString(16);
  }

  #forgetOld(now: number): void {
    for (const [key, entry] of this.#entries) {
      if (entry.state !== "sending" && now - entry.lastSeen >= this.#retentionMs) this.#entries.delete(key);
    }
  }

  #trim(): void {
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries) return;
      if (entry.state !== "sending") this.#entries.delete(key);
    }
  }
}

/** The de-duplication key: the object (by uid too, so a recreated object is new) and the text. */
function keyOf(notice: EventNotice): string {
  const { object } = notice;
  return JSON.stringify([
    object.apiVersion,
    object.kind,
    object.namespace,
    object.name,
    object.uid,
    notice.type,
    notice.reason,
    notice.message,
  ]);
}
