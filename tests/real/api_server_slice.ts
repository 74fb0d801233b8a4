/**
 * The API server's addresses as kuberture reads them, for the real stack: the apiserver's own
 * `default/kubernetes` EndpointSlice stays empty on loopback (an EndpointSlice refuses 127/8), so
 * the scenarios give the Service a second slice, `kubernetes-real-suite`, with documentation
 * addresses they choose (and change, to see kuberture follow).
 *
 * Pure: a manifest.
 *
 * @module
 */

/** The second EndpointSlice of `default/kubernetes`, with every address ready. */
export function apiServerSlice(addresses: readonly string[]): Record<string, unknown> {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name: "kubernetes-real-suite",
      namespace: "default",
      labels: { "kubernetes.io/service-name": "kubernetes" },
    },
    addressType: "IPv4",
    endpoints: addresses.map((address) => ({ addresses: [address], conditions: { ready: true } })),
    ports: [{ name: "https", port: 6443, protocol: "TCP" }],
  };
}
