/**
 * Ingress manifests as `kubectl apply` would send them, for the demo and the benchmarks:
 * {@linkcode ingressManifest} for any of them, and {@linkcode shopIngress} for the benchmarks'
 * tenants, shaped like a real one (labels, cert-manager and nginx annotations) so the API traffic
 * has a realistic size.
 *
 * @module
 */

/** What {@linkcode ingressManifest} builds. */
export interface IngressManifestOptions {
  readonly namespace: string;
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  /** The TLS hosts, in one `tls` entry with their certificate's Secret; without them, no `tls`. */
  readonly tls?: { readonly hosts: readonly string[]; readonly secretName: string };
  /** One rule per host, sending every path (`/`, `Prefix`) to the Service `service`. */
  readonly ruleHosts: readonly string[];
  /** The backend Service and its port. */
  readonly service: { readonly name: string; readonly port: number };
  /** Sets `status.loadBalancer` to this address, as an ingress controller keeps doing. */
  readonly statusIp?: string;
}

/**
 * An Ingress of class `nginx`. Keys come in a fixed order (metadata: name, namespace, labels,
 * annotations), so the same options always serialise to the same bytes.
 */
export function ingressManifest(options: IngressManifestOptions): Record<string, unknown> {
  const { service } = options;
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: {
      name: options.name,
      namespace: options.namespace,
      ...(options.labels === undefined ? {} : { labels: options.labels }),
      ...(options.annotations === undefined ? {} : { annotations: options.annotations }),
    },
    spec: {
      ingressClassName: "nginx",
      ...(options.tls === undefined ? {} : { tls: [options.tls] }),
      rules: options.ruleHosts.map((host) => ({
        host,
        http: {
          paths: [{
            path: "/",
            pathType: "Prefix",
            backend: { service: { name: service.name, port: { number: service.port } } },
          }],
        },
      })),
    },
    ...(options.statusIp === undefined
      ? {}
      : { status: { loadBalancer: { ingress: [{ ip: options.statusIp }] } } }),
  };
}

/** What differs between the benchmarks' tenant Ingresses. */
export interface ShopIngressOptions {
  /** The TLS hosts (certificate Secret `shop-<i>-tls`). */
  readonly tlsHosts: readonly string[];
  /** The hosts with a rule to Service `shop-<i>` port 8080. */
  readonly ruleHosts: readonly string[];
  /** Annotations after the cert-manager and nginx ones (such as padding to reach a size). */
  readonly annotations: Readonly<Record<string, string>>;
  /** See {@linkcode IngressManifestOptions.statusIp}. */
  readonly statusIp?: string;
}

/**
 * Tenant `i`'s shop: Ingress `tenant-<i % 97>/web-<i>`, labelled as a Helm release would and
 * annotated for cert-manager and ingress-nginx.
 */
export function shopIngress(i: number, options: ShopIngressOptions): Record<string, unknown> {
  return ingressManifest({
    name: `web-${i}`,
    namespace: `tenant-${i % 97}`,
    labels: {
      "app.kubernetes.io/name": "shop",
      "app.kubernetes.io/instance": `shop-${i}`,
      team: "payments",
    },
    annotations: {
      "cert-manager.io/cluster-issuer": "letsencrypt-production",
      "nginx.ingress.kubernetes.io/proxy-body-size": "16m",
      ...options.annotations,
    },
    tls: { hosts: options.tlsHosts, secretName: `shop-${i}-tls` },
    ruleHosts: options.ruleHosts,
    service: { name: `shop-${i}`, port: 8080 },
    ...(options.statusIp === undefined ? {} : { statusIp: options.statusIp }),
  });
}
