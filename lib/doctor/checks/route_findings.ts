/**
 * Check 5 with `--routes` (issue 30): does each sampled hostname, called through the proxy, reach
 * the backend the route table names for it? The expected backend per host, and the verdicts.
 *
 * Decisions a reader could not guess:
 * - Routing is on when the doctor's own flags say so: it takes the controller's arguments (the
 *   chart passes them), so `--routes`, `--routes-configmap` and `--routes-namespace` name the
 *   table exactly as they do for the controller, with the controller's defaults and checks. Not
 *   read from the controller's Deployment: that takes RBAC on Deployments and guessing which
 *   release's, and the doctor would then judge a set-up other than the one its flags describe.
 * - "Reaches its own backend" is judged by the TLS certificate: the one presented for the host
 *   (SNI) through the proxy against the one the expected backend presents when called directly,
 *   at the table's address and https port, after a PROXY header of the table's version. A
 *   certificate names who answered; an HTTP answer does not (every ingress answers 404 alike).
 * - Every backend of the table is asked about every routed host, so a wrong answer names the
 *   backend that gave it (a stale or swapped table). When another backend presents the same
 *   certificate for the name (a shared wildcard), the report says the two cannot be told apart
 *   rather than vouching for the route.
 * - Hosts no route names go to the proxy's default target (its `--target-host`, which neither the
 *   table nor the controller's flags name): they are listed, ok, the path lines being their check.
 * - Not reaching a backend directly is a problem in a pod; from a workstation (ClusterIPs are not
 *   routed, `svc` names do not resolve) it is could-not-check, as for the proxy itself.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { compileRoutes, lookupRoute } from "../../routes/route_lookup.ts";
import { parseRouteTable, ROUTE_TABLE_KEY, type RouteTable } from "../../routes/route_table.ts";
import { isWildcard } from "../../hostnames/wildcard.ts";
import type { Finding, Verdict } from "../doctor_check.ts";
import { describeProbeFailure, type ProbeFailure } from "../probes/probe_failure.ts";
import type { TlsProbeResult } from "../probes/tls_probe.ts";
import { PATH_CHECK_ID } from "./path_findings.ts";

/** Where the route table is: `--routes-namespace` and `--routes-configmap`, as the controller reads them. */
export interface RouteTableRef {
  readonly namespace: string;
  readonly configmap: string;
}

/** What reading the table's ConfigMap gave: its data, or why there is none. */
export type RouteTableRead =
  | { readonly kind: "found"; readonly data: Readonly<Record<string, string>> }
  | { readonly kind: "absent" }
  | { readonly kind: "forbidden" }
  | { readonly kind: "failed"; readonly message: string };

/** A finding about the table, with the table when it can be followed. */
export interface RouteTableOutcome {
  readonly finding: Finding;
  readonly table?: RouteTable;
}

type Judged = readonly [verdict: Verdict, saw: string, todo?: string | undefined];

const RUN_IN_CLUSTER = "run the doctor in the cluster, where ClusterIPs answer: `helm test <release>`";
/** Problems of an invalid table shown in full; the rest are counted. */
const SHOWN_PROBLEMS = 3;

function finding(subject: string, [verdict, saw, todo]: Judged): Finding {
  return { check: PATH_CHECK_ID, subject, verdict, saw, ...(todo === undefined ? {} : { todo }) };
}

function tableName(ref: RouteTableRef): string {
  return `ConfigMap ${ref.namespace}/${ref.configmap}`;
}

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * The table in the ConfigMap, or the finding that says why it cannot be followed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { routeTableOutcome } from "./route_findings.ts";
 *
 * const ref = { namespace: "ouroboros", configmap: "ouroboros-routes" };
 * const absent = routeTableOutcome({ kind: "absent" }, ref);
 * assert.equal(absent.table, undefined);
 * assert.equal(absent.finding.verdict, "problem");
 * const text = '{"version": 1, "routes": [], "backends": {}}';
 * const found = routeTableOutcome({ kind: "found", data: { "routes.json": text } }, ref);
 * assert.deepEqual(found.table?.routes, []);
 * ```
 */
export function routeTableOutcome(read: RouteTableRead, ref: RouteTableRef): RouteTableOutcome {
  const name = tableName(ref);
  const subject = `${name}[${ROUTE_TABLE_KEY}]`;
  switch (read.kind) {
    case "forbidden":
      return {
        finding: finding(subject, [
          "could-not-check",
          `RBAC does not allow get on configmaps in namespace ${ref.namespace} (403), so the routes cannot be followed`,
          `run doctor as a user allowed to get configmaps in ${ref.namespace}`,
        ]),
      };
    case "failed":
      return {
        finding: finding(subject, ["could-not-check", `could not get the route table: ${read.message}`]),
      };
    case "absent":
      return {
        finding: finding(subject, [
          "problem",
          `${name} does not exist: the proxy has no route table to mount (--routes is on)`,
          "check that the controller runs with --routes and the same --routes-configmap and --routes-namespace: " +
          "its leader creates the ConfigMap on its first pass, and its log says why it could not",
        ]),
      };
  }
  const text = read.data[ROUTE_TABLE_KEY];
  if (text === undefined) {
    return {
      finding: finding(subject, [
        "problem",
        `${name} has no ${ROUTE_TABLE_KEY} key: it is not the controller's route table`,
        "the controller never writes into a ConfigMap it does not own (its log says so): remove that one, or " +
        "give the controller and the doctor another --routes-configmap",
      ]),
    };
  }
  const parsed = parseRouteTable(text);
  if (!parsed.ok) {
    const shown = parsed.problems.slice(0, SHOWN_PROBLEMS).join("; ");
    const more = parsed.problems.length - SHOWN_PROBLEMS;
    return {
      finding: finding(subject, [
        "problem",
        `the route table is invalid: ${shown}${more > 0 ? `; and ${count(more, "more problem")}` : ""}`,
        "the proxy refuses it and keeps its last good table (or its default target), logging an ERROR: the " +
        "controller writes only tables it can read, so let it write this one again (delete the ConfigMap; " +
        "its leader recreates it) and make the proxy no older than the controller",
      ]),
    };
  }
  const { table } = parsed;
  const wildcards = table.routes.filter((route) => isWildcard(route.host)).length;
  const backends = [...new Set(table.routes.map((route) => route.backend))].sort();
  return {
    table,
    finding: finding(subject, [
      "ok",
      `the route table sends ${count(table.routes.length, "hostname")}` +
      `${wildcards === 0 ? "" : ` (${count(wildcards, "wildcard")})`} to ${
        count(backends.length, "backend")
      }` +
      `${backends.length === 0 ? "" : `: ${backends.join(", ")}`}; every other name goes to the proxy's ` +
      "default target",
    ]),
  };
}

/**
 * The backend the table sends each host to: its name, or `undefined` for the proxy's default
 * target; the same lookup the proxy makes (`routes/route_lookup.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { expectedBackends } from "./route_findings.ts";
 *
 * const gateway = { address: "10.96.0.20", httpPort: 80, httpsPort: 443, proxyProtocol: "v2" } as const;
 * const table = { routes: [{ host: "*.apps.example.com", backend: "envoy/public" }], backends: new Map([["envoy/public", gateway]]) };
 * assert.deepEqual(
 *   expectedBackends(table, ["doctor-probe.apps.example.com", "shop.example.com"]),
 *   new Map([["doctor-probe.apps.example.com", "envoy/public"], ["shop.example.com", undefined]]),
 * );
 * ```
 */
export function expectedBackends(
  table: RouteTable,
  hosts: readonly string[],
): ReadonlyMap<string, string | undefined> {
  const compiled = compileRoutes(table);
  return new Map(hosts.map((host) => [host, lookupRoute(compiled, host)?.name]));
}

/** What one host saw through one of the proxy's addresses, and at each backend directly. */
export interface RouteProbe {
  readonly host: string;
  /** The proxy ClusterIP called. */
  readonly address: string;
  /** The TLS handshake through the proxy (SNI: the host); absent without an https port. */
  readonly through?: TlsProbeResult;
  /** The backend the table sends the host to; absent: the proxy's default target. */
  readonly expected?: string;
  /** What each backend of the table presented for the host, called directly; by backend name. */
  readonly direct: ReadonlyMap<string, TlsProbeResult>;
}

/** What {@linkcode routeFindings} decides from. */
export interface RouteInput {
  readonly table: RouteTable;
  readonly ref: RouteTableRef;
  /** In a pod, ClusterIPs must answer. */
  readonly inCluster: boolean;
  /** Each probe's own time. */
  readonly timeoutMs: number;
  readonly probes: readonly RouteProbe[];
}

function hostPort(address: string, port: number): string {
  return address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`;
}

function shortFingerprint(fingerprint: string): string {
  return `sha256 ${fingerprint.split(":").slice(0, 4).join(":")}…`;
}

function describeCertificate(result: Extract<TlsProbeResult, { kind: "handshake" }>): string {
  const certificate = result.certificate;
  const names = certificate === undefined || certificate.names.length === 0
    ? "no names"
    : certificate.names.join(", ");
  return `${names}; ${
    certificate?.fingerprint === undefined ? "no fingerprint" : shortFingerprint(certificate.fingerprint)
  }`;
}

function staleTodo(ref: RouteTableRef): string {
  return `the proxy does not send it where ${tableName(ref)} says: check that the proxy runs with ` +
    "--routes-file and mounts that ConfigMap at /etc/ouroboros/routes; if it does, its table is stale: it " +
    "keeps its last good table after an invalid file (its ERROR log, " +
    'ouroboros_proxy_route_table_loads_total{result="invalid"}) and reads the file again on a change or ' +
    "every minute (a ConfigMap volume takes up to a minute or two to change)";
}

function judgeDirectFailure(
  failure: ProbeFailure,
  backend: string,
  where: string,
  input: RouteInput,
): Judged {
  const version = input.table.backends.get(backend)?.proxyProtocol ?? "v1";
  const saw = `${backend} called directly: ${
    describeProbeFailure(failure, { address: where, timeoutMs: input.timeoutMs })
  }`;
  switch (failure.kind) {
    case "refused":
    case "unreachable":
    case "connect-timeout":
    case "error":
      return input.inCluster
        ? [
          failure.kind === "error" ? "could-not-check" : "problem",
          saw,
          `the table sends the host to ${where}: check that ${backend}'s Service has ready endpoints on that ` +
          "port (the controller plans again when the Service changes) and that no NetworkPolicy blocks the doctor",
        ]
        : [
          "could-not-check",
          `${saw} (ClusterIPs are usually not reachable from outside the cluster)`,
          RUN_IN_CLUSTER,
        ];
    case "closed":
    case "reset":
    case "handshake-failed":
    case "answer-timeout":
      return [
        "problem",
        `${saw}, after a PROXY ${version} header`,
        `the table gives ${backend} PROXY ${version}: make it what that ingress expects ` +
        "(--routes-proxy-protocol, or its Service's ouroboros.lexfrei.tech/proxy-protocol annotation), or turn " +
        "PROXY protocol on there",
      ];
    case "aborted":
      return ["could-not-check", saw, "raise --check-timeout, or probe fewer hosts (--host-limit)"];
  }
}

function judgeRouted(probe: RouteProbe, expected: string, input: RouteInput): Judged {
  const { through } = probe;
  if (through === undefined) {
    return [
      "could-not-check",
      `not compared with ${expected}: the proxy Service has no https port, and routes are compared by the ` +
      "certificate presented for the host",
      "add the https port to the proxy Service",
    ];
  }
  if (through.kind !== "handshake") {
    return [
      "could-not-check",
      `not compared with ${expected}: the TLS call through the proxy failed (above)`,
    ];
  }
  const backend = input.table.backends.get(expected);
  const where = backend === undefined ? expected : hostPort(backend.address, backend.httpsPort);
  const direct = probe.direct.get(expected) ?? { kind: "aborted" };
  if (direct.kind !== "handshake") return judgeDirectFailure(direct, expected, where, input);
  const seen = through.certificate?.fingerprint;
  const own = direct.certificate?.fingerprint;
  if (seen === undefined || own === undefined) {
    return ["could-not-check", `not compared with ${expected}: a certificate came without a fingerprint`];
  }
  const presenting = (fingerprint: string) =>
    [...probe.direct].filter(([name, result]) =>
      name !== expected && result.kind === "handshake" && result.certificate?.fingerprint === fingerprint
    ).map(([name]) => name).sort();
  if (seen === own) {
    const twins = presenting(own);
    return [
      "ok",
      `reaches its own backend: the certificate presented through the proxy is the one ${expected} presents ` +
      `at ${where}` +
      (twins.length === 0
        ? ""
        : `; ${twins.join(", ")} ${
          twins.length === 1 ? "presents" : "present"
        } the same one for this name, ` +
          "so the certificate cannot tell them apart"),
    ];
  }
  const instead = presenting(seen);
  const shown = `(${describeCertificate(through)})`;
  const ownShown = `${expected}'s at ${where} (${describeCertificate(direct)})`;
  return [
    "problem",
    instead.length > 0
      ? `reaches ${instead.join(" or ")} instead: through the proxy it was answered with the certificate ` +
        `${instead.join(" or ")} ${
          instead.length === 1 ? "presents" : "present"
        } for it ${shown}, not ${ownShown}`
      : `does not reach ${expected}: through the proxy it was answered with a certificate no backend of the ` +
        `table presents for it ${shown} (the proxy's default target?), not ${ownShown}`,
    staleTodo(input.ref),
  ];
}

/**
 * The findings of the routes: one per group of hosts routed alike that saw the same, after the
 * table's own finding (see {@linkcode routeTableOutcome}).
 */
export function routeFindings(input: RouteInput): Finding[] {
  const addresses = new Set(input.probes.map((probe) => probe.address));
  const groups = new Map<string, { labels: string[]; target: string; judged: Judged }>();
  for (const probe of input.probes) {
    const judged: Judged = probe.expected === undefined
      ? [
        "ok",
        `no route names it: the proxy sends it to its default target (--target-host), which the lines above ` +
        "checked",
      ]
      : judgeRouted(probe, probe.expected, input);
    const target = probe.expected ?? "the default target";
    const key = JSON.stringify([target, judged]);
    const label = addresses.size > 1 ? `${probe.host} via ${probe.address}` : probe.host;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { labels: [label], target, judged });
    else group.labels.push(label);
  }
  return [...groups.values()].map(({ labels, target, judged }) =>
    finding(
      `${labels.length === 1 ? "host" : `${labels.length} hosts`} ${labels.join(", ")} routed to ${target}`,
      judged,
    )
  );
}
