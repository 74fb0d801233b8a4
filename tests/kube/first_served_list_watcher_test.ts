import assert from "node:assert/strict";
import { KubeApiError } from "../../lib/kube/errors.ts";
import { firstServedListWatcher } from "../../lib/kube/first_served_list_watcher.ts";
import type { ListOptions, ListPage, ListWatcher, WatchEvent } from "../../lib/kube/list_watch.ts";
import type { KubeObject } from "../../lib/resources/kube_object.ts";

/** A version that answers lists from `served()` (false: 404), and records what was asked. */
function version(name: string, served: () => boolean | "forbidden") {
  const calls: string[] = [];
  const watcher: ListWatcher<KubeObject> = {
    description: `example.io/${name} widgets`,
    list(options: ListOptions): Promise<ListPage<KubeObject>> {
      calls.push(`list${options.continue === undefined ? "" : ` continue=${options.continue}`}`);
      const state = served();
      if (state === "forbidden") {
        return Promise.reject(new KubeApiError("LIST", { code: 403, reason: "Forbidden", message: "no" }));
      }
      if (!state) {
        return Promise.reject(new KubeApiError("LIST", { code: 404, reason: "NotFound", message: name }));
      }
      return Promise.resolve({ items: [], resourceVersion: `${name}-rv`, rejected: [] });
    },
    watch(): AsyncIterable<WatchEvent<KubeObject>> {
      calls.push("watch");
      return (async function* () {})();
    },
  };
  return { watcher, calls };
}

const watchOptions = {
  resourceVersion: "1",
  allowWatchBookmarks: true,
  timeoutSeconds: 60,
  signal: new AbortController().signal,
};

Deno.test("firstServedListWatcher lists at the first served version and watches there", async () => {
  const v1 = version("v1", () => false);
  const v1alpha3 = version("v1alpha3", () => true);
  const v1alpha2 = version("v1alpha2", () => true);
  const both = firstServedListWatcher([v1.watcher, v1alpha3.watcher, v1alpha2.watcher]);
  assert.equal(
    both.description,
    "example.io/v1 widgets, else example.io/v1alpha3 widgets, else example.io/v1alpha2 widgets",
  );
  assert.equal((await both.list({})).resourceVersion, "v1alpha3-rv");
  // A continuation page stays at the version that answered the first page.
  await both.list({ continue: "token" });
  for await (const _ of both.watch(watchOptions)) { /* empty stream */ }
  assert.deepEqual(v1.calls, ["list"]);
  assert.deepEqual(v1alpha3.calls, ["list", "list continue=token", "watch"]);
  assert.deepEqual(v1alpha2.calls, [], "an older version is never asked once a newer one answers");
});

Deno.test("firstServedListWatcher follows an upgrade at the next fresh list", async () => {
  let upgraded = false;
  const v1 = version("v1", () => upgraded);
  const v1alpha2 = version("v1alpha2", () => true);
  const lw = firstServedListWatcher([v1.watcher, v1alpha2.watcher]);
  assert.equal((await lw.list({})).resourceVersion, "v1alpha2-rv");
  upgraded = true;
  assert.equal((await lw.list({})).resourceVersion, "v1-rv");
  for await (const _ of lw.watch(watchOptions)) { /* empty stream */ }
  assert.deepEqual(v1.calls, ["list", "list", "watch"]);
});

Deno.test("firstServedListWatcher: no version served rethrows a 404; any other failure is the answer", async () => {
  const none = firstServedListWatcher([
    version("v1", () => false).watcher,
    version("v1alpha2", () => false).watcher,
  ]);
  await assert.rejects(none.list({}), (error) => error instanceof KubeApiError && error.status.code === 404);

  const later = version("v1alpha2", () => true);
  const forbidden = firstServedListWatcher([version("v1", () => "forbidden").watcher, later.watcher]);
  await assert.rejects(
    forbidden.list({}),
    (error) => error instanceof KubeApiError && error.status.code === 403,
  );
  assert.deepEqual(later.calls, [], "a 403 is not a reason to try another version");

  assert.throws(() => firstServedListWatcher([]), /at least one/);
});
