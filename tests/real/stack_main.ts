// deno-lint-ignore-file no-console
/**
 * `deno task stack`: the real stack for a person. Starts etcd, kube-apiserver (RBAC on) with the
 * chart's default release installed (its ServiceAccount, RBAC and proxy Service), a kubeadm-style
 * `coredns` ConfigMap and a real CoreDNS serving it on 127.0.53.1:53, then prints a `KUBECONFIG`
 * line (the admin) and the controller's own kubeconfig, to try any subcommand against a real
 * apiserver. Ctrl-C (or SIGTERM) stops it all and removes its files.
 *
 * Effects: processes, files, prints.
 *
 * @module
 */

import { renderedOfKind } from "./chart_workloads.ts";
import { COREDNS_ACCOUNT, startKubeadmCoredns } from "./coredns.ts";
import { startStack } from "./stack.ts";

const stopped = Promise.withResolvers<void>();
for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, () => stopped.resolve());

console.log("starting etcd and kube-apiserver (building them first if this machine has not) …");
await using stack = await startStack({
  releases: [{ release: "ouroboros", namespace: "ouroboros" }],
  peers: [COREDNS_ACCOUNT],
});
const release = stack.releases[0]!;
await stack.apply(renderedOfKind(release, "Service"));
await using coredns = await startKubeadmCoredns(stack, { bind: "127.0.53.1" });
const controllerKubeconfig = await stack.kubeconfig("ouroboros", "ouroboros");

console.log(`
The real stack is up (files in ${stack.dir}).

  export KUBECONFIG=${stack.plane.adminKubeconfig}

is the admin (system:masters). The chart's controller identity, judged by the chart's RBAC:

  deno task controller --kubeconfig=${controllerKubeconfig} --mode=coredns \\
    --proxy-service-name=ouroboros-proxy --proxy-service-namespace=ouroboros --listen-health=127.0.0.1:0

CoreDNS serves the ConfigMap kube-system/coredns on ${coredns.address.host}:53 (dig @${coredns.address.host} …).
Logs: ${stack.dir}/*.log, the audit log ${stack.plane.auditLogPath}. Ctrl-C stops it all.
`);
await stopped.promise;
console.log("stopping …");
