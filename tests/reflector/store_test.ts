import assert from "node:assert/strict";
import { Store, type StoreChange, type StoreUpdate } from "../../lib/reflector/store.ts";
import { settle } from "../support/fake_clock.ts";
import { type Thing, thing, versions } from "./things.ts";

function recorder(store: Store<Thing>): StoreChange<Thing>[] {
  const changes: StoreChange<Thing>[] = [];
  store.subscribe((change) => changes.push(change));
  return changes;
}

Deno.test("store: not synced until the first list is swapped in, even an empty one", () => {
  const store = new Store<Thing>();
  const changes = recorder(store);
  assert.ok(!store.synced);
  assert.deepEqual(store.version, 0);
  store.replace([]);
  assert(store.synced);
  assert.deepEqual(store.version, 1);
  assert.deepEqual(changes, [{
    kind: "replaced",
    version: 1,
    firstSync: true,
    added: [],
    updated: [],
    deleted: [],
  }]);
});

Deno.test("store: a relist reports objects missing from it as deleted, changed ones as updated", () => {
  const store = new Store<Thing>();
  store.replace([thing("a", 1), thing("b", 2), thing("c", 3)]);
  const changes = recorder(store);
  store.replace([thing("a", 1), thing("b", 7), thing("d", 8)]);
  assert.deepEqual(versions(store.list()), { "default/a": "1", "default/b": "7", "default/d": "8" });
  assert.deepEqual(changes.length, 1);
  const change = changes[0];
  assert(change?.kind === "replaced");
  assert.ok(!change.firstSync);
  assert.deepEqual(versions(change.added), { "default/d": "8" });
  assert.deepEqual(versions(change.updated), { "default/b": "7" });
  assert.deepEqual(versions(change.deleted), { "default/c": "3" });
  assert.deepEqual(store.get("default/c"), undefined);
});

Deno.test("store: a relist with nothing new is not a change (no version bump, no notification)", () => {
  const store = new Store<Thing>();
  store.replace([thing("a", 1), thing("b", 2)]);
  const changes = recorder(store);
  store.replace([thing("b", 2), thing("a", 1)]);
  assert.deepEqual(store.version, 1);
  assert.deepEqual(changes, []);
});

Deno.test("store: an event with the stored resourceVersion is a no-op", () => {
  const store = new Store<Thing>();
  store.replace([thing("a", 5)]);
  const changes = recorder(store);
  assert.ok(!store.apply(thing("a", 5, "replayed")));
  assert.deepEqual(store.get("default/a")?.data, "", "the cached object is untouched");
  assert.deepEqual(store.version, 1);
  assert.deepEqual(changes, []);
});

Deno.test("store: MODIFIED for an unknown key is an upsert; DELETED for an unknown key is ignored", () => {
  const store = new Store<Thing>();
  store.replace([]);
  const changes = recorder(store);
  assert(store.apply(thing("new", 3)));
  assert.ok(!store.delete(thing("ghost", 4)));
  assert.deepEqual(store.keys(), ["default/new"]);
  assert.deepEqual(changes.map((c) => c.kind), ["upserted"]);
  assert.deepEqual(store.version, 2);
});

Deno.test("store: updates carry the previous object; deletes carry the last cached state", () => {
  const store = new Store<Thing>();
  store.replace([thing("a", 1, "old")]);
  const changes = recorder(store);
  store.apply(thing("a", 2, "new"));
  store.delete(thing("a", 3, "final"));
  assert.deepEqual(changes.length, 2);
  const [update, removal] = changes;
  assert(update?.kind === "upserted");
  assert.deepEqual([update.previous?.data, update.object.data, update.version], ["old", "new", 2]);
  assert(removal?.kind === "deleted");
  assert.deepEqual([removal.object.data, removal.version], ["new", 3]);
  assert.deepEqual(store.size, 0);
});

Deno.test("store: cluster-scoped objects are keyed by name alone", () => {
  const store = new Store<Thing>();
  store.replace([thing("node-a", 1, "", ""), thing("web", 2, "", "shop")]);
  assert.deepEqual([...store.keys()].sort(), ["node-a", "shop/web"]);
  assert.deepEqual(store.get("node-a")?.metadata.resourceVersion, "1");
});

Deno.test("store: list() is stable between changes and fresh after one", () => {
  const store = new Store<Thing>();
  store.replace([thing("a", 1)]);
  const first = store.list();
  assert.equal(store.list(), first);
  store.apply(thing("b", 2));
  assert.deepEqual(versions(store.list()), { "default/a": "1", "default/b": "2" });
  assert.deepEqual(
    versions(first),
    { "default/a": "1" },
    "a list handed out earlier does not change under its reader",
  );
});

Deno.test("store: a throwing subscriber does not stop the others", () => {
  const errors: unknown[] = [];
  const store = new Store<Thing>((error) => errors.push(error));
  store.subscribe(() => {
    throw new Error("consumer bug");
  });
  const changes = recorder(store);
  store.replace([thing("a", 1)]);
  assert.deepEqual(changes.length, 1);
  assert.deepEqual(errors.length, 1);
});

Deno.test("store: unsubscribe stops notifications", () => {
  const store = new Store<Thing>();
  const seen: number[] = [];
  const unsubscribe = store.subscribe((change) => seen.push(change.version));
  store.replace([thing("a", 1)]);
  unsubscribe();
  store.apply(thing("a", 2));
  assert.deepEqual(seen, [1]);
});

Deno.test("store: updates() coalesces a burst into one wake-up", async () => {
  const store = new Store<Thing>();
  const controller = new AbortController();
  const iterator = store.updates(controller.signal)[Symbol.asyncIterator]();
  // Changes made after updates() was called but before the first pull are not missed.
  store.replace([thing("a", 1)]);
  for (let i = 2; i <= 50; i++) store.apply(thing("a", i));
  assert.deepEqual(await iterator.next(), { done: false, value: { version: 50 } });
  const pending = iterator.next();
  let woke: IteratorResult<StoreUpdate> | undefined;
  pending.then((result) => woke = result);
  await settle();
  assert.deepEqual(woke, undefined, "no wake-up without a change");
  store.apply(thing("a", 50)); // a replayed event changes nothing
  await settle();
  assert.deepEqual(woke, undefined, "no wake-up for a no-op");
  store.delete(thing("a", 50));
  assert.deepEqual(await pending, { done: false, value: { version: 51 } });
  const last = iterator.next();
  controller.abort();
  assert.deepEqual(await last, { done: true, value: undefined });
});

Deno.test("store: whenSynced waits for the first list and gives up on abort", async () => {
  const store = new Store<Thing>();
  const controller = new AbortController();
  const synced = store.whenSynced(controller.signal);
  store.apply(thing("x", 1)); // not a sync
  let done: boolean | undefined;
  synced.then((value) => done = value);
  await settle();
  assert.deepEqual(done, undefined);
  store.replace([thing("a", 1)]);
  assert.deepEqual(await synced, true);
  assert.deepEqual(await store.whenSynced(controller.signal), true, "already synced: at once");

  const never = new Store<Thing>();
  const waiting = never.whenSynced(controller.signal);
  controller.abort();
  assert.deepEqual(await waiting, false);
});

Deno.test("a new version keeps what did not change from the cached one, in apply and in a relist", () => {
  const store = new Store<Thing>();
  const first = thing("a", 1, "payload");
  store.replace([first]);
  const changes = recorder(store);
  assert.equal(store.apply(thing("a", 2, "payload")), true);
  const applied = store.get("default/a");
  assert.equal(applied?.metadata.resourceVersion, "2");
  assert.equal(applied?.metadata.labels, first.metadata.labels, "unchanged parts are the cached ones");
  const upserted = changes.at(-1);
  assert.equal(
    upserted?.kind === "upserted" ? upserted.object : undefined,
    applied,
    "listeners see the kept object",
  );

  const relisted = thing("a", 2, "payload");
  store.replace([relisted, thing("b", 1)]);
  assert.equal(store.get("default/a"), applied, "same resourceVersion in a relist: the cached object stays");
  store.replace([thing("a", 3, "payload"), thing("b", 1)]);
  assert.equal(store.get("default/a")?.metadata.labels, first.metadata.labels);
  assert.equal(store.get("default/a")?.metadata.resourceVersion, "3");
});
