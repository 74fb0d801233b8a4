/**
 * Check 2, "is the problem real?" (`--probe-direct`): from inside the cluster, a request without
 * a PROXY header to the load-balancer IP, as a hairpinned call makes. Hung up on means ouroboros
 * is needed (ok); answered means you may not need it (warning). From a workstation the request
 * would cross the load balancer and tell nothing, so it is not sent.
 *
 * Pure: {@linkcode probeDirectFindings}. Effects: reads through the injected client; one TCP
 * connection per address.
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
  /** Read failures that may hide load balancers. */
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

/** The findings of check 2 from what the probes saw. */
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
    // What could not be read may hide another load balancer.
    for (const problem of input.readProblems) {
      findings.push(finding("the ingress controller's other load balancers", "could-not-check", problem));
    }
  }
  return findings;
}

/** What the check runs against. */
export interface ProbeDirectContext {
  readonly api: Pick<KubeClient, "get" | "listAll">;
  readonly ingressService: { readonly namespace: string; readonly name: string };
  readonly inCluster: boolean;
  /** Gateways' status addresses name load balancers too. @default false */
  readonly gatewayApi?: boolean;
  /** The `Host` header (a hairpinned host); the address itself when absent. */
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
