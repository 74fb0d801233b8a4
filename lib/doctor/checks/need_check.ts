/**
 * Check 1, "do you need ouroboros at all?". Hairpinning exists because the service proxy
 * short-circuits traffic to a load balancer IP; with KEP-1860's `ipMode: Proxy` (default from
 * 1.30) or a hostname-only load balancer, traffic goes out through it and gets the PROXY header.
 *
 * Pure: {@linkcode needFindings} decides from what was read; {@linkcode needCheck} reads.
 *
 * @module
 */

import type { KubeClient } from "../../kube/client.ts";
import { isForbidden } from "../../kube/errors.ts";
import { serverVersion } from "../../kube/server_version.ts";
import type { Service } from "../../resources/service.ts";
import { errorMessage } from "../../util/error_message.ts";
import type { DoctorCheck, Finding } from "../doctor_check.ts";
import { ingressBalancers } from "./ingress_balancers.ts";

/** The first minor version where kube-proxy honours `ipMode: Proxy` by default. */
const IP_MODE_MINOR = 30;

const IP_MODE_SUPPORT =
  "kube-proxy from 1.30; Cilium's kube-proxy replacement from 1.17 (1.18.0 regressed, " +
  "fixed in 1.18.1); Calico eBPF: not known";

/** What {@linkcode needFindings} decides from. */
export interface NeedInput {
  /** `/version`, or why it could not be read. */
  readonly version: { readonly major: number; readonly minor: number } | { readonly error: string };
  readonly services: readonly Service[];
  /** Why `--ingress-service` could not be read. */
  readonly backendProblem?: string;
}

const CHECK = "need";

function where(service: Service): string {
  return `Service ${service.metadata.namespace}/${service.metadata.name}`;
}

/**
 * The findings of check 1.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeService } from "../../resources/service.ts";
 * import { needFindings } from "./need_check.ts";
 *
 * const lb = decodeService({
 *   metadata: { name: "ingress-nginx", namespace: "ingress", resourceVersion: "1" },
 *   spec: { type: "LoadBalancer" },
 *   status: { loadBalancer: { ingress: [{ ip: "203.0.113.10", ipMode: "Proxy" }] } },
 * });
 * assert.ok(lb.ok);
 * assert.equal(needFindings({ version: { major: 1, minor: 32 }, services: [lb.value] })[0]?.verdict, "warning");
 * ```
 */
export function needFindings(input: NeedInput): Finding[] {
  const findings: Finding[] = [];
  if (input.backendProblem !== undefined) {
    findings.push({
      check: CHECK,
      subject: "the ingress controller's Service",
      verdict: "could-not-check",
      saw: input.backendProblem,
      todo: "name it with --ingress-service=<namespace>/<name>",
    });
  }
  const balancers = input.services.filter((service) => service.spec.type === "LoadBalancer");
  if (balancers.length === 0 && input.backendProblem === undefined) {
    findings.push({
      check: CHECK,
      subject: "the ingress controller's Service",
      verdict: "warning",
      saw:
        "no LoadBalancer Service of the ingress controller was found (neither the configured one nor one " +
        "whose address an Ingress reports)",
      todo:
        "name it with --ingress-service=<namespace>/<name>; without a load balancer in front there is no " +
        "PROXY header and no hairpin problem",
    });
  }
  const supportsIpMode = "error" in input.version
    ? undefined
    : input.version.major > 1 || (input.version.major === 1 && input.version.minor >= IP_MODE_MINOR);
  for (const service of balancers) {
    const entries = service.status.loadBalancer.ingress;
    const withIp = entries.filter((entry) => entry.ip !== undefined && entry.ip !== "");
    if (entries.length === 0) {
      findings.push({
        check: CHECK,
        subject: where(service),
        verdict: "warning",
        saw: "the load balancer has no address yet (status.loadBalancer.ingress is empty)",
        todo: "wait for the cloud controller to assign one, then run the doctor again",
      });
    } else if (withIp.length === 0) {
      findings.push({
        check: CHECK,
        subject: where(service),
        verdict: "ok",
        saw: `the load balancer is known by hostname only (${entries.map((e) => e.hostname).join(", ")}): ` +
          "traffic to it leaves the cluster and comes back with the PROXY header, so there is nothing to " +
          "short-circuit and you may not need ouroboros",
      });
    } else if (withIp.every((entry) => entry.ipMode === "Proxy")) {
      findings.push({
        check: CHECK,
        subject: where(service),
        verdict: "warning",
        saw: supportsIpMode === false
          ? `every address has ipMode: Proxy, but the API server is older than 1.${IP_MODE_MINOR}, where ` +
            "service proxies do not honour it by default"
          : "every address has ipMode: Proxy (KEP-1860): a service proxy that honours it already sends " +
            `hairpinned traffic through the load balancer (${IP_MODE_SUPPORT})`,
        todo: supportsIpMode === false
          ? "keep ouroboros until the cluster is on 1.30 or later"
          : "if your CNI's service proxy honours ipMode, you may not need ouroboros: test a hairpinned call " +
            "without it",
      });
    } else {
      const modes = [...new Set(withIp.map((entry) => entry.ipMode ?? "VIP (unset)"))].join(", ");
      findings.push({
        check: CHECK,
        subject: where(service),
        verdict: "ok",
        saw: `address ${
          withIp.map((entry) => entry.ip).join(", ")
        } has ipMode ${modes}: in-cluster calls to it ` +
          "are short-circuited past the load balancer, so they arrive without the PROXY header: ouroboros is " +
          "needed",
      });
    }
  }
  if ("error" in input.version) {
    findings.push({
      check: CHECK,
      subject: "API server version",
      verdict: "could-not-check",
      saw: `GET /version failed: ${input.version.error}`,
    });
  }
  return findings;
}

/** What {@linkcode needCheck} reads with and where the configured backend is. */
export interface NeedContext {
  readonly api: Pick<KubeClient, "get" | "listAll" | "getJson">;
  readonly ingressService: { readonly namespace: string; readonly name: string };
  /** Gateways' status addresses name load balancers too. @default false */
  readonly gatewayApi?: boolean;
}

/** Check 1 as a {@linkcode DoctorCheck}. */
export function needCheck(): DoctorCheck<NeedContext> {
  return {
    id: CHECK,
    title: "Do you need ouroboros? (the load balancer's ipMode, KEP-1860)",
    async run(context, signal) {
      const { api, ingressService } = context;
      const version = await serverVersion(api, { signal }).then(
        (info) => ({ major: info.major, minor: info.minor }),
        (error: unknown) => ({
          error: isForbidden(error)
            ? "RBAC does not allow get on the /version endpoint (403)"
            : errorMessage(error),
        }),
      );
      const found = await ingressBalancers(api, {
        ingressService,
        signal,
        gatewayApi: context.gatewayApi ?? false,
      });
      const findings = needFindings({
        version,
        services: found.services,
        ...(found.backendProblem === undefined ? {} : { backendProblem: found.backendProblem }),
      });
      if (found.listProblem !== undefined) {
        findings.push({
          check: CHECK,
          subject: "the load balancers Ingresses report",
          verdict: "could-not-check",
          saw: found.listProblem.message,
          ...(found.listProblem.forbidden
            ? { todo: "grant that list to the doctor (the chart's `helm test` ServiceAccount has it)" }
            : {}),
        });
      }
      return findings;
    },
  };
}
