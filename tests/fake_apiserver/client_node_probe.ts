/**
 * Drives `@kubernetes/client-node` against a fake API server, in a child process started by
 * `client_node_test.ts`, and prints what it saw as one JSON object per line.
 *
 * Why a child process: client-node's own timers (undici's connect-timeout ticker, the Watch's
 * idle timer) outlive its calls, and the test sanitizers would count them as leaks of the test.
 * A process that exits takes them along.
 *
 * Usage: `deno run -P=test client_node_probe.ts <server-url> read|watch|lease|apply`
 *
 * @module
 */

import * as k8s from "@kubernetes/client-node";

function print(value: unknown): void {
  // deno-lint-ignore no-console
  console.log(JSON.stringify(value));
}

const [url, command] = Deno.args;
const COMMANDS = ["read", "watch", "lease", "apply"];
if (url === undefined || command === undefined || !COMMANDS.includes(command)) {
  throw new Error(`usage: client_node_probe.ts <server-url> ${COMMANDS.join("|")}`);
}
const config = new k8s.KubeConfig();
config.loadFromOptions({
  clusters: [{ name: "fake", server: url, skipTLSVerify: true }],
  users: [{ name: "tester" }],
  contexts: [{ name: "fake", cluster: "fake", user: "tester" }],
  currentContext: "fake",
});

if (command === "read") {
  const core = config.makeApiClient(k8s.CoreV1Api);
  const read = await core.readNamespacedConfigMap({ name: "settings", namespace: "x" });
  const list = await core.listNamespacedConfigMap({ namespace: "x", labelSelector: "app=demo" });
  let missing: unknown;
  try {
    await core.readNamespacedConfigMap({ name: "missing", namespace: "x" });
  } catch (error) {
    missing = (error as { code?: unknown }).code;
  }
  print({
    read: {
      data: read.data,
      resourceVersion: read.metadata?.resourceVersion,
      uid: read.metadata?.uid,
      creationTimestampIsDate: read.metadata?.creationTimestamp instanceof Date,
    },
    list: {
      names: list.items.map((item) => item.metadata?.name),
      resourceVersion: list.metadata?.resourceVersion,
    },
    missing,
  });
  Deno.exit(0);
}

/** The HTTP code of a failed call (client-node's ApiException), or "ok". */
async function codeOf(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
    return "ok";
  } catch (error) {
    return (error as { code?: unknown }).code;
  }
}

if (command === "lease") {
  // A leader elector's calls, with client-node's own MicroTime type (six fractional digits).
  const leases = config.makeApiClient(k8s.CoordinationV1Api);
  const namespace = "kube-system";
  const at = (iso: string) => new k8s.V1MicroTime(iso);
  const spec = {
    holderIdentity: "pod-a",
    leaseDurationSeconds: 15,
    acquireTime: at("2026-12-03T13:37:03.123Z"),
    renewTime: at("2026-12-03T13:37:03.123Z"),
    leaseTransitions: 0,
  };
  const racers = await Promise.all(
    ["pod-a", "pod-b"].map(async (holderIdentity) => [
      holderIdentity,
      await codeOf(leases.createNamespacedLease({
        namespace,
        body: { metadata: { name: "election" }, spec: { ...spec, holderIdentity } },
      })),
    ]),
  );
  const read = await leases.readNamespacedLease({ name: "election", namespace });
  const renewed = await leases.replaceNamespacedLease({
    name: "election",
    namespace,
    body: { ...read, spec: { ...read.spec, renewTime: at("2026-12-03T13:37:05.456Z") } },
  });
  const stale = await codeOf(leases.replaceNamespacedLease({
    name: "election",
    namespace,
    body: { ...read, spec: { ...read.spec, holderIdentity: "pod-c" } },
  }));
  const plainDate = await codeOf(leases.createNamespacedLease({
    namespace,
    body: {
      metadata: { name: "plain-date" },
      spec: { ...spec, renewTime: new Date("2026-12-03T13:37:03.123Z") },
    },
  }));
  print({
    racers,
    read: { holder: read.spec?.holderIdentity, renewTime: String(read.spec?.renewTime) },
    renewed: {
      renewTime: String(renewed.spec?.renewTime),
      resourceVersionMoved: renewed.metadata?.resourceVersion !== read.metadata?.resourceVersion,
    },
    stale,
    plainDate,
  });
  Deno.exit(0);
}

if (command === "apply") {
  // Server-side apply through the generic object API, as controllers written with it do.
  const objects = k8s.KubernetesObjectApi.makeApiClient(config);
  const service = (target: string): k8s.V1Service => ({
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: "api",
      namespace: "kuberture",
      annotations: { "external-dns.alpha.kubernetes.io/target": target },
    },
    spec: { clusterIP: "None" },
  });
  const apply = (target: string, manager: string, force: boolean) =>
    objects.patch(service(target), undefined, undefined, manager, force, k8s.PatchStrategy.ServerSideApply);
  const created = await apply("192.0.2.1", "kuberture", false);
  const conflict = await codeOf(apply("198.51.100.7", "other", false));
  const forced = await apply("198.51.100.7", "other", true);
  print({
    created: created.metadata?.managedFields?.map((entry) => [entry.manager, entry.operation]),
    conflict,
    forced: {
      target: forced.metadata?.annotations?.["external-dns.alpha.kubernetes.io/target"],
      managers: forced.metadata?.managedFields?.map((entry) => [entry.manager, entry.operation]),
    },
  });
  Deno.exit(0);
}

const watch = new k8s.Watch(config);
const controller = await watch.watch(
  "/apis/networking.k8s.io/v1/namespaces/shop/ingresses",
  { resourceVersion: Deno.env.get("PROBE_RESOURCE_VERSION") ?? "0", allowWatchBookmarks: true },
  (type: string, object: { metadata?: { name?: string } }) => {
    print({ event: { type, name: object.metadata?.name } });
    controller.abort();
    Deno.exit(0);
  },
  (error: unknown) => {
    print({ done: String(error) });
    Deno.exit(1);
  },
);
print({ started: true });
