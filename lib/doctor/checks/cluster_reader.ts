/**
 * The reads the DNS wiring checks share: every failure already a finding (a 404 is `absent`, a
 * 403 names what RBAC refused), and the desired set computed exactly as the controller does.
 *
 * Effects: HTTP GET/LIST through the injected client.
 *
 * @module
 */

import type { KubeClient, ObjectRef } from "../../kube/client.ts";
import { isForbidden, isNotFound } from "../../kube/errors.ts";
import {
  desiredHostnames,
  type DesiredSetOptions,
  type SkippedWildcard,
} from "../../hostnames/desired_set.ts";
import type { GatewayRouteKind, HostSource } from "../../hostnames/sources.ts";
import { GATEWAY } from "../../resources/gateway.ts";
import { GRPC_ROUTE } from "../../resources/grpc_route.ts";
import { HTTP_ROUTE } from "../../resources/http_route.ts";
import { INGRESS } from "../../resources/ingress.ts";
import type { KubeObject } from "../../resources/kube_object.ts";
import type { ResourceType } from "../../resources/resource_type.ts";
import { TLS_ROUTE_VERSIONS, type TlsRoute } from "../../resources/tls_route.ts";
import { errorMessage } from "../../util/error_message.ts";
import type { Finding } from "../doctor_check.ts";
import { finding } from "./dns_wiring_findings.ts";

/** The reads the DNS wiring checks make. */
export type DnsWiringApi = Pick<KubeClient, "get" | "listAll">;

/** What was read: the value, nothing there (404), or the finding that says why not. */
export type Read<T> =
  | { readonly kind: "found"; readonly value: T }
  | { readonly kind: "absent" }
  | { readonly kind: "failed"; readonly finding: Finding };

/** `rejected`: names of the items that did not decode. */
export interface Listed<T> {
  readonly items: readonly T[];
  readonly rejected: readonly string[];
}

/** Where a list looks. */
export interface ListScope {
  /** Absent: every namespace. */
  readonly namespace?: string;
  readonly labelSelector?: string;
}

/** Reads that never reject for a cluster failure (only when the signal aborts). */
export interface ClusterReader {
  /** `subject` is the subject of the finding a failure becomes. */
  get<T extends KubeObject>(
    subject: string,
    type: ResourceType<T>,
    ref: Required<ObjectRef>,
  ): Promise<Read<T>>;
  list<T extends KubeObject>(
    subject: string,
    type: ResourceType<T>,
    scope?: ListScope,
  ): Promise<Read<Listed<T>>>;
}

/** `ingresses.networking.k8s.io`, `configmaps.core`. */
function resourceName(type: ResourceType<KubeObject>): string {
  return `${type.plural}.${type.group || "core"}`;
}

/** The reader over `api`: every request bounded by `signal` and `timeoutMs`. */
export function clusterReader(
  api: DnsWiringApi,
  { signal, timeoutMs }: { readonly signal: AbortSignal; readonly timeoutMs: number },
): ClusterReader {
  const failed = (subject: string, error: unknown, verb: string, what: string): Read<never> => {
    signal.throwIfAborted();
    if (isNotFound(error)) return { kind: "absent" };
    return {
      kind: "failed",
      finding: isForbidden(error)
        ? finding(subject, [
          "could-not-check",
          `RBAC does not allow ${verb} on ${what} (403)`,
          `run doctor as a user allowed to ${verb} ${what}`,
        ])
        : finding(subject, ["could-not-check", `could not ${verb} ${what}: ${errorMessage(error)}`]),
    };
  };
  return {
    async get(subject, type, ref) {
      try {
        return { kind: "found", value: await api.get(type, ref, { signal, timeoutMs }) };
      } catch (error) {
        return failed(subject, error, "get", `${type.plural} in namespace ${ref.namespace}`);
      }
    },
    async list(subject, type, scope = {}) {
      const { namespace, labelSelector } = scope;
      const where = namespace === undefined ? "in all namespaces" : `in namespace ${namespace}`;
      try {
        const page = await api.listAll(type, {
          ...(namespace === undefined ? {} : { namespace }),
          ...(labelSelector === undefined ? {} : { labelSelector }),
          signal,
          timeoutMs,
        });
        const rejected = page.rejected.map((failure) => failure.key.slice(failure.key.indexOf("/") + 1));
        return { kind: "found", value: { items: page.items, rejected } };
      } catch (error) {
        return failed(subject, error, "list", `${resourceName(type)} ${where}`);
      }
    },
  };
}

/** The controller's settings that shape the desired set. */
export interface HostSourceSettings {
  readonly desired: DesiredSetOptions;
  readonly gatewayApi: boolean;
  /** `--gateway-route-kinds`. @default every kind */
  readonly gatewayRouteKinds?: readonly GatewayRouteKind[];
}

/** The desired set as the checks use it. */
export interface DesiredHosts {
  /** Sorted, each once. */
  readonly hosts: readonly string[];
  /** The kinds each hostname came from (external-dns mode's source annotation). */
  readonly sources: ReadonlyMap<string, readonly HostSource[]>;
  /** With `desired.wildcards: "exclude"`. */
  readonly skippedWildcards: readonly SkippedWildcard[];
}

/** The desired set, or the finding that says why it could not be computed. */
export type Hosts = DesiredHosts | { readonly finding: Finding };

/**
 * Lists the desired set's sources and computes it as the controller does; a route kind whose CRD
 * is missing holds nothing, and TLSRoute is read at its first served version.
 */
export async function desiredHosts(read: ClusterReader, settings: HostSourceSettings): Promise<Hosts> {
  const subject = "desired hostnames";
  let failure: Finding | undefined;
  const items = <T>(result: Read<Listed<T>>): T[] => {
    if (result.kind === "found") return [...result.value.items];
    if (result.kind === "failed") failure ??= result.finding;
    return [];
  };
  const ingresses = items(await read.list(subject, INGRESS));
  const kinds = settings.gatewayRouteKinds ?? ["HTTPRoute", "GRPCRoute", "TLSRoute"];
  const gatewayApi = settings.gatewayApi;
  const gateways = gatewayApi ? items(await read.list(subject, GATEWAY)) : [];
  const routes = gatewayApi && kinds.includes("HTTPRoute") ? items(await read.list(subject, HTTP_ROUTE)) : [];
  const grpcRoutes = gatewayApi && kinds.includes("GRPCRoute")
    ? items(await read.list(subject, GRPC_ROUTE))
    : [];
  let tlsRoutes: TlsRoute[] = [];
  if (gatewayApi && kinds.includes("TLSRoute")) {
    for (const type of TLS_ROUTE_VERSIONS) {
      const result = await read.list(subject, type);
      if (result.kind === "absent") continue;
      tlsRoutes = items(result);
      break;
    }
  }
  if (failure !== undefined) return { finding: failure };
  const desired = desiredHostnames({ ingresses, gateways, routes, grpcRoutes, tlsRoutes }, settings.desired);
  return { hosts: desired.hosts, sources: desired.sources, skippedWildcards: desired.skippedWildcards };
}
