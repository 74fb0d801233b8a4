/**
 * The reference point of `deno task bench:controller`: the smallest loop that does the
 * controller's job with `@kubernetes/client-node`. Its informer lists and watches every
 * Ingress; after the first list and after every event it collects the TLS hostnames from the
 * informer's cache, renders one `rewrite name` line per host between our markers at the end of
 * the root server block, and merge-patches the ConfigMap when the result differs from what it
 * last wrote. At most one PATCH is in flight; events during it cause one more pass.
 *
 * What it leaves out, on purpose (it is a peer for speed, not for safety): no hostname
 * validation, no coalescing window, no Corefile tokenizer check, no resourceVersion
 * precondition, no size check, no drift watch on the ConfigMap, no health or metrics.
 *
 * Usage: `controller_peer.ts <server-url> <token> <namespace> <configmap> <key> <fqdn>`
 *
 * @module
 */

import * as k8s from "@kubernetes/client-node";

/** The command line, checked once so the rest of the script sees plain strings. */
function parseArgs(args: readonly string[]) {
  const [url, token, namespace, name, key, fqdn] = args;
  if (
    url === undefined || token === undefined || namespace === undefined || name === undefined ||
    key === undefined || fqdn === undefined
  ) {
    throw new Error("usage: controller_peer.ts <server-url> <token> <namespace> <configmap> <key> <fqdn>");
  }
  return { url, token, namespace, name, key, fqdn };
}

const { url, token, namespace, name, key, fqdn } = parseArgs(Deno.args);

function complain(what: string, error: unknown): void {
  // deno-lint-ignore no-console
  console.error(`peer: ${what}: ${error instanceof Error ? error.message : String(error)}`);
}

const config = new k8s.KubeConfig();
config.loadFromOptions({
  clusters: [{ name: "fake", server: url, skipTLSVerify: true }],
  users: [{ name: "bench", token }],
  contexts: [{ name: "fake", cluster: "fake", user: "bench" }],
  currentContext: "fake",
});
const core = config.makeApiClient(k8s.CoreV1Api);
const networking = config.makeApiClient(k8s.NetworkingV1Api);

const base = (await core.readNamespacedConfigMap({ name, namespace })).data?.[key] ?? "";
/** Where the block goes: before the last closing brace, the root block's in kubeadm's Corefile. */
const closing = base.lastIndexOf("}");
if (closing < 0) throw new Error("the Corefile has no server block");

function render(hosts: readonly string[]): string {
  if (hosts.length === 0) return base;
  const lines = [
    "    # === BEGIN ouroboros (do not edit by hand) ===",
    ...hosts.map((host) => `    rewrite name ${host} ${fqdn}`),
    "    # === END ouroboros ===",
    "",
  ];
  return base.slice(0, closing) + lines.join("\n") + base.slice(closing);
}

const informer = k8s.makeInformer(
  config,
  "/apis/networking.k8s.io/v1/ingresses",
  () => networking.listIngressForAllNamespaces(),
);

let running = false;
let again = false;
let written = base;

/** One pass per call, or one more pass after the one in flight. */
async function reconcile(): Promise<void> {
  if (running) {
    again = true;
    return;
  }
  running = true;
  try {
    do {
      again = false;
      const hosts = new Set<string>();
      for (const ingress of informer.list()) {
        for (const tls of ingress.spec?.tls ?? []) {
          for (const host of tls.hosts ?? []) hosts.add(host.toLowerCase());
        }
      }
      const corefile = render([...hosts].sort());
      if (corefile === written) continue;
      try {
        await core.patchNamespacedConfigMap(
          { name, namespace, body: { data: { [key]: corefile } } },
          k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
        );
        written = corefile;
      } catch (error) {
        complain("PATCH failed", error);
        again = true;
      }
    } while (again);
  } finally {
    running = false;
  }
}

let listed = false;
const onEvent = () => {
  if (listed) void reconcile();
};
informer.on("add", onEvent);
informer.on("update", onEvent);
informer.on("delete", onEvent);
informer.on("error", (error: unknown) => complain("watch failed", error));
await informer.start();
listed = true;
await reconcile();
// Runs until the benchmark sends SIGTERM.
Deno.addSignalListener("SIGTERM", () => Deno.exit(0));
