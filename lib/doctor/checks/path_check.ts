/**
 * Check 5, "the path": does a hairpinned call get through the proxy to the ingress? Per host and
 * proxy ClusterIP, an HTTP request (`Host`) and a TLS handshake (SNI). The Service is read from
 * the API, since its ClusterIPs and ports are what DNS answers point at.
 *
 * Effects: one GET through the injected client; TCP and TLS connections.
 *
 * @module
 */

import type { KubeClient } from "../../kube/client.ts";
import { isForbidden, isNotFound } from "../../kube/errors.ts";
import { SERVICE } from "../../resources/service.ts";
import { errorMessage } from "../../util/error_message.ts";
import type { DoctorCheck, Finding } from "../doctor_check.ts";
import { type Dialer, httpProbe } from "../probes/http_probe.ts";
import { probeAll } from "../probes/probe_all.ts";
import { type TlsHandshaker, tlsProbe } from "../probes/tls_probe.ts";
import { PATH_CHECK_ID, pathFindings, type PathProbe } from "./path_findings.ts";
import { serviceTargets } from "./service_targets.ts";

/** What the check runs against. */
export interface PathContext {
  readonly api: Pick<KubeClient, "get">;
  /** Absent when either flag is empty. */
  readonly proxyService?: { readonly namespace: string; readonly name: string };
  /** Already sampled. */
  readonly hosts: readonly string[];
  /** Present when `hosts` is a sample. */
  readonly sampledFrom?: number;
  readonly inCluster: boolean;
}

/** Options of {@linkcode pathCheck}. */
export interface PathCheckOptions {
  /** Each probe's own time. @default 5_000 */
  readonly probeTimeoutMs?: number;
  /** Hosts probed at once (each on both ports). @default 16 */
  readonly concurrency?: number;
  /** @default Deno.connect */
  readonly dial?: Dialer;
  /** @default `node:tls` without chain verification */
  readonly handshake?: TlsHandshaker;
}

function finding(subject: string, verdict: Finding["verdict"], saw: string, todo?: string): Finding {
  return { check: PATH_CHECK_ID, subject, verdict, saw, ...(todo === undefined ? {} : { todo }) };
}

/** Check 5 as a {@linkcode DoctorCheck}. */
export function pathCheck(options: PathCheckOptions = {}): DoctorCheck<PathContext> {
  const timeoutMs = options.probeTimeoutMs ?? 5_000;
  return {
    id: PATH_CHECK_ID,
    title: "The path: through the proxy Service to the ingress (HTTP Host and TLS SNI per host)",
    async run(context, signal) {
      const { proxyService } = context;
      if (proxyService === undefined) {
        return [finding(
          "the proxy Service",
          "could-not-check",
          "no proxy Service is configured",
          "name it with --proxy-service-namespace and --proxy-service-name",
        )];
      }
      const subject = `Service ${proxyService.namespace}/${proxyService.name}`;
      let service;
      try {
        service = await context.api.get(SERVICE, proxyService, { signal, timeoutMs });
      } catch (error) {
        if (isNotFound(error)) {
          return [finding(
            subject,
            "problem",
            "the proxy Service does not exist: hairpinned names point at nothing",
            "install the chart, or fix --proxy-service-namespace/--proxy-service-name",
          )];
        }
        return [finding(
          subject,
          "could-not-check",
          isForbidden(error)
            ? `RBAC does not allow get on services in namespace ${proxyService.namespace} (403)`
            : `could not get the proxy Service: ${errorMessage(error)}`,
          isForbidden(error)
            ? `run doctor as a user allowed to get services in ${proxyService.namespace}`
            : undefined,
        )];
      }
      const targets = serviceTargets(service);
      const findings: Finding[] = [];
      if (targets.addresses.length === 0) {
        return [finding(
          subject,
          "could-not-check",
          "the proxy Service has no ClusterIP (headless or not allocated yet); the path check dials ClusterIPs",
          "give the proxy Service a ClusterIP (the chart's default)",
        )];
      }
      for (
        const [port, name, number] of [[targets.httpPort, "http", 80], [
          targets.httpsPort,
          "https",
          443,
        ]] as const
      ) {
        if (port === undefined) {
          findings.push(finding(
            subject,
            "warning",
            `the proxy Service has no port named ${name} or numbered ${number}: hairpinned ${name} calls have ` +
              "nowhere to go",
            `add the ${name} port to the proxy Service`,
          ));
        }
      }
      if (context.hosts.length === 0) {
        findings.push(finding(
          subject,
          "could-not-check",
          "no hairpinned host to probe (no Ingress or Gateway names one)",
          "name one with --host",
        ));
        return findings;
      }
      const pairs = context.hosts.flatMap((host) => targets.addresses.map((address) => ({ host, address })));
      const { httpPort, httpsPort } = targets;
      const results = await probeAll(pairs, {
        signal,
        concurrency: options.concurrency ?? 16,
        probe: async ({ host, address }): Promise<PathProbe> => {
          const [http, https] = await Promise.all([
            httpPort === undefined ? undefined : httpProbe({ hostname: address, port: httpPort }, {
              host,
              timeoutMs,
              signal,
              ...(options.dial === undefined ? {} : { dial: options.dial }),
            }),
            httpsPort === undefined ? undefined : tlsProbe({ hostname: address, port: httpsPort }, {
              servername: host,
              timeoutMs,
              signal,
              ...(options.handshake === undefined ? {} : { handshake: options.handshake }),
            }),
          ]);
          return {
            host,
            address,
            ...(httpPort === undefined || http === undefined
              ? {}
              : { http: { port: httpPort, result: http } }),
            ...(httpsPort === undefined || https === undefined
              ? {}
              : { https: { port: httpsPort, result: https } }),
          };
        },
      });
      const probes = results.map((result, index): PathProbe => {
        if ("host" in result) return result;
        const { host, address } = pairs[index] ?? { host: "", address: "" };
        return {
          host,
          address,
          ...(httpPort === undefined ? {} : { http: { port: httpPort, result } }),
          ...(httpsPort === undefined ? {} : { https: { port: httpsPort, result } }),
        };
      });
      return [
        ...findings,
        ...pathFindings({
          service: subject,
          inCluster: context.inCluster,
          timeoutMs,
          probes,
          ...(context.sampledFrom === undefined ? {} : { sampledFrom: context.sampledFrom }),
        }),
      ];
    },
  };
}
