/**
 * The demo's last part sets the embedded cluster up as a pod would see a working installation,
 * so the doctor has something real to look at on every check: a controller and a proxy running
 * (child processes), their pods in the API server at 127.0.0.1 with their health ports, the
 * proxy Service's ClusterIP 127.0.0.1 on the proxy's HTTP port, the ingress controller's
 * LoadBalancer Service, and a cluster DNS Service. There is no CoreDNS here: `ouroboros dns`
 * serving every pod stands in for it, answering the hairpinned names with the proxy Service's
 * address, as CoreDNS does with the controller's block; the doctor's own pod (127.0.0.1) is one
 * of those pods.
 *
 * Effects: creates and replaces objects in the fake API server, starts child processes.
 *
 * @module
 */

import type { Cluster } from "../controller/cluster_fixture.ts";
import {
  type ControllerProcess,
  type ProxyProcess,
  startController,
  startProxy,
} from "../support/ouroboros_process.ts";
import { type Responder, startResponder } from "./dns_responder.ts";
import { runningPod } from "../doctor/doctor_test_support.ts";

/** The address of the load balancer in front of the ingress controller, as the demo tells it. */
const LOAD_BALANCER_IP = "203.0.113.10";

/** What the stage runs, and the flags that point the doctor at it. */
export interface DoctorStage extends AsyncDisposable {
  readonly proxy: ProxyProcess;
  readonly controller: ControllerProcess;
  readonly clusterDns: Responder;
  /** The doctor's own flags, after the controller's. */
  readonly flags: readonly string[];
}

const LABELS = (component: string): Record<string, string> => ({
  "app.kubernetes.io/name": "ouroboros",
  "app.kubernetes.io/instance": "ouroboros",
  "app.kubernetes.io/component": component,
});

function put(cluster: Cluster, object: Record<string, unknown>): void {
  const { namespace, name } = object.metadata as { namespace: string; name: string };
  const existing = cluster.server.get(object.apiVersion as string, object.kind as string, namespace, name);
  if (existing !== undefined) {
    cluster.server.remove(object.apiVersion as string, object.kind as string, namespace, name);
  }
  cluster.server.create(object);
}

/** Starts the controller, the proxy (in front of `ingressPort`) and the cluster DNS, and registers them. */
export async function stageForDoctor(cluster: Cluster, ingressPort: number): Promise<DoctorStage> {
  const started: AsyncDisposable[] = [];
  try {
    const controller = await startController([...cluster.flags], {
      env: { HOSTNAME: "ouroboros-7f6d9-x2x4q" },
    });
    started.push(controller);
    const proxy = await startProxy(["--target-host=127.0.0.1", `--target-http-port=${ingressPort}`]);
    started.push(proxy);
    if (proxy.http === undefined || proxy.health === undefined || controller.health === undefined) {
      throw new Error("the proxy and the controller serve their listeners");
    }
    put(cluster, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { namespace: "ouroboros", name: "ouroboros-proxy" },
      spec: {
        selector: LABELS("proxy"),
        clusterIP: "127.0.0.1",
        clusterIPs: ["127.0.0.1"],
        ports: [{ name: "http", port: proxy.http.port, protocol: "TCP" }],
      },
    });
    put(cluster, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { namespace: "ingress-nginx", name: "ingress-nginx-controller" },
      spec: {
        type: "LoadBalancer",
        clusterIP: "10.96.0.80",
        clusterIPs: ["10.96.0.80"],
        ports: [{ name: "http", port: 80 }],
      },
      status: { loadBalancer: { ingress: [{ ip: LOAD_BALANCER_IP, ipMode: "VIP" }] } },
    });
    put(
      cluster,
      runningPod("ouroboros/ouroboros-proxy-5b8c7-h9k2m", { labels: LABELS("proxy"), health: proxy.health }),
    );
    put(
      cluster,
      runningPod("ouroboros/ouroboros-7f6d9-x2x4q", {
        labels: LABELS("controller"),
        health: controller.health,
      }),
    );
    put(cluster, runningPod("ouroboros/ouroboros-doctor", { labels: LABELS("doctor") }));
    const clusterDns = await startResponder(cluster.kubeconfig, { clientSelector: "" });
    started.push(clusterDns);
    put(cluster, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { namespace: "kube-system", name: "kube-dns" },
      spec: {
        clusterIP: "127.0.0.1",
        clusterIPs: ["127.0.0.1"],
        ports: [{ name: "dns", port: clusterDns.process.dns.port, protocol: "UDP" }],
      },
    });
    return {
      proxy,
      controller,
      clusterDns,
      flags: ["--proxy-service-namespace=ouroboros", "--proxy-service-name=ouroboros-proxy"],
      async [Symbol.asyncDispose]() {
        for (const part of started.reverse()) await part[Symbol.asyncDispose]();
      },
    };
  } catch (error) {
    for (const part of started.reverse()) await part[Symbol.asyncDispose]();
    throw error;
  }
}
