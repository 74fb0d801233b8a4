/**
 * The resource catalogue of the fake API server: every kind it serves, with the facts discovery
 * publishes (plural, singular, short names, verbs, scope) and the facts that change write
 * semantics (whether `generation` is kept, whether a status subresource splits spec from status,
 * whether unconditional updates are allowed, whether a PUT may create, which subresources exist).
 *
 * Pure: no I/O.
 *
 * @module
 */

/** One resource type served by the fake. */
export interface KindInfo {
  /** `""` for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /**
   * Whether the server keeps `metadata.generation` (bumped on changes outside metadata and
   * status). Real ConfigMaps, Services, Namespaces, Nodes, Pods, Events and Leases have none.
   */
  readonly generation: boolean;
  /** With a status subresource, writes to the object ignore `status` and `/status` writes only take `status`. */
  readonly statusSubresource: boolean;
  /** Deployments and ReplicaSets: `/scale` as `autoscaling/v1 Scale`. */
  readonly scaleSubresource: boolean;
  /**
   * Whether a PUT without `metadata.resourceVersion` is accepted (last write wins). True for most
   * built-in types; Leases and custom resources (CRDs) refuse it with 422, as the real server does.
   */
  readonly unconditionalUpdate: boolean;
  /** Whether a PUT to a missing object creates it (201), as the real server allows for Leases. */
  readonly createOnUpdate: boolean;
}

/** Every verb a collection of the fake supports, as discovery lists it. */
export const VERBS: readonly string[] = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];

interface KindSpec {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced?: boolean;
  shortNames?: string[];
  categories?: string[];
  generation?: boolean;
  statusSubresource?: boolean;
  scaleSubresource?: boolean;
  crd?: boolean;
  unconditionalUpdate?: boolean;
  createOnUpdate?: boolean;
}

function kindInfo(spec: KindSpec): KindInfo {
  return {
    group: spec.group,
    version: spec.version,
    kind: spec.kind,
    plural: spec.plural,
    singular: spec.kind.toLowerCase(),
    namespaced: spec.namespaced ?? true,
    shortNames: spec.shortNames ?? [],
    categories: spec.categories ?? [],
    generation: spec.generation ?? false,
    statusSubresource: spec.statusSubresource ?? false,
    scaleSubresource: spec.scaleSubresource ?? false,
    unconditionalUpdate: spec.unconditionalUpdate ?? !(spec.crd ?? false),
    createOnUpdate: spec.createOnUpdate ?? false,
  };
}

/** The kinds the fake serves, grouped as the real server groups them. */
export const KINDS: readonly KindInfo[] = [
  kindInfo({ group: "", version: "v1", kind: "ConfigMap", plural: "configmaps", shortNames: ["cm"] }),
  kindInfo({ group: "", version: "v1", kind: "Event", plural: "events", shortNames: ["ev"] }),
  kindInfo({
    group: "",
    version: "v1",
    kind: "Namespace",
    plural: "namespaces",
    namespaced: false,
    shortNames: ["ns"],
    statusSubresource: true,
  }),
  kindInfo({
    group: "",
    version: "v1",
    kind: "Node",
    plural: "nodes",
    namespaced: false,
    shortNames: ["no"],
    statusSubresource: true,
  }),
  kindInfo({
    group: "",
    version: "v1",
    kind: "Pod",
    plural: "pods",
    shortNames: ["po"],
    categories: ["all"],
    statusSubresource: true,
  }),
  kindInfo({
    group: "",
    version: "v1",
    kind: "Service",
    plural: "services",
    shortNames: ["svc"],
    categories: ["all"],
    statusSubresource: true,
  }),
  kindInfo({
    group: "apps",
    version: "v1",
    kind: "Deployment",
    plural: "deployments",
    shortNames: ["deploy"],
    categories: ["all"],
    generation: true,
    statusSubresource: true,
    scaleSubresource: true,
  }),
  kindInfo({
    group: "apps",
    version: "v1",
    kind: "DaemonSet",
    plural: "daemonsets",
    shortNames: ["ds"],
    categories: ["all"],
    generation: true,
    statusSubresource: true,
  }),
  kindInfo({
    group: "apps",
    version: "v1",
    kind: "ReplicaSet",
    plural: "replicasets",
    shortNames: ["rs"],
    categories: ["all"],
    generation: true,
    statusSubresource: true,
    scaleSubresource: true,
  }),
  kindInfo({
    group: "coordination.k8s.io",
    version: "v1",
    kind: "Lease",
    plural: "leases",
    unconditionalUpdate: false,
    createOnUpdate: true,
  }),
  kindInfo({
    group: "discovery.k8s.io",
    version: "v1",
    kind: "EndpointSlice",
    plural: "endpointslices",
    generation: true,
  }),
  kindInfo({
    group: "networking.k8s.io",
    version: "v1",
    kind: "Ingress",
    plural: "ingresses",
    shortNames: ["ing"],
    generation: true,
    statusSubresource: true,
  }),
  kindInfo({
    group: "gateway.networking.k8s.io",
    version: "v1",
    kind: "Gateway",
    plural: "gateways",
    shortNames: ["gtw"],
    categories: ["gateway-api"],
    generation: true,
    statusSubresource: true,
    crd: true,
  }),
  kindInfo({
    group: "gateway.networking.k8s.io",
    version: "v1",
    kind: "HTTPRoute",
    plural: "httproutes",
    categories: ["gateway-api"],
    generation: true,
    statusSubresource: true,
    crd: true,
  }),
  kindInfo({
    group: "gateway.networking.k8s.io",
    version: "v1",
    kind: "GRPCRoute",
    plural: "grpcroutes",
    categories: ["gateway-api"],
    generation: true,
    statusSubresource: true,
    crd: true,
  }),
  // TLSRoute at the three versions CRD bundles have served. The fake keeps each version's
  // objects apart (no conversion); pick the version a test means with `omitKinds`.
  ...["v1", "v1alpha3", "v1alpha2"].map((version) =>
    kindInfo({
      group: "gateway.networking.k8s.io",
      version,
      kind: "TLSRoute",
      plural: "tlsroutes",
      categories: ["gateway-api"],
      generation: true,
      statusSubresource: true,
      crd: true,
    })
  ),
  kindInfo({
    group: "externaldns.k8s.io",
    version: "v1alpha1",
    kind: "DNSEndpoint",
    plural: "dnsendpoints",
    generation: true,
    statusSubresource: true,
    crd: true,
  }),
  kindInfo({
    group: "dns.par.dev",
    version: "v1alpha1",
    kind: "Records",
    plural: "records",
    generation: true,
    statusSubresource: true,
    crd: true,
  }),
];

/** `v1` or `apps/v1`. */
export function groupVersion(info: Pick<KindInfo, "group" | "version">): string {
  return info.group === "" ? info.version : `${info.group}/${info.version}`;
}

/** `configmaps` or `ingresses.networking.k8s.io`: how the real server names a resource in messages. */
export function qualifiedResource(info: Pick<KindInfo, "group" | "plural">): string {
  return info.group === "" ? info.plural : `${info.plural}.${info.group}`;
}

/**
 * The kinds served under a group filter: `groups` (an allow-list, `""` for core) and
 * `omitGroups` (a deny-list), both optional; `omitKinds` drops single kinds, each named
 * `Kind` (every version) or `group/version/Kind` (`gateway.networking.k8s.io/v1/TLSRoute`).
 */
export function selectKinds(
  groups: readonly string[] | undefined,
  omitGroups: readonly string[] | undefined,
  omitKinds: readonly string[] = [],
): KindInfo[] {
  return KINDS.filter((info) =>
    (groups === undefined || groups.includes(info.group)) && !(omitGroups ?? []).includes(info.group) &&
    !omitKinds.includes(info.kind) && !omitKinds.includes(`${groupVersion(info)}/${info.kind}`)
  );
}
