/**
 * Small builders for decoded Ingress, Gateway and HTTPRoute objects, so each test states only the
 * fields it is about.
 *
 * @module
 */

import type { ObjectMeta } from "../../lib/resources/kube_object.ts";
import type { Gateway, GatewayListener } from "../../lib/resources/gateway.ts";
import type { ParentReference } from "../../lib/resources/gateway_route.ts";
import type { HttpRoute } from "../../lib/resources/http_route.ts";
import type { Ingress } from "../../lib/resources/ingress.ts";

/** `namespace/name` plus an optional resourceVersion (default "1"). */
export function meta(key: string, resourceVersion = "1"): ObjectMeta {
  const [namespace = "", name = ""] = key.split("/");
  return {
    name,
    namespace,
    uid: `uid-${key}`,
    resourceVersion,
    labels: {},
    annotations: {},
    ownerReferences: [],
  };
}

/** An Ingress with the given TLS hosts (one TLS section), rule hosts and class. */
export function ingress(
  key: string,
  fields: {
    readonly tls?: readonly string[];
    readonly rules?: readonly (string | undefined)[];
    readonly className?: string;
    readonly resourceVersion?: string;
  } = {},
): Ingress {
  return {
    metadata: meta(key, fields.resourceVersion),
    spec: {
      ...(fields.className === undefined ? {} : { ingressClassName: fields.className }),
      rules: (fields.rules ?? []).map((host) => host === undefined ? {} : { host }),
      tls: fields.tls === undefined ? [] : [{ hosts: fields.tls }],
    },
    status: { loadBalancer: { ingress: [] } },
  };
}

/** A Gateway of a class with one listener per hostname (`undefined`: a listener without one). */
export function gateway(
  key: string,
  className: string,
  hostnames: readonly (string | undefined)[] = [],
  protocol = "HTTPS",
): Gateway {
  const listeners: GatewayListener[] = hostnames.map((hostname, index) => ({
    name: `l${index}`,
    ...(hostname === undefined ? {} : { hostname }),
    protocol,
    port: protocol === "HTTP" ? 80 : 443,
  }));
  return {
    metadata: meta(key),
    spec: { gatewayClassName: className, listeners },
    status: { addresses: [] },
  };
}

/** A parentRef; group, kind and namespace as given (the decoder's defaults when omitted). */
export function parentRef(
  name: string,
  fields: { readonly group?: string; readonly kind?: string; readonly namespace?: string } = {},
): ParentReference {
  return {
    group: fields.group ?? "gateway.networking.k8s.io",
    kind: fields.kind ?? "Gateway",
    namespace: fields.namespace ?? "",
    name,
  };
}

/** An HTTPRoute with hostnames and parentRefs. */
export function route(
  key: string,
  hostnames: readonly string[],
  parentRefs: readonly ParentReference[] = [],
  resourceVersion?: string,
): HttpRoute {
  return { metadata: meta(key, resourceVersion), spec: { hostnames, parentRefs } };
}
