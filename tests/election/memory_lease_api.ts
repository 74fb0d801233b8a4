/**
 * An in-memory Lease store for elector tests: resourceVersion preconditions (409 Conflict),
 * create races (409 AlreadyExists), 404 for a missing Lease, per-client partitions (every call
 * of a partitioned client fails as a refused connection, or hangs until its signal aborts), and a
 * write applied whose answer is lost.
 *
 * @module
 */

import { KubeApiError, KubeTransportError } from "../../lib/kube/errors.ts";
import type { CallOptions, Manifest, ObjectRef } from "../../lib/kube/client.ts";
import type { LeaseApi } from "../../lib/election/lease_elector.ts";
import type { Lease, LeaseSpec } from "../../lib/resources/lease.ts";
import type { KubeObject } from "../../lib/resources/kube_object.ts";
import type { ResourceType } from "../../lib/resources/resource_type.ts";
import type { Clock } from "../../lib/util/clock.ts";

/** One write that reached the store. */
export interface LeaseWrite {
  readonly client: string;
  readonly verb: "create" | "update";
  readonly spec: LeaseSpec;
}

/** The shared store. */
export class MemoryLeases {
  #lease: Lease | undefined;
  #rv = 0;
  readonly writes: LeaseWrite[] = [];
  readonly #partitioned = new Map<string, "refuse" | "hang">();
  readonly #answerLost = new Set<string>();
  readonly #clock: Clock | undefined;

  /** `clock` times out hanging calls after their `timeoutMs`, as the real transport does. */
  constructor(clock?: Clock) {
    this.#clock = clock;
  }

  /** The Lease now. */
  get lease(): Lease | undefined {
    return this.#lease;
  }

  /** Puts a Lease in place directly (a record someone else wrote). */
  seed(spec: LeaseSpec): void {
    this.#lease = { metadata: this.#meta(), spec };
  }

  /** Deletes the Lease, as `kubectl delete lease` would. */
  delete(): void {
    this.#lease = undefined;
  }

  /** Makes every call of `client` fail (`refuse`) or never answer (`hang`) until {@linkcode heal}. */
  partition(client: string, how: "refuse" | "hang" = "refuse"): void {
    this.#partitioned.set(client, how);
  }

  heal(client: string): void {
    this.#partitioned.delete(client);
  }

  /**
   * The next update by `client` is applied, but its answer never arrives: the call hangs until its
   * signal aborts (a renewal cut short by a stop after the server took it).
   */
  loseNextAnswer(client: string): void {
    this.#answerLost.add(client);
  }

  /**
   * The API one client sees. `held`, when given, is awaited before each call is served (a paused
   * process sends nothing until it resumes).
   */
  client(name: string, held?: () => Promise<void>): LeaseApi {
    const gate = async (request: string, options: CallOptions | undefined): Promise<void> => {
      await held?.();
      const how = this.#partitioned.get(name);
      if (how === undefined) return;
      if (how === "refuse") throw new KubeTransportError(request, "refused", new Error("connection refused"));
      return new Promise<void>((_, reject) => {
        const signal = options?.signal;
        const timeoutMs = options?.timeoutMs;
        if (this.#clock !== undefined && timeoutMs !== undefined) {
          void this.#clock.sleep(timeoutMs, signal).then((passed) => {
            if (passed) reject(new KubeTransportError(request, "timeout", new Error("deadline passed")));
          });
        }
        if (signal === undefined) return;
        if (signal.aborted) return reject(signal.reason);
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    };
    const api = {
      get: async <T extends KubeObject>(_type: ResourceType<T>, _ref: ObjectRef, options?: CallOptions) => {
        await gate("GET lease", options);
        if (this.#lease === undefined) {
          throw new KubeApiError("GET lease", { code: 404, reason: "NotFound", message: "not found" });
        }
        return structuredClone(this.#lease) as unknown as T;
      },
      create: async <T extends KubeObject>(
        _type: ResourceType<T>,
        manifest: Manifest,
        options?: CallOptions,
      ) => {
        await gate("POST lease", options);
        if (this.#lease !== undefined) {
          throw new KubeApiError("POST lease", { code: 409, reason: "AlreadyExists", message: "exists" });
        }
        const spec = manifest.spec as LeaseSpec;
        this.#lease = { metadata: this.#meta(), spec };
        this.writes.push({ client: name, verb: "create", spec });
        return structuredClone(this.#lease) as unknown as T;
      },
      update: async <T extends KubeObject>(
        _type: ResourceType<T>,
        manifest: Manifest,
        options?: CallOptions,
      ) => {
        await gate("PUT lease", options);
        if (this.#lease?.metadata.resourceVersion !== manifest.metadata.resourceVersion) {
          throw new KubeApiError("PUT lease", { code: 409, reason: "Conflict", message: "modified" });
        }
        const spec = manifest.spec as LeaseSpec;
        this.#lease = { metadata: this.#meta(), spec };
        this.writes.push({ client: name, verb: "update", spec });
        if (this.#answerLost.delete(name)) {
          return await new Promise<T>((_, reject) => {
            const signal = options?.signal;
            if (signal === undefined) return;
            if (signal.aborted) return reject(signal.reason);
            signal.addEventListener("abort", () => reject(signal.reason), { once: true });
          });
        }
        return structuredClone(this.#lease) as unknown as T;
      },
    };
    return api as LeaseApi;
  }

  #meta(): Lease["metadata"] {
    this.#rv++;
    return {
      name: "lease",
      namespace: "ns",
      resourceVersion: String(this.#rv),
      uid: "u",
      labels: {},
      annotations: {},
      ownerReferences: [],
    };
  }
}
