/**
 * The API server's addresses as kuberture reads them: an EndpointSlice of the `default/kubernetes`
 * Service (label `kubernetes.io/service-name: kubernetes`), one address family, port `https` 6443,
 * as the API servers of a control plane register themselves. For the kuberture tests, the demo and
 * the real-component suite.
 *
 * The real suite cannot use the apiserver's own slice: it stays empty on loopback (an EndpointSlice
 * refuses 127/8), so its scenarios give the Service a second slice, {@linkcode SECOND_SLICE}, with
 * documentation addresses they choose (and change, to see kuberture follow).
 *
 * Pure, but for {@linkcode putApiServerSlice}, which writes into the fake API server.
 *
 * @module
 */

import type { FakeApiServer } from "./fake_apiserver/mod.ts";

/**
 * One endpoint: an address alone is one ready endpoint; an object gives its addresses, its ready
 * condition (none at all when left out) and its node.
 */
export type ApiServerEndpoint = string | {
  readonly addresses: readonly string[];
  readonly ready?: boolean;
  readonly nodeName?: string;
};

/** Options for {@linkcode apiServerSlice}. */
export interface ApiServerSliceOptions {
  /** The slice's address family (default `IPv4`). */
  readonly family?: "IPv4" | "IPv6";
  /** The slice's name (default `kubernetes`, or `kubernetes-v6` for IPv6). */
  readonly name?: string;
}

/** The name of the real suite's second slice of `default/kubernetes` (see the module doc). */
export const SECOND_SLICE = "kubernetes-real-suite";

/** An EndpointSlice of `default/kubernetes` with these endpoints. */
export function apiServerSlice(
  endpoints: readonly ApiServerEndpoint[],
  options: ApiServerSliceOptions = {},
): Record<string, unknown> {
  const family = options.family ?? "IPv4";
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      namespace: "default",
      name: options.name ?? (family === "IPv6" ? "kubernetes-v6" : "kubernetes"),
      labels: { "kubernetes.io/service-name": "kubernetes" },
    },
    addressType: family,
    endpoints: endpoints.map((endpoint) =>
      typeof endpoint === "string" ? { addresses: [endpoint], conditions: { ready: true } } : {
        addresses: endpoint.addresses,
        ...(endpoint.ready === undefined ? {} : { conditions: { ready: endpoint.ready } }),
        ...(endpoint.nodeName === undefined ? {} : { nodeName: endpoint.nodeName }),
      }
    ),
    ports: [{ name: "https", port: 6443, protocol: "TCP" }],
  };
}

/** Creates, or replaces, {@linkcode apiServerSlice} in the fake API server. */
export function putApiServerSlice(
  server: FakeApiServer,
  endpoints: readonly ApiServerEndpoint[],
  options: ApiServerSliceOptions = {},
): void {
  const object = apiServerSlice(endpoints, options);
  const { name } = object.metadata as { name: string };
  if (server.get("discovery.k8s.io/v1", "EndpointSlice", "default", name) === undefined) {
    server.create(object);
  } else server.update(object);
}
