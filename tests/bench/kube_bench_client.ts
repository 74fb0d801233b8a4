/**
 * The measured side of `deno task bench:kube`, run as its own process so its memory is its own:
 * syncs every Ingress from the API server given on the command line, prints one JSON line when
 * synced, then counts change events until it has seen the number asked for and prints another.
 *
 * Usage: `kube_bench_client.ts <server-url> ours|client-node <expected-events>`
 *
 * `ours` is the reflector (`lib/reflector`) over our client; `client-node` is the informer of
 * `@kubernetes/client-node` (the JavaScript client's own list-watch cache), the peer.
 *
 * @module
 */

import { KubeClient } from "../../lib/kube/client.ts";
import { Reflector } from "../../lib/reflector/reflector.ts";
import { INGRESS } from "../../lib/resources/ingress.ts";

function print(value: Record<string, unknown>): void {
  // deno-lint-ignore no-console
  console.log(JSON.stringify(value));
}

const [url, mode, expectedText] = Deno.args;
const expected = Number(expectedText);
if (url === undefined || (mode !== "ours" && mode !== "client-node") || !Number.isInteger(expected)) {
  throw new Error("usage: kube_bench_client.ts <server-url> ours|client-node <expected-events>");
}

const started = performance.now();
let firstChange = 0;
let changes = 0;
const done = Promise.withResolvers<void>();
const onChange = () => {
  if (changes === 0) firstChange = performance.now();
  changes += 1;
  if (changes === expected) done.resolve();
};

if (mode === "ours") {
  const client = new KubeClient({ server: url });
  const reflector = new Reflector(client.listWatcher(INGRESS, {}));
  const stop = new AbortController();
  const running = reflector.run(stop.signal);
  await reflector.store.whenSynced(stop.signal);
  print({
    event: "synced",
    ms: performance.now() - started,
    rss: Deno.memoryUsage().rss,
    size: reflector.store.size,
    heap: Deno.memoryUsage().heapUsed,
  });
  reflector.store.subscribe(() => onChange());
  await done.promise;
  stop.abort();
  await running;
} else {
  // Imported only here: loading the package alone costs tens of MiB, which must not count against ours.
  const k8s = await import("@kubernetes/client-node");
  const config = new k8s.KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: "fake", server: url, skipTLSVerify: true }],
    users: [{ name: "bench" }],
    contexts: [{ name: "fake", cluster: "fake", user: "bench" }],
    currentContext: "fake",
  });
  const api = config.makeApiClient(k8s.NetworkingV1Api);
  const informer = k8s.makeInformer(
    config,
    "/apis/networking.k8s.io/v1/ingresses",
    () => api.listIngressForAllNamespaces(),
  );
  const synced = Promise.withResolvers<void>();
  let listed = false;
  informer.on("add", () => {
    if (listed) onChange();
  });
  informer.on("update", () => onChange());
  informer.on("delete", () => onChange());
  informer.on("error", (error: unknown) => synced.reject(error));
  await informer.start();
  listed = true;
  synced.resolve();
  await synced.promise;
  print({
    event: "synced",
    ms: performance.now() - started,
    rss: Deno.memoryUsage().rss,
    size: informer.list().length,
    heap: Deno.memoryUsage().heapUsed,
  });
  await done.promise;
}
print({
  event: "events",
  count: changes,
  ms: performance.now() - firstChange,
  rss: Deno.memoryUsage().rss,
});
Deno.exit(0);
