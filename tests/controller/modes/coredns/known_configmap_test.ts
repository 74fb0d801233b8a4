import assert from "node:assert/strict";
import { KubeApiError } from "../../../../lib/kube/errors.ts";
import { Store } from "../../../../lib/reflector/store.ts";
import { CONFIG_MAP, CONFIG_MAP_VERSION } from "../../../../lib/resources/config_map.ts";
import type { KubeObject } from "../../../../lib/resources/kube_object.ts";
import type { ResourceType } from "../../../../lib/resources/resource_type.ts";
import type { ConfigMapApi } from "../../../../lib/controller/modes/coredns/corefile_location.ts";
import { knownConfigMapApi } from "../../../../lib/controller/modes/coredns/known_configmap.ts";

const ref = { namespace: "kube-system", name: "coredns" };

function raw(resourceVersion: string, corefile: string, name = "coredns"): Record<string, unknown> {
  return { metadata: { name, namespace: "kube-system", resourceVersion }, data: { Corefile: corefile } };
}

/** A server holding one ConfigMap per name, counting the calls that reached it. */
class FakeApi implements ConfigMapApi {
  readonly objects = new Map<string, Record<string, unknown>>([["coredns", raw("1", "one")]]);
  gets = 0;
  conflict = false;

  get<T extends KubeObject>(type: ResourceType<T>, at: { name: string }): Promise<T> {
    this.gets += 1;
    return Promise.resolve(this.#decode(type, this.objects.get(at.name)));
  }

  mergePatch<T extends KubeObject>(
    type: ResourceType<T>,
    at: { name: string },
    patch: Record<string, unknown>,
  ): Promise<T> {
    if (this.conflict) {
      return Promise.reject(
        new KubeApiError("PATCH coredns", { code: 409, reason: "Conflict", message: "changed" }),
      );
    }
    const data = patch.data as { Corefile: string };
    const next = raw(String(Number(this.version(at.name)) + 1), data.Corefile, at.name);
    this.objects.set(at.name, next);
    return Promise.resolve(this.#decode(type, next));
  }

  version(name = "coredns"): string {
    const metadata = this.objects.get(name)?.metadata as { resourceVersion: string };
    return metadata.resourceVersion;
  }

  #decode<T extends KubeObject>(type: ResourceType<T>, object: unknown): T {
    const decoded = type.decode(object);
    if (!decoded.ok) throw new Error(decoded.reason);
    return decoded.value;
  }
}

/** The watch's cache, told about the server's current version. */
function watchSees(store: Store<KubeObject>, api: FakeApi, name = "coredns"): void {
  const decoded = CONFIG_MAP_VERSION.decode(api.objects.get(name));
  if (!decoded.ok) throw new Error(decoded.reason);
  store.apply(decoded.value);
}

Deno.test("a version the watch still shows is read from the API server once, then from the copy", async () => {
  const api = new FakeApi();
  const watched = new Store<KubeObject>();
  const known = knownConfigMapApi({ client: api, watched, ref });
  assert.equal((await known.get(CONFIG_MAP, ref)).data.Corefile, "one", "before the watch lists: read");
  assert.equal(api.gets, 1);
  watchSees(watched, api);
  await known.get(CONFIG_MAP, ref);
  await known.get(CONFIG_MAP, ref);
  assert.equal(api.gets, 1, "the watch shows the version read: no second read");
});

Deno.test("the echo of our own write is not read again; someone else's edit is", async () => {
  const api = new FakeApi();
  const watched = new Store<KubeObject>();
  const known = knownConfigMapApi({ client: api, watched, ref });
  watchSees(watched, api);
  await known.get(CONFIG_MAP, ref);
  await known.mergePatch(CONFIG_MAP, ref, { data: { Corefile: "ours" } }, { resourceVersion: "1" });
  watchSees(watched, api); // the echo of our write
  const echo = await known.get(CONFIG_MAP, ref);
  assert.equal(echo.data.Corefile, "ours");
  assert.equal(echo.metadata.resourceVersion, "2");
  assert.equal(api.gets, 1, "our write's answer is the copy");

  api.objects.set("coredns", raw("3", "someone else's"));
  watchSees(watched, api);
  assert.equal((await known.get(CONFIG_MAP, ref)).data.Corefile, "someone else's");
  assert.equal(api.gets, 2);
});

Deno.test("a watch behind the API server does not hide a change: a 409 drops the copy", async () => {
  const api = new FakeApi();
  const watched = new Store<KubeObject>();
  const known = knownConfigMapApi({ client: api, watched, ref });
  watchSees(watched, api);
  await known.get(CONFIG_MAP, ref);
  api.objects.set("coredns", raw("2", "edited, not yet seen by the watch"));
  api.conflict = true;
  await assert.rejects(
    known.mergePatch(CONFIG_MAP, ref, { data: { Corefile: "ours" } }, { resourceVersion: "1" }),
    KubeApiError,
  );
  assert.equal((await known.get(CONFIG_MAP, ref)).data.Corefile, "edited, not yet seen by the watch");
  assert.equal(api.gets, 2);
});

Deno.test("other ConfigMaps pass straight through", async () => {
  const api = new FakeApi();
  api.objects.set("other", raw("5", "other"));
  const watched = new Store<KubeObject>();
  const known = knownConfigMapApi({ client: api, watched, ref });
  watchSees(watched, api, "other");
  const other = { namespace: "kube-system", name: "other" };
  await known.get(CONFIG_MAP, other);
  await known.get(CONFIG_MAP, other);
  assert.equal(api.gets, 2);
});
