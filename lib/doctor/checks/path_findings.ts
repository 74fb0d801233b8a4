/**
 * The verdicts of check 5, "the path"; hosts that saw the same share one line.
 * - Any HTTP status means the path works, except 400: the ingress read the PROXY header as a
 *   malformed request line. A hang-up without a byte is a PROXY header mismatch too.
 * - Not connecting is a problem in a pod; from a workstation (ClusterIPs not routed),
 *   could-not-check.
 * - An untrusted certificate that covers the host is fine (private CAs are common).
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Finding, Verdict } from "../doctor_check.ts";
import { VERDICTS } from "../doctor_check.ts";
import type { HttpProbeResult } from "../probes/http_probe.ts";
import { describeProbeFailure, type ProbeFailure } from "../probes/probe_failure.ts";
import type { TlsProbeResult } from "../probes/tls_probe.ts";

/** The check's id. */
export const PATH_CHECK_ID = "path";

/** What the probes of one host on one of the proxy Service's addresses saw. */
export interface PathProbe {
  readonly host: string;
  /** The ClusterIP probed. */
  readonly address: string;
  /** Absent when the Service has no such port. */
  readonly http?: { readonly port: number; readonly result: HttpProbeResult };
  readonly https?: { readonly port: number; readonly result: TlsProbeResult };
}

/** What {@linkcode pathFindings} decides from. */
export interface PathInput {
  /** `Service <namespace>/<name>`. */
  readonly service: string;
  /** In a pod, ClusterIPs must answer. */
  readonly inCluster: boolean;
  /** Each probe's own time. */
  readonly timeoutMs: number;
  readonly probes: readonly PathProbe[];
  /** Present when the hosts were a sample. */
  readonly sampledFrom?: number;
}

type Judged = readonly [verdict: Verdict, saw: string, todo?: string | undefined];

const RUN_IN_CLUSTER = "run the doctor in the cluster, where ClusterIPs answer: `helm test <release>`";
const PROXY_HEADER_TODO =
  "the PROXY header was not accepted, or the proxy could not reach the ingress: make the " +
  "proxy's --proxy-protocol (v1 or v2) what the ingress expects, or turn PROXY protocol on at the ingress " +
  '(ingress-nginx: use-proxy-protocol: "true"; nginx: listen … proxy_protocol); the proxy\'s /readyz says ' +
  "whether it reaches the ingress";

function hostPort(address: string, port: number): string {
  return address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`;
}

function judgeFailure(failure: ProbeFailure, where: string, input: PathInput): Judged {
  const saw = describeProbeFailure(failure, { address: where, timeoutMs: input.timeoutMs });
  switch (failure.kind) {
    case "refused":
    case "unreachable":
    case "connect-timeout":
      return input.inCluster
        ? [
          "problem",
          saw,
          "nothing answers on the proxy Service: check that the proxy pods are Ready, that the Service's " +
          "ports and targetPorts match them, and that no NetworkPolicy blocks the doctor",
        ]
        : [
          "could-not-check",
          `${saw} (ClusterIPs are usually not reachable from outside the cluster)`,
          RUN_IN_CLUSTER,
        ];
    case "closed":
    case "reset":
      return ["problem", saw, PROXY_HEADER_TODO];
    case "handshake-failed":
      return [
        "problem",
        saw,
        `${PROXY_HEADER_TODO}; an ingress that reads a PROXY header as the start of TLS fails the handshake so, as ` +
        "does one without any certificate for the name",
      ];
    case "answer-timeout":
      return [
        "problem",
        saw,
        "the proxy took the connection but nothing came back: check the proxy's target (--target-host and " +
        "ports) and its /readyz; an ingress waiting for a PROXY header in another version can also stall",
      ];
    case "aborted":
      return ["could-not-check", saw, "raise --check-timeout, or probe fewer hosts (--host-limit)"];
    case "error":
      return ["could-not-check", saw];
  }
}

function judgeHttp(result: HttpProbeResult, where: string, input: PathInput): Judged {
  if (result.kind === "not-http") {
    return [
      "warning",
      `http ${where} answered with bytes that are not HTTP (${result.sample})`,
      "check that the proxy's http target port is the ingress's http port, not its https port",
    ];
  }
  if (result.kind !== "answered") {
    const [verdict, saw, todo] = judgeFailure(result, where, input);
    return [verdict, `http: ${saw}`, todo];
  }
  if (result.status === 400) {
    return [
      "problem",
      `http ${where} answered \`${result.statusLine}\` to a well-formed request: the ingress most likely read ` +
      "the PROXY header as a malformed request line",
      PROXY_HEADER_TODO.replace(
        "the PROXY header was not accepted, or the proxy could not reach the ingress: ",
        "",
      ) +
      "; or the proxy's http target port is the ingress's https port",
    ];
  }
  const note = result.status >= 400
    ? " (the ingress answered: the path works; the status is the application's)"
    : "";
  return ["ok", `http ${where} answered \`${result.statusLine}\`${note}`];
}

function judgeTls(result: TlsProbeResult, where: string, input: PathInput): Judged {
  if (result.kind !== "handshake") {
    const [verdict, saw, todo] = judgeFailure(result, where, input);
    return [verdict, `https: ${saw}`, todo];
  }
  const done = `https ${where}: TLS handshake done${
    result.protocol === undefined ? "" : ` (${result.protocol})`
  }`;
  const certificate = result.certificate;
  if (certificate === undefined) return ["ok", done];
  const shown = certificate.names.length === 0 ? "no names" : certificate.names.join(", ");
  const trust = certificate.untrustedBecause === undefined
    ? "verified"
    : `not verified: ${certificate.untrustedBecause}`;
  if (certificate.coversHost) return ["ok", `${done}, the certificate covers the host (${trust})`];
  return [
    "warning",
    `${done}, but the certificate (${shown}; ${trust}) does not cover the host: the ingress served its ` +
    "default certificate",
    "give the host's Ingress a tls entry whose Secret covers the host",
  ];
}

function worst(judged: readonly Judged[]): Judged {
  return judged.reduce((a, b) => VERDICTS.indexOf(b[0]) > VERDICTS.indexOf(a[0]) ? b : a);
}

/** The findings of check 5: one per group of hosts that saw the same, plus a note for a sample. */
export function pathFindings(input: PathInput): Finding[] {
  const findings: Finding[] = [];
  const hosts = new Set(input.probes.map((probe) => probe.host));
  if (input.sampledFrom !== undefined && input.sampledFrom > hosts.size) {
    findings.push({
      check: PATH_CHECK_ID,
      subject: "hosts",
      verdict: "ok",
      saw: `probed ${hosts.size} of ${input.sampledFrom} hosts, a sample (--host-limit)`,
    });
  }
  const addresses = new Set(input.probes.map((probe) => probe.address));
  const groups = new Map<string, { hosts: string[]; judged: Judged }>();
  for (const probe of input.probes) {
    const parts: Judged[] = [];
    if (probe.http !== undefined) {
      parts.push(judgeHttp(probe.http.result, hostPort(probe.address, probe.http.port), input));
    }
    if (probe.https !== undefined) {
      parts.push(judgeTls(probe.https.result, hostPort(probe.address, probe.https.port), input));
    }
    if (parts.length === 0) continue;
    const [verdict, , todo] = worst(parts);
    const judged: Judged = [verdict, parts.map((part) => part[1]).join("; "), todo];
    const label = addresses.size > 1 ? `${probe.host} via ${probe.address}` : probe.host;
    const key = JSON.stringify(judged);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { hosts: [label], judged });
    else group.hosts.push(label);
  }
  for (const { hosts: labels, judged: [verdict, saw, todo] } of groups.values()) {
    findings.push({
      check: PATH_CHECK_ID,
      subject: `${labels.length === 1 ? "host" : `${labels.length} hosts`} ${
        labels.join(", ")
      } through ${input.service}`,
      verdict,
      saw,
      ...(todo === undefined ? {} : { todo }),
    });
  }
  return findings;
}
