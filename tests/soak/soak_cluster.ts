/**
 * The cluster the soak runs against, as one interface with two backends: the in-memory API server
 * ({@linkcode startFakeCluster}, here) and the real etcd + kube-apiserver stack
 * (`soak_real_cluster.ts`). The world (`soak_world.ts`) and the driver (`soak.ts`) use only this
 * interface: objects in and out, the apiserver's record of requests (in the real audit log's
 * shape, which the one single-writer judge reads), and the faults.
 *
 * Decisions a reader could not guess:
 * - Every soak process runs as its own identity (a soak name such as `controller-a`), with its
 *   own kubeconfig, so the record tells the replicas apart and one can be partitioned.
 * - The soak's own reads and writes go straight to the server as an administrator, never through
 *   the faults: a fault is aimed at ouroboros, not at the judge.
 * - On the fake, a restart's downtime is the plan's; on the real stack it is however long
 *   kube-apiserver takes to be ready again.
 *
 * Effects: the fake backend serves HTTP on loopback and writes kubeconfig files.
 *
 * @module
 */

import type { AuditedRequest } from "../real/rbac_usage.ts";
import { type FakeApiServer, startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { writeKubeconfig } from "../support/kubeconfig.ts";
import { auditedFromFake } from "./soak_checks.ts";

/** Which server backs the soak. */
export type Backend = "real" | "fake";

/** One object's address. */
export interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

/** The address of an object given whole. */
export function refOf(object: Record<string, unknown>): ObjectRef {
  const metadata = object.metadata as { namespace?: string; name: string };
  return {
    apiVersion: String(object.apiVersion),
    kind: String(object.kind),
    namespace: metadata.namespace ?? "",
    name: metadata.name,
  };
}

/** A write the server refused as invalid (422): the object breaks a rule the server checks. */
export class RefusedObject extends Error {
  override readonly name = "RefusedObject";
  /** The fields the server named (`spec.tls[0].hosts[1]`). */
  readonly fields: readonly string[];

  constructor(message: string, fields: readonly string[]) {
    super(message);
    this.fields = fields;
  }
}

/** The cluster, whichever backend. */
export interface SoakCluster extends AsyncDisposable {
  readonly backend: Backend;
  /** What it is, for the soak's first line. */
  readonly description: string;
  /** The kubeconfig file of a soak identity. */
  kubeconfig(identity: string): string;
  /** The uid the record gives a soak identity's requests. */
  uidOf(identity: string): string;
  /** One object as stored now; `undefined` when absent. */
  get(ref: ObjectRef): Promise<Record<string, unknown> | undefined>;
  /**
   * Creates or replaces an object (its `status` too, as a kubelet or a controller writes it).
   * Throws {@linkcode RefusedObject} when the server finds it invalid.
   */
  put(object: Record<string, unknown>): Promise<void>;
  /**
   * Replaces an object as a person editing it does: read, change, write back with the
   * resourceVersion read (again on a conflict). `change` returns `undefined` to write nothing.
   */
  edit(
    ref: ObjectRef,
    change: (object: Record<string, unknown>) => Record<string, unknown> | undefined,
  ): Promise<void>;
  /** Deletes an object; absent is fine. */
  remove(ref: ObjectRef): Promise<void>;
  /** Every request the server has recorded so far. */
  requests(): Promise<AuditedRequest[]>;
  /** Stops the apiserver and starts it again (after `downMs` on the fake); resolves once it is back. */
  restartApiserver(downMs: number): Promise<void>;
  /** Compacts the history: watches resumed from before it get 410 Gone (from etcd, on the real stack). */
  compact(): Promise<void>;
  /** Breaks every open watch. */
  cutWatches(): void;
  /** Every open watch goes silent and stays open. */
  stallWatches(): void;
  /** The next `count` requests of the soak's processes are answered with `code` (429 with Retry-After 1). */
  errorBurst(code: number, count: number): void;
  /** The next `count` requests of the soak's processes are answered after `ms`. */
  slowAnswers(ms: number, count: number): void;
  /** Cuts one identity off (its requests go unanswered) until {@linkcode heal}. */
  partition(identity: string): void;
  heal(identity: string): void;
  partitioned(identity: string): boolean;
}

function path(ref: ObjectRef): string {
  return `${ref.apiVersion}/${ref.kind} ${ref.namespace}/${ref.name}`;
}

/** The in-memory API server as a {@linkcode SoakCluster}; `dir` holds the kubeconfigs. */
export async function startFakeCluster(
  identities: readonly string[],
  options: { dir: string },
): Promise<SoakCluster> {
  const server: FakeApiServer = await startFakeApiServer({
    users: Object.fromEntries(identities.map((identity) => [`token-of-${identity}`, identity])),
    // A real apiserver bookmarks about once a minute; every second keeps stall detection short here.
    bookmarkIntervalMs: 1_000,
  });
  try {
    for (const identity of identities) {
      await writeKubeconfig(`${options.dir}/kubeconfig-${identity}`, {
        server: server.url,
        token: `token-of-${identity}`,
      });
    }
  } catch (error) {
    await server.close();
    throw error;
  }
  const stored = (ref: ObjectRef) => server.get(ref.apiVersion, ref.kind, ref.namespace, ref.name);
  return {
    backend: "fake",
    description: "the in-memory API server (tests/support/fake_apiserver)",
    kubeconfig: (identity) => `${options.dir}/kubeconfig-${identity}`,
    uidOf: (identity) => identity,
    get: (ref) => Promise.resolve(stored(ref)),
    put(object) {
      if (stored(refOf(object)) === undefined) server.create(object);
      else server.update(object);
      return Promise.resolve();
    },
    edit(ref, change) {
      const current = stored(ref);
      if (current === undefined) throw new Error(`${path(ref)} is not there to edit`);
      const changed = change(current);
      if (changed !== undefined) server.update(changed);
      return Promise.resolve();
    },
    remove(ref) {
      if (stored(ref) !== undefined) server.remove(ref.apiVersion, ref.kind, ref.namespace, ref.name);
      return Promise.resolve();
    },
    requests: () => Promise.resolve(auditedFromFake(server.audit)),
    async restartApiserver(downMs) {
      await server.stop();
      // The plan's downtime: the fault's own length, not a wait for something to happen.
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await server.restart();
    },
    compact() {
      server.compact();
      return Promise.resolve();
    },
    cutWatches: () => server.faults.dropWatches(),
    stallWatches: () => server.faults.stallWatches(),
    errorBurst(code, count) {
      server.faults.inject("any", {
        type: "status",
        code,
        reason: code === 429 ? "TooManyRequests" : "InternalError",
        ...(code === 429 ? { retryAfterSeconds: 1 } : {}),
      }, { count });
    },
    slowAnswers: (ms, count) => server.faults.inject("any", { type: "delay", ms }, { count }),
    partition: (identity) => server.partition(identity),
    heal: (identity) => server.heal(identity),
    partitioned: (identity) => server.partitioned().includes(identity),
    [Symbol.asyncDispose]: () => server.close(),
  };
}
