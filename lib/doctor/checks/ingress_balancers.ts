/**
 * Finds the ingress controller's load balancers: `--ingress-service`, plus every Service whose
 * address an Ingress (or Gateway) status reports, which catches a second ingress controller.
 * Failed reads are reported beside what was found, never thrown.
 *
 * Effects: HTTP GET/LIST through the injected client.
 *
 * @module
 */

import type { KubeClient } from "../../kube/client.ts";
import { isForbidden, isNotFound } from "../../kube/errors.ts";
import { GATEWAY } from "../../resources/gateway.ts";
import { INGRESS } from "../../resources/ingress.ts";
import { SERVICE, type Service } from "../../resources/service.ts";
import { errorMessage } from "../../util/error_message.ts";

/** What {@linkcode ingressBalancers} found, and what it could not read. */
export interface IngressBalancers {
  /** Each once, whatever its type. */
  readonly services: readonly Service[];
  /** Why `--ingress-service` could not be read. */
  readonly backendProblem?: string;
  /** Why a listing failed; `message` names the list. */
  readonly listProblem?: { readonly forbidden: boolean; readonly message: string };
}

/** Where the configured backend is. */
export interface IngressBalancersOptions {
  readonly ingressService: { readonly namespace: string; readonly name: string };
  readonly signal: AbortSignal;
  /** `--gateway-api`: Gateways' status addresses count too. @default false */
  readonly gatewayApi?: boolean;
}

/** Reads the ingress controller's Services; never rejects for a failed read. */
export async function ingressBalancers(
  api: Pick<KubeClient, "get" | "listAll">,
  options: IngressBalancersOptions,
): Promise<IngressBalancers> {
  const { ingressService, signal } = options;
  const services = new Map<string, Service>();
  let backendProblem: string | undefined;
  try {
    const backend = await api.get(SERVICE, ingressService, { signal });
    services.set(`${ingressService.namespace}/${ingressService.name}`, backend);
  } catch (error) {
    if (isNotFound(error)) {
      backendProblem = `Service ${ingressService.namespace}/${ingressService.name} does not exist`;
    } else if (isForbidden(error)) {
      backendProblem = `RBAC does not allow get on services in namespace ${ingressService.namespace} (403)`;
    } else backendProblem = errorMessage(error);
  }
  let listProblem: IngressBalancers["listProblem"];
  let step = "ingresses.networking.k8s.io";
  try {
    const addresses = new Set(
      (await api.listAll(INGRESS, { signal })).items.flatMap((ingress) =>
        ingress.status.loadBalancer.ingress.map((entry) => entry.ip ?? entry.hostname ?? "")
      ).filter((address) => address !== ""),
    );
    if (options.gatewayApi === true) {
      step = "gateways.gateway.networking.k8s.io";
      for (const gateway of (await api.listAll(GATEWAY, { signal })).items) {
        for (const address of gateway.status.addresses) {
          if (address.value !== "") addresses.add(address.value);
        }
      }
    }
    if (addresses.size > 0) {
      step = "services";
      for (const service of (await api.listAll(SERVICE, { signal })).items) {
        const reported = service.status.loadBalancer.ingress.some((entry) =>
          addresses.has(entry.ip ?? "") || addresses.has(entry.hostname ?? "")
        );
        if (reported) services.set(`${service.metadata.namespace}/${service.metadata.name}`, service);
      }
    }
  } catch (error) {
    signal.throwIfAborted();
    const forbidden = isForbidden(error);
    listProblem = {
      forbidden,
      message: forbidden
        ? `RBAC does not allow list on ${step} in all namespaces (403)`
        : `could not list ${step}: ${errorMessage(error)}`,
    };
  }
  return {
    services: [...services.values()],
    ...(backendProblem === undefined ? {} : { backendProblem }),
    ...(listProblem === undefined ? {} : { listProblem }),
  };
}
