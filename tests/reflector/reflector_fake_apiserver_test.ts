/**
 * The reflector end to end: the real client against the fake API server, with the faults of
 * reliability-matrix C1 injected on the wire. After each fault the cache must equal the
 * server's objects (key → resourceVersion). Real time, with short watch and idle timeouts and
 * a small backoff so everything converges in well under a second per fault.
 */

import assert from "node:assert/strict";
import { KubeClient } from "../../lib/kube/client.ts";
import type { KubeObject } from "../../lib/resources/kube_object.ts";
import { Reflector, type ReflectorOptions } from "../../lib/reflector/reflector.ts";
import type { StoreChange } from "../../lib/reflector/store.ts";
import { CONFIG_MAP, type ConfigMap } from "../../lib/resources/config_map.ts";
import { GATEWAY } from "../../lib/resources/gateway.ts";
import type { ResourceType } from "../../lib/resources/resource_type.ts";
import {
  type FakeApiServer,
  type FakeApiServerOptions,
  startFakeApiServer,
} from "../support/fake_apiserver/mod.ts";
import { LogRecorder } from "../support/log_recorder.ts";
import { prng } from "../support/random.ts";
import { waitFor } from "../support/wait.ts";

const CONFIG_MAPS_PATH = "/api/v1/configmaps";

/** Short timeouts: watches end after 1 s, a silent one is given up after 1.25 s. */
function fastOptions<T extends KubeObject>(seed: number): ReflectorOptions<T> {
  return {
    random: prng(seed),
    watchTimeoutSeconds: { min: 1, max: 1 },
    idleMarginMs: 250,
    shortWatchMs: 200,
    listTimeoutMs: 5_000,
    abandonAfterMs: 1_000,
    missingRetryMs: 200,
    backoff: { initialMs: 20, maxMs: 250 },
  };
}

/** A fake API server, a client and a running reflector; `await using` tears all down. */
class Env<T extends KubeObject> implements AsyncDisposable {
  readonly changes: StoreChange<T>[] = [];
  readonly #controller = new AbortController();
  readonly #running: Promise<void>;

  private constructor(
    readonly server: FakeApiServer,
    readonly client: KubeClient,
    readonly reflector: Reflector<T>,
    /** What the reflector logged. */
    readonly log: LogRecorder,
  ) {
    reflector.store.subscribe((change) => this.changes.push(change));
    this.#running = reflector.run(this.#controller.signal);
  }

  static async start<T extends KubeObject>(
    type: ResourceType<T>,
    options: { server?: FakeApiServerOptions; reflector?: ReflectorOptions<T>; seed?: number } = {},
  ): Promise<Env<T>> {
    const server = await startFakeApiServer({ bookmarkIntervalMs: 100, ...options.server });
    const client = new KubeClient({ server: server.url });
    const log = new LogRecorder();
    const reflector = new Reflector(client.listWatcher(type), {
      ...fastOptions<T>(options.seed ?? 1),
      log,
      ...options.reflector,
    });
    return new Env(server, client, reflector, log);
  }

  /** `namespace/name → resourceVersion` of the server's ConfigMaps. */
  serverState(apiVersion = "v1", kind = "ConfigMap"): Record<string, string> {
    return keyVersions(
      this.server.list(apiVersion, kind).map((raw) => {
        const metadata = raw.metadata as { name: string; namespace?: string; resourceVersion: string };
        return {
          namespace: metadata.namespace ?? "",
          name: metadata.name,
          resourceVersion: metadata.resourceVersion,
        };
      }),
    );
  }

  /** The same map for the reflector's cache. */
  cacheState(): Record<string, string> {
    return keyVersions(this.reflector.store.list().map((o) => o.metadata));
  }

  /** Waits until the cache equals the server's state. */
  async converged(what: string, apiVersion?: string, kind?: string): Promise<void> {
    await waitFor(
      `cache to equal the server after ${what}`,
      () => this.reflector.store.synced && same(this.cacheState(), this.serverState(apiVersion, kind)),
      { timeoutMs: 15_000 },
    ).catch((error) => {
      throw new Error(
        `${error instanceof Error ? error.message : error}\ncache:  ${
          JSON.stringify(this.cacheState())
        }\nserver: ${JSON.stringify(this.serverState(apiVersion, kind))}\nstatus: ${
          JSON.stringify(this.reflector.status())
        }`,
      );
    });
  }

  lists(path = CONFIG_MAPS_PATH) {
    return this.server.audit.filter((entry) => entry.method === "GET" && entry.path === path && !entry.watch);
  }

  watches(path = CONFIG_MAPS_PATH) {
    return this.server.audit.filter((entry) => entry.method === "GET" && entry.path === path && entry.watch);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#controller.abort();
    await this.#running;
    this.client.close();
    await this.server.close();
  }
}

function keyVersions(
  metas: readonly { namespace: string; name: string; resourceVersion: string }[],
): Record<string, string> {
  const entries = metas.map((
    m,
  ) => [m.namespace === "" ? m.name : `${m.namespace}/${m.name}`, m.resourceVersion]);
  return Object.fromEntries(entries.sort(([a], [b]) => (a ?? "").localeCompare(b ?? "")));
}

function same(a: Record<string, string>, b: Record<string, string>): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function configMap(name: string, value: string, namespace = "default"): Record<string, unknown> {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data: { value } };
}

Deno.test("e2e T-1.1: list at RV 0, watch from the list's RV; the cache follows creates, updates and deletes", async () => {
  await using env = await Env.start(CONFIG_MAP);
  for (const name of ["a", "b", "c"]) env.server.create(configMap(name, "1"));
  await env.converged("the initial list");
  const [list] = env.lists();
  assert.deepEqual([list?.query.resourceVersion, list?.query.limit], ["0", "500"]);
  await waitFor("a watch", () => env.watches().length > 0);
  const [watch] = env.watches();
  assert.equal(watch?.query.allowWatchBookmarks, "true");
  assert.equal(watch?.query.timeoutSeconds, "1");

  env.server.create(configMap("d", "1"));
  await env.converged("a create");
  env.server.update(configMap("a", "2"));
  await env.converged("an update");
  env.server.remove("v1", "ConfigMap", "default", "b");
  await env.converged("a delete");
  assert.equal(env.lists().length, 1, "no relist");
  assert.equal((env.reflector.store.get("default/a") as ConfigMap | undefined)?.data.value, "2");
});

Deno.test("e2e T-1.2/T-1.6: an ERROR 410 event after a gap relists; what was deleted in the gap is gone", async () => {
  await using env = await Env.start(CONFIG_MAP);
  for (const name of ["x", "y", "z"]) env.server.create(configMap(name, "1"));
  await env.converged("the initial list");
  const rvBeforeGap = env.reflector.status().resourceVersion;
  env.server.faults.stallWatches();
  env.server.remove("v1", "ConfigMap", "default", "y");
  env.server.create(configMap("new", "1"));
  env.server.faults.inject("watch", { type: "watch-error-event", code: 410, reason: "Expired" });
  await env.converged("the 410 event");
  assert.equal(env.reflector.store.get("default/y"), undefined);
  const relist = env.lists()[1];
  assert.ok(relist !== undefined, "a relist happened");
  assert.ok(
    relist.query.resourceVersion === undefined || relist.query.resourceVersion === rvBeforeGap,
    `relist at the last RV (${rvBeforeGap}) or as a consistent read, got ${relist.query.resourceVersion}`,
  );
  const deleted = env.changes.flatMap((c) =>
    c.kind === "replaced"
      ? c.deleted.map((o) => o.metadata.name)
      : c.kind === "deleted"
      ? [c.object.metadata.name]
      : []
  );
  assert.deepEqual(deleted, ["y"], "the deletion is reported to consumers");
});

/**
 * Stalls the reflector's watch. Watches end every second here, so a stall must hit one that is
 * open: between two watches it would catch nothing (seen on a loaded machine), and the next watch
 * would run normally.
 */
async function stallOpenWatch<T extends KubeObject>(env: Env<T>): Promise<void> {
  await waitFor("a watch to be open", () => env.server.openWatches() > 0, { timeoutMs: 15_000 });
  env.server.faults.stallWatches();
}

Deno.test("e2e T-1.3: a watch refused with HTTP 410 after compaction relists", async () => {
  await using env = await Env.start(CONFIG_MAP);
  for (const name of ["x", "y"]) env.server.create(configMap(name, "1"));
  await env.converged("the initial list");
  await stallOpenWatch(env);
  env.server.remove("v1", "ConfigMap", "default", "x");
  env.server.create(configMap("w", "1"));
  env.server.compact();
  await env.converged("compaction");
  assert.ok(env.watches().some((w) => w.status === 410), "the stale watch was refused with 410");
  assert.ok(env.lists().length >= 2, "relisted");
  assert.equal(
    env.reflector.status().restarts["idle-timeout"] >= 1,
    true,
    "the stall was caught by the idle timer",
  );
});

Deno.test("e2e T-1.7: a slow paged relist is swapped in whole: readers never see a partial cache", async () => {
  await using env = await Env.start(CONFIG_MAP, { reflector: { pageSize: 2 } });
  for (let i = 0; i < 10; i++) env.server.create(configMap(`cm-${i}`, "1"));
  await env.converged("the initial list");
  const sizes: number[] = [];
  const replaced: number[] = [];
  env.reflector.store.subscribe((change) => {
    sizes.push(env.reflector.store.size);
    if (change.kind === "replaced") replaced.push(env.reflector.store.size);
  });
  const listsBefore = env.lists().length;
  // The relist at the last RV (one request) finds that version gone, so the consistent read
  // that follows is paged.
  env.server.faults.inject("list", { type: "status", code: 410, reason: "Expired" });
  env.server.faults.inject("list", { type: "delay", ms: 50 }, { count: 5 });
  env.server.faults.inject("watch", { type: "watch-error-event", code: 410, reason: "Expired" });
  env.server.update(configMap("cm-3", "2")); // something for the relist to bring
  env.server.faults.dropWatches();
  await waitFor("the 5-page relist", () => env.lists().length >= listsBefore + 6);
  await env.converged("the relist");
  assert.ok(sizes.every((size) => size === 10), `store sizes seen by subscribers: ${sizes.join(",")}`);
  assert.ok(replaced.length <= 1);
});

Deno.test("e2e T-1.8: a continue token that expires between pages falls back to one unpaged list", async () => {
  await using env = await Env.start(CONFIG_MAP, { reflector: { pageSize: 2 } });
  for (let i = 0; i < 6; i++) env.server.create(configMap(`cm-${i}`, "1"));
  await env.converged("the initial list");
  const listsBefore = env.lists().length;
  // The relist at the last RV finds that version gone; the consistent read after it is paged.
  env.server.faults.inject("list", { type: "status", code: 410, reason: "Expired" });
  env.server.faults.inject("list", { type: "delay", ms: 1 });
  env.server.faults.inject("list", { type: "delay", ms: 400 });
  env.server.faults.inject("watch", { type: "watch-error-event", code: 410, reason: "Expired" });
  env.server.faults.dropWatches();
  // Audit entries are written when answered: page 1 answered means page 2 is in its delay.
  await waitFor(
    "page 1 of the relist",
    () => env.lists().slice(listsBefore).some((l) => l.query.limit === "2"),
  );
  env.server.remove("v1", "ConfigMap", "default", "cm-0");
  env.server.compact(); // expires the continue token in flight
  await env.converged("the expired continue token");
  const after = env.lists().slice(listsBefore);
  assert.ok(
    after.some((l) => l.query.continue !== undefined && l.status === 410),
    "page 2 was refused with 410",
  );
  assert.ok(after.some((l) => l.query.limit === undefined), "then one unpaged list");
});

Deno.test("e2e T-1.11: bookmarks advance the RV without touching the cache; the next watch resumes there", async () => {
  await using env = await Env.start(CONFIG_MAP);
  env.server.create(configMap("a", "1"));
  await env.converged("the initial list");
  const version = env.reflector.store.version;
  // Writes to another kind move the global resourceVersion; only bookmarks can tell us.
  env.server.create({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "s", namespace: "default" },
    spec: {},
  });
  const target = env.server.resourceVersion();
  await waitFor("a bookmark at the new RV", () => env.reflector.status().resourceVersion === target);
  assert.equal(env.reflector.store.version, version);
  assert.deepEqual(Object.keys(env.cacheState()), ["default/a"]);
  await waitFor(
    "a watch from the bookmark's RV",
    () => env.watches().some((w) => w.query.resourceVersion === target),
  );
  assert.equal(env.lists().length, 1);
});

Deno.test("e2e T-1.13: watches ended by the server's timeout resume without relisting", async () => {
  await using env = await Env.start(CONFIG_MAP);
  env.server.create(configMap("a", "1"));
  await env.converged("the initial list");
  await waitFor("three watches (two server timeouts)", () => env.watches().length >= 3, {
    timeoutMs: 10_000,
  });
  env.server.update(configMap("a", "2"));
  await env.converged("an update after reconnects");
  assert.equal(env.lists().length, 1);
  assert.ok(env.reflector.status().restarts["server-timeout"] >= 2);
});

Deno.test("e2e T-1.14: a stalled watch is caught by the idle timeout and resumed without relisting", async () => {
  await using env = await Env.start(CONFIG_MAP);
  env.server.create(configMap("a", "1"));
  await env.converged("the initial list");
  await stallOpenWatch(env);
  env.server.create(configMap("b", "1"));
  await env.converged("a stall");
  assert.ok(env.reflector.status().restarts["idle-timeout"] >= 1);
  assert.equal(env.lists().length, 1);
});

Deno.test("e2e T-1.16: an event cut mid-JSON is re-delivered on the next watch and applied once", async () => {
  await using env = await Env.start(CONFIG_MAP, { server: { bookmarkIntervalMs: 0 } });
  env.server.create(configMap("a", "1"));
  await env.converged("the initial list");
  const watchesBefore = env.watches().length;
  env.server.faults.inject("watch", { type: "cut-mid-json" });
  env.server.faults.dropWatches();
  await waitFor("the cut watch to open", () => env.watches().length > watchesBefore);
  env.server.create(configMap("b", "1"));
  await env.converged("a cut stream");
  assert.equal(env.lists().length, 1);
  const upserts = env.changes.filter((c) => c.kind === "upserted" && c.object.metadata.name === "b");
  assert.equal(upserts.length, 1);
});

Deno.test("e2e T-1.19: connection refused while the server restarts: backoff, then resume from the last RV", async () => {
  await using env = await Env.start(CONFIG_MAP);
  env.server.create(configMap("a", "1"));
  await env.converged("the initial list");
  await env.server.stop();
  env.server.create(configMap("b", "1"));
  env.server.remove("v1", "ConfigMap", "default", "a");
  await waitFor("refused retries", () => env.reflector.status().restarts.transport >= 2);
  await env.server.restart();
  await env.converged("a restart");
  assert.equal(env.lists().length, 1, "the RV was still valid: no relist");
});

Deno.test("e2e T-1.18: 429 on a watch waits for Retry-After and does not relist", async () => {
  await using env = await Env.start(CONFIG_MAP);
  env.server.create(configMap("a", "1"));
  await env.converged("the initial list");
  const before = env.watches().length;
  env.server.faults.inject("watch", {
    type: "status",
    code: 429,
    reason: "TooManyRequests",
    retryAfterSeconds: 1,
  });
  env.server.faults.dropWatches();
  env.server.create(configMap("b", "1"));
  await env.converged("a 429");
  const [throttled, retry] = env.watches().slice(before);
  assert.equal(throttled?.status, 429);
  assert.ok(retry !== undefined && retry.at - throttled.at >= 900, "the retry waited for Retry-After");
  assert.equal(env.lists().length, 1);
});

Deno.test("e2e T-1.17: ERROR 500 events and 500/403 statuses are retried from the last RV", async () => {
  await using env = await Env.start(CONFIG_MAP);
  env.server.create(configMap("a", "1"));
  await env.converged("the initial list");
  env.server.faults.inject("watch", { type: "watch-error-event", code: 500, reason: "InternalError" });
  env.server.faults.inject("watch", { type: "status", code: 500, reason: "InternalError" });
  env.server.faults.inject("watch", { type: "status", code: 403, reason: "Forbidden" }, { count: 2 });
  env.server.faults.dropWatches();
  env.server.update(configMap("a", "2"));
  await env.converged("errors");
  const statuses = env.watches().map((w) => w.status);
  assert.equal(statuses.filter((status) => status === 403).length, 2, "both 403s were met and retried");
  assert.equal(statuses.filter((status) => status === 500).length, 1);
  assert.equal(env.lists().length, 1);
  assert.equal(env.reflector.status().condition, "healthy");
});

Deno.test("e2e T-1.27: a type the server does not serve counts as empty, and appears once installed", async () => {
  const group = "gateway.networking.k8s.io";
  await using env = await Env.start(GATEWAY, { server: { omitGroups: [group] } });
  await waitFor("the missing type to be reported", () => env.reflector.status().phase === "missing");
  assert.ok(env.reflector.store.synced, "consumers are not blocked");
  assert.equal(env.reflector.store.size, 0);
  env.server.setGroupInstalled(group, true);
  env.server.create({
    apiVersion: `${group}/v1`,
    kind: "Gateway",
    metadata: { name: "gw", namespace: "default" },
    spec: { gatewayClassName: "c", listeners: [{ name: "http", port: 80, protocol: "HTTP" }] },
  });
  await env.converged("installing the CRDs", `${group}/v1`, "Gateway");
  assert.equal(env.reflector.status().condition, "healthy");
});

type Fault =
  | "drop"
  | "compact"
  | "error-410"
  | "error-500"
  | "status-500"
  | "429"
  | "stall"
  | "cut"
  | "refused"
  | "close-immediately";
const FAULTS: readonly Fault[] = [
  "drop",
  "compact",
  "error-410",
  "error-500",
  "status-500",
  "429",
  "stall",
  "cut",
  "refused",
  "close-immediately",
];

async function injectFault(env: Env<ConfigMap>, fault: Fault): Promise<void> {
  const { faults } = env.server;
  switch (fault) {
    case "drop":
      faults.dropWatches();
      return;
    case "compact":
      env.server.compact();
      faults.dropWatches();
      return;
    case "error-410":
      faults.inject("watch", { type: "watch-error-event", code: 410, reason: "Expired" });
      faults.dropWatches();
      return;
    case "error-500":
      faults.inject("watch", { type: "watch-error-event", code: 500, reason: "InternalError" });
      faults.dropWatches();
      return;
    case "status-500":
      faults.inject("any", { type: "status", code: 500, reason: "InternalError" });
      faults.dropWatches();
      return;
    case "429":
      faults.inject("watch", { type: "status", code: 429, reason: "TooManyRequests" });
      faults.dropWatches();
      return;
    case "stall":
      faults.stallWatches();
      return;
    case "cut":
      faults.inject("watch", { type: "cut-mid-json" });
      faults.dropWatches();
      return;
    case "close-immediately":
      faults.inject("watch", { type: "close-immediately" }, { count: 3 });
      faults.dropWatches();
      return;
    case "refused": {
      const transport = env.reflector.status().restarts.transport;
      await env.server.stop();
      await waitFor("a refused retry", () => env.reflector.status().restarts.transport > transport);
      await env.server.restart();
      return;
    }
  }
}

/** One seed: random writes interleaved with random faults, then the cache must equal the server. */
async function randomRun(seed: number): Promise<void> {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  await using env = await Env.start(CONFIG_MAP, {
    seed,
    reflector: { pageSize: 1 + Math.floor(random() * 4) },
  });
  const names = Array.from({ length: 8 }, (_, i) => `cm-${i}`);
  const namespaces = ["default", "kube-system"];
  const log: string[] = [];
  try {
    for (let step = 0; step < 25; step++) {
      const name = pick(names);
      const namespace = pick(namespaces);
      const exists = env.server.get("v1", "ConfigMap", namespace, name) !== undefined;
      if (random() < 0.65) {
        if (!exists) env.server.create(configMap(name, String(step), namespace));
        else if (random() < 0.6) env.server.update(configMap(name, String(step), namespace));
        else env.server.remove("v1", "ConfigMap", namespace, name);
        log.push(`${exists ? "write" : "create"} ${namespace}/${name}`);
      } else {
        const fault = pick(FAULTS);
        log.push(`fault ${fault}`);
        await injectFault(env, fault);
      }
      // Sometimes let the reflector catch up, sometimes pile the next step on top.
      if (random() < 0.3) await env.converged(`step ${step}`);
    }
    await env.converged("the last step");
  } catch (error) {
    throw new Error(`seed ${seed} failed after: ${log.join("; ")}`, { cause: error });
  }
}

Deno.test("e2e randomized: 30 seeds of random writes and faults; the cache ends equal to the server", async () => {
  // Six servers at a time: most of each run is waiting for timeouts, not CPU.
  for (let first = 1; first <= 30; first += 6) {
    const runs = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => randomRun(first + i)));
    for (const run of runs) if (run.status === "rejected") throw run.reason;
  }
});

Deno.test("e2e: a stalled watch stream ends when the reflector aborts it (no stream is abandoned)", async () => {
  await using env = await Env.start(CONFIG_MAP);
  env.server.create(configMap("a", "1"));
  await env.converged("the initial list");
  for (let i = 0; i < 5; i++) {
    const stalls = env.reflector.status().restarts["idle-timeout"];
    await waitFor("an open watch", () => env.server.openWatches() > 0);
    env.server.faults.stallWatches();
    env.server.update(configMap("a", String(i + 2)));
    await env.converged(`stall ${i + 1}`);
    assert.ok(env.reflector.status().restarts["idle-timeout"] > stalls);
  }
  assert.deepEqual(
    env.log.find("warn", "").map((entry) => entry.message),
    [],
    "the client ended every aborted stream by itself",
  );
});
