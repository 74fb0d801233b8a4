/**
 * Check 2, "is the problem real?" (`--probe-direct`): from inside the cluster, send a plain HTTP
 * request without a PROXY header to the ingress's load-balancer address, as a hairpinned call
 * does. The service proxy short-circuits that address to the ingress pods, so the answer shows
 * what hairpinned calls meet without ouroboros.
 *
 * Decisions:
 * - Hung up on (closed or reset without an answer): the ingress insists on a PROXY header and
 *   hairpinned calls fail: ouroboros is needed; a finding of verdict ok, since that is what it is
 *   for.
 * - Answered (any status): warning, "you may not need ouroboros": the ingress does not insist on
 *   a PROXY header from in-cluster clients, or the service proxy sends the address through the
 *   load balancer (`ipMode: Proxy`), which adds one.
 * - Anything else (refused, no answer, no route) tells nothing about the PROXY header:
 *   `could-not-check`, with what was seen.
 * - From a workstation the request would go through the load balancer, which adds the header,
 *   so the answer says nothing: `could-not-check` without dialling, with the advice to run it
 *   in the cluster.
 * - The addresses are the IPs of the load balancers `ingress_balancers.ts` finds (shared with
 *   check 1), on each Service's http port (named `http`, else 80).
 *
 * Pure: {@linkcode probeDirectFindings}. Effects: reads through the injected client; one TCP
 * connection per address through an injectable dialer.
 *
 * @module
 */

import type { KubeClient } from "../../kube/client.ts";
import type { DoctorCheck, Finding, Verdict } from "../doctor_check.ts";
import { type Dialer, httpProbe, type HttpProbeResult } from "../probes/http_probe.ts";
import { probeAll } from "../probes/probe_all.ts";
import { describeProbeFailure } from "../probes/probe_failure.ts";
import { ingressBalancers } from "./ingress_balancers.ts";
import { serviceTargets } from "./service_targets.ts";

/** The check's id. */
export const PROBE_DIRECT_CHECK_ID = "probe-direct";

/** One load-balancer address probed. */
export interface DirectProbe {
  /** `Service <namespace>/<name>`. */
  readonly service: string;
  readonly address: string;
  readonly port: number;
  readonly result: HttpProbeResult;
}

/** What {@linkcode probeDirectFindings} decides from. */
export interface ProbeDirectInput {
  readonly timeoutMs: number;
  readonly probes: readonly DirectProbe[];
  /** Why nothing could be probed or some Services were not seen (read failures), when so. */
  readonly readProblems: readonly string[];
}

function finding(subject: string, verdict: Verdict, saw: string, todo?: string): Finding {
  return { check: PROBE_DIRECT_CHECK_ID, subject, verdict, saw, ...(todo === undefined ? {} : { todo }) };
}

function judge(probe: DirectProbe, timeoutMs: number): Finding {
  const where = probe.address.includes(":")
    ? `[${probe.address}]:${probe.port}`
    : `${probe.address}:${probe.port}`;
  const subject = `${probe.service} at ${where}`;
  const { result } = probe;
  switch (result.kind) {
    case "closed":
    case "reset":
      return finding(
        subject,
        "ok",
        `a request without a PROXY header was hung up on (${result.kind === "closed" ? "closed" : "reset"} ` +
          "without an answer): the ingress insists on the header, so hairpinned calls fail without ouroboros: " +
          "the problem is real and ouroboros is needed",
      );
    case "answered":
      return finding(
        subject,
        "warning",
        `a request without a PROXY header was answered \`${result.statusLine}\`: the ingress does not insist ` +
          "on the header for in-cluster clients, or the service proxy sends this address through the load " +
          "balancer (ipMode: Proxy), which adds it",
        "you may not need ouroboros: check that hairpinned calls work without it (and whether the ingress " +
          "should insist on the PROXY header at all)",
      );
    case "not-http":
      return finding(
        subject,
        "could-not-check",
        `a request without a PROXY header got bytes that are not HTTP (${result.sample})`,
        "check that the load balancer's http port leads to the ingress's http port",
      );
    default:
      return finding(
        subject,
        "could-not-check",
        `${
          describeProbeFailure(result, { address: where, timeoutMs })
        }: this tells nothing about the PROXY header`,
        "check that the ingress has ready pods behind this port, and that no NetworkPolicy blocks the doctor",
      );
  }
}

/**
 * The findings of check 2 from what the probes saw.
 *
 * @example
 * ```ts
 * import { probeDirectFindings } from "./probe_direct_check.ts";
 *
 * probeDirectFindings({
 *   timeoutMs: 5_000,
 *   readProblems: [],
 *   probes: [{ service: "Service ingress-nginx/ingress-nginx-controller", address: "203.0.113.10", port: 80, result: { kind: "closed" } }],
 * })[0]?.saw; // "… the problem is real and ouroboros is needed"
 * ```
 */
export function probeDirectFindings(input: ProbeDirectInput): Finding[] {
  const findings = input.probes.map((probe) => judge(probe, input.timeoutMs));
  if (findings.length === 0) {
    findings.push(finding(
      "the ingress controller's load balancer",
      "could-not-check",
      ["no load-balancer IP address to probe", ...input.readProblems].join("; "),
      "name the ingress controller's LoadBalancer Service with --ingress-service=<namespace>/<name> " +
        "(a load balancer known only by hostname is never short-circuited)",
    ));
  } else {
    // What could not be read may hide another load balancer: say so beside what was probed.
    for (const problem of input.readProblems) {
      findings.push(finding("the ingress controller's other load balancers", "could-not-check", problem));
    }
  }
  return findings;
}

/** What the check runs against. */
export interface ProbeDirectContext {
  readonly api: Pick<KubeClient, "get" | "listAll">;
  /** `--ingress-service`. */
  readonly ingressService: { readonly namespace: string; readonly name: string };
  /** Whether the doctor runs in a pod; from outside, the probe would tell nothing. */
  readonly inCluster: boolean;
  /** `--gateway-api`: Gateways' status addresses name load balancers too. @default false */
  readonly gatewayApi?: boolean;
  /** The `Host` header to send (a hairpinned host); the address itself when absent. */
  readonly host?: string;
}

/** Options of {@linkcode probeDirectCheck}. */
export interface ProbeDirectCheckOptions {
  /** Each probe's own time. @default 5_000 */
  readonly probeTimeoutMs?: number;
  /** @default Deno.connect */
  readonly dial?: Dialer;
}

/** Check 2 as a {@linkcode DoctorCheck}. */
export function probeDirectCheck(options: ProbeDirectCheckOptions = {}): DoctorCheck<ProbeDirectContext> {
  const timeoutMs = options.probeTimeoutMs ?? 5_000;
  return {
    id: PROBE_DIRECT_CHECK_ID,
    title: "Is the problem real? (a request without a PROXY header to the load balancer's address)",
    async run(context, signal) {
      if (!context.inCluster) {
        return [finding(
          "the ingress controller's load balancer",
          "could-not-check",
          "from outside the cluster a request to the load balancer goes through it and gets its PROXY header, " +
            "so the answer would tell nothing about hairpinned calls",
          "run it in the cluster: `helm test <release>` (with --probe-direct)",
        )];
      }
      const found = await ingressBalancers(context.api, {
        ingressService: context.ingressService,
        signal,
        gatewayApi: context.gatewayApi ?? false,
      });
      const targets = new Map<string, Omit<DirectProbe, "result">>();
      for (const service of found.services) {
        if (service.spec.type !== "LoadBalancer") continue;
        const port = serviceTargets(service).httpPort ?? 80;
        for (const entry of service.status.loadBalancer.ingress) {
          if (entry.ip === undefined || entry.ip === "") continue;
          const key = `${entry.ip}/${port}`;
          if (!targets.has(key)) {
            targets.set(key, {
              service: `Service ${service.metadata.namespace}/${service.metadata.name}`,
              address: entry.ip,
              port,
            });
          }
        }
      }
      const list = [...targets.values()];
      const results = await probeAll(list, {
        signal,
        probe: (target) =>
          httpProbe({ hostname: target.address, port: target.port }, {
            host: context.host ?? target.address,
            timeoutMs,
            signal,
            ...(options.dial === undefined ? {} : { dial: options.dial }),
          }),
      });
      const readProblems = [
        ...(found.backendProblem === undefined ? [] : [found.backendProblem]),
        ...(found.listProblem === undefined ? [] : [found.listProblem.message]),
      ];
      return probeDirectFindings({
        timeoutMs,
        readProblems,
        probes: list.map((target, index) => ({ ...target, result: results[index] ?? { kind: "aborted" } })),
      });
    },
  };
}
