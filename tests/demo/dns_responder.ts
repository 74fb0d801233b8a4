/**
 * The demo's DNS part: `ouroboros dns` as a child process (exactly the `dns` permission set)
 * with a scripted upstream standing in for the cluster DNS (it answers every A question with the
 * load balancer's public address, as the real one would), and a client that asks from a chosen
 * loopback address, so that one machine plays both the cert-manager pod and a pod out of scope.
 *
 * Decisions: only Deno is needed (no dig, no dnsmasq), so the demo runs on a fresh machine; the
 * DNS and health listeners bind 127.0.0.1 port 0.
 *
 * Effects: creates objects in the fake API server, starts a child process and a UDP socket.
 *
 * @module
 */

import type { FakeApiServer } from "../support/fake_apiserver/mod.ts";
import { answerWith, askAFrom, type FakeUpstream, startFakeUpstream } from "../support/dns_tools.ts";
import { type DnsProcess, startDns } from "../support/ouroboros_process.ts";

/** The address the stand-in cluster DNS gives every name: the load balancer's public address. */
export const PUBLIC_ADDRESS = "203.0.113.10";
/** The cert-manager pod's address (loopback has a whole /8). */
export const CERT_MANAGER_IP = "127.0.0.2";
/** A pod outside `--client-selector`. */
export const OTHER_POD_IP = "127.0.0.3";

/** Adds the two client pods to the cluster. */
export function putClientPods(server: FakeApiServer): void {
  const pod = (namespace: string, name: string, ip: string, labels: Record<string, string>) =>
    server.create({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { namespace, name, labels },
      spec: { containers: [{ name: "main", image: "example" }] },
      status: { phase: "Running", podIP: ip, podIPs: [{ ip }] },
    });
  pod("cert-manager", "cert-manager-7d9f", CERT_MANAGER_IP, { "app.kubernetes.io/name": "cert-manager" });
  pod("shop", "web-5c4b", OTHER_POD_IP, { app: "web" });
}

/** The running responder and its stand-in upstream. */
export interface Responder extends AsyncDisposable {
  readonly process: DnsProcess;
  readonly upstream: FakeUpstream;
}

/**
 * Starts the stand-in upstream and `ouroboros dns` answering the cert-manager pod only, or the
 * pods of `clientSelector` (empty: every pod).
 */
export async function startResponder(
  kubeconfig: string,
  options: { readonly clientSelector?: string } = {},
): Promise<Responder> {
  const upstream = await startFakeUpstream((query) => answerWith(query, [PUBLIC_ADDRESS]));
  try {
    const process = await startDns([
      "--listen-dns=127.0.0.1:0",
      "--listen-health=127.0.0.1:0",
      `--upstream=${upstream.endpoint.host}:${upstream.endpoint.port}`,
      `--kubeconfig=${kubeconfig}`,
      `--client-selector=${options.clientSelector ?? "app.kubernetes.io/name=cert-manager"}`,
      "--drain-delay=0s",
    ], { env: { POD_NAMESPACE: "ouroboros" } });
    return {
      process,
      upstream,
      async [Symbol.asyncDispose]() {
        process.kill("SIGKILL");
        await process.status;
        await upstream[Symbol.asyncDispose]();
      },
    };
  } catch (error) {
    await upstream[Symbol.asyncDispose]();
    throw error;
  }
}

/** Asks `name` (A) from the loopback address `source`; the A records answered. */
export function askFrom(responder: Responder, source: string, name: string): Promise<string[]> {
  const { hostname, port } = responder.process.dns;
  return askAFrom({ host: hostname, port }, { source, name });
}
