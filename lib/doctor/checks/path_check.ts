/**
 * Check 5, "the path": does a hairpinned call get through the proxy to the ingress? Per host and
 * proxy ClusterIP, an HTTP request (`Host`) and a TLS handshake (SNI). The Service is read from
 * the API, since its ClusterIPs and ports are what DNS answers point at. With `--routes`, the
 * route table too, and each routed host's certificate through the proxy is compared with the one
 * its own backend presents directly (`route_findings.ts` says how and why).
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
import {
  expectedBackends,
  routeFindings,
  type RouteProbe,
  type RouteTableOutcome,
  routeTableOutcome,
  type RouteTableRef,
} from "./route_findings.ts";
import { probeBackends, readRouteTable } from "./route_probes.ts";
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
  /** With `--routes`: the route table the proxy mounts; each host is then followed to its own backend. */
  readonly routes?: RouteTableRef;
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
  /** `--routes` is on: the title says the route table is followed. @default false */
  readonly routes?: boolean;
}

function finding(subject: string, verdict: Finding["verdict"], saw: string, todo?: string): Finding {
  return { check: PATH_CHECK_ID, subject, verdict, saw, ...(todo === undefined ? {} : { todo }) };
}

/** Check 5 as a {@linkcode DoctorCheck}. */
export function pathCheck(options: PathCheckOptions = {}): DoctorCheck<PathContext> {
  const timeoutMs = options.probeTimeoutMs ?? 5_000;
  return {
    id: PATH_CHECK_ID,
    title: options.routes === true
      ? "The path: through the proxy Service to each host's own ingress (HTTP Host and TLS SNI per host, " +
        "the route table followed)"
      : "The path: through the proxy Service to the ingress (HTTP Host and TLS SNI per host)",
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
      const routing = context.routes === undefined ? undefined : routeTableOutcome(
        await readRouteTable(context.api, { ref: context.routes, signal, timeoutMs }),
        context.routes,
      );
      if (routing !== undefined) findings.push(routing.finding);
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
      const direct = routedProbes(context, routing, { signal, timeoutMs, options });
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
      const routed = await direct;
      return [
        ...findings,
        ...pathFindings({
          service: subject,
          inCluster: context.inCluster,
          timeoutMs,
          probes,
          ...(context.sampledFrom === undefined ? {} : { sampledFrom: context.sampledFrom }),
        }),
        ...(routed === undefined || context.routes === undefined ? [] : routeFindings({
          table: routed.table,
          ref: context.routes,
          inCluster: context.inCluster,
          timeoutMs,
          probes: probes.map((probe): RouteProbe => {
            const expected = routed.expected.get(probe.host);
            return {
              host: probe.host,
              address: probe.address,
              ...(probe.https === undefined ? {} : { through: probe.https.result }),
              ...(expected === undefined ? {} : { expected }),
              direct: routed.direct.get(probe.host) ?? new Map(),
            };
          }),
        })),
      ];
    },
  };
}

/**
 * With a table to follow: each host's expected backend, and what every backend presents directly
 * for the hosts the table routes (called while the proxy is probed).
 */
async function routedProbes(
  context: PathContext,
  routing: RouteTableOutcome | undefined,
  call: { readonly signal: AbortSignal; readonly timeoutMs: number; readonly options: PathCheckOptions },
) {
  const table = routing?.table;
  if (table === undefined) return undefined;
  const expected = expectedBackends(table, context.hosts);
  const hosts = context.hosts.filter((host) => expected.get(host) !== undefined);
  const direct = await probeBackends(hosts, {
    table,
    signal: call.signal,
    timeoutMs: call.timeoutMs,
    ...(call.options.concurrency === undefined ? {} : { concurrency: call.options.concurrency }),
    ...(call.options.handshake === undefined ? {} : { handshake: call.options.handshake }),
  });
  return { table, expected, direct };
}
