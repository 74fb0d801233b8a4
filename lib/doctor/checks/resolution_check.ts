/**
 * The resolution check: does a pod get the proxy's addresses for the hairpinned hosts? Asks A and
 * AAAA of the pod's resolv.conf nameservers (in order, as libc) and of the cluster DNS Service.
 * - Hosts are FQDNs, asked absolute: `search` and `ndots` would change only the order of tries.
 * - A server that timed out is skipped for later hosts, so an unreachable one costs one timeout.
 *
 * Effects: one GET through the injected client, DNS queries through the injected lookup.
 *
 * @module
 */

import type { KubeClient } from "../../kube/client.ts";
import { isForbidden, isNotFound } from "../../kube/errors.ts";
import { SERVICE, type Service } from "../../resources/service.ts";
import { errorMessage } from "../../util/error_message.ts";
import { formatHostPort } from "../../util/listen_address.ts";
import { resolvConfNameservers } from "../../util/resolv_conf.ts";
import type { DoctorCheck, Finding } from "../doctor_check.ts";
import {
  type AddressLookup,
  type AddressLookupResult,
  type DnsServer,
  type HostResolution,
  mergeLookups,
  RESOLUTION_CHECK_ID,
  resolutionFindings,
  type ResolverView,
} from "./resolution_findings.ts";

/** What the check runs against. */
export interface ResolutionContext {
  readonly api: Pick<KubeClient, "get">;
  /** `lib/dns`'s `lookupAddresses` in production. */
  readonly lookup: AddressLookup;
  /** Already sampled. */
  readonly hosts: readonly string[];
  /** Present when `hosts` is a sample. */
  readonly sampledFrom?: number;
  /** The proxy's addresses, which every answer should be exactly. */
  readonly expected: readonly string[];
  /** Where `expected` came from, for the report. */
  readonly expectedFrom: string;
  /** `undefined` outside a pod (a workstation's resolver is not a pod's). */
  readonly resolvConf: string | undefined;
  /** @default 53 */
  readonly resolverPort?: number;
  readonly clusterDnsService: { readonly namespace: string; readonly name: string };
  readonly inCluster: boolean;
  /** The Helm release, for "`helm test <release>`". */
  readonly release?: string;
}

/** Options of {@linkcode resolutionCheck}. */
export interface ResolutionCheckOptions {
  /** Per DNS attempt (two over UDP, one over TCP when truncated). @default 2_000 */
  readonly dnsTimeoutMs?: number;
  /** For reading the Service. @default 10_000 */
  readonly apiTimeoutMs?: number;
  /** Hosts resolved at once. @default 4 */
  readonly concurrency?: number;
}

type ClusterDns = { readonly server: DnsServer } | { readonly why: string; readonly finding?: Finding };

function dnsPort(service: Service): number {
  const udp = service.spec.ports.filter((port) => port.protocol === "UDP");
  return (udp.find((port) => port.name === "dns") ?? udp[0])?.port ?? 53;
}

async function clusterDns(
  context: ResolutionContext,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<ClusterDns> {
  const { namespace, name } = context.clusterDnsService;
  const subject = `Service ${namespace}/${name}`;
  const unknown = (saw: string, todo?: string): ClusterDns => ({
    why: saw,
    finding: {
      check: RESOLUTION_CHECK_ID,
      subject,
      verdict: "could-not-check",
      saw: `the cluster DNS was not asked: ${saw}`,
      ...(todo === undefined ? {} : { todo }),
    },
  });
  let service: Service;
  try {
    service = await context.api.get(SERVICE, { namespace, name }, { signal, timeoutMs });
  } catch (error) {
    if (signal.aborted) return { why: "out of time (--check-timeout)" };
    if (isForbidden(error)) {
      return unknown(
        `RBAC does not allow get on services in namespace ${namespace} (403)`,
        `run doctor as a user allowed to get services in ${namespace}`,
      );
    }
    if (isNotFound(error)) {
      return unknown(
        `${subject} does not exist`,
        "set --cluster-dns-service to the cluster DNS Service (<namespace>/<name>)",
      );
    }
    return unknown(`could not get ${subject}: ${errorMessage(error)}`);
  }
  const host = service.spec.clusterIPs[0] ?? service.spec.clusterIP;
  if (host === undefined || host === "None") return unknown(`${subject} has no ClusterIP`);
  return { server: { host, port: dnsPort(service) } };
}

/**
 * The name asked for `host`: a wildcard (`*.example.com`) stands for any name under it, so a
 * made-up one is asked (a literal `*` label would only find a wildcard record).
 */
export function queryName(host: string): string {
  return host.startsWith("*.") ? `ouroboros-doctor-probe.${host.slice(2)}` : host;
}

/** Asks servers in turn, remembering those that timed out so later hosts skip them. */
class Asker {
  readonly #dead = new Map<string, ResolverView>();
  readonly #lookup: AddressLookup;
  readonly #signal: AbortSignal;
  readonly #timeoutMs: number;

  constructor(lookup: AddressLookup, signal: AbortSignal, timeoutMs: number) {
    this.#lookup = lookup;
    this.#signal = signal;
    this.#timeoutMs = timeoutMs;
  }

  async #one(server: DnsServer, host: string): Promise<ResolverView> {
    const key = formatHostPort(server.host, server.port);
    const dead = this.#dead.get(key);
    if (dead !== undefined) return dead;
    const options = { timeoutMs: this.#timeoutMs, signal: this.#signal };
    const name = queryName(host);
    let results: AddressLookupResult[];
    try {
      results = await Promise.all([
        this.#lookup(server, name, { type: "A", ...options }),
        this.#lookup(server, name, { type: "AAAA", ...options }),
      ]);
    } catch (error) {
      return { kind: "no-answer", server, timedOut: false, reason: errorMessage(error) };
    }
    if (this.#signal.aborted) return { kind: "not-asked", why: "out of time (--check-timeout)" };
    const view = mergeLookups(server, results);
    if (view.kind === "no-answer" && view.timedOut) {
      this.#dead.set(key, view);
    }
    return view;
  }

  /** The first server of `servers` that answers, else the first one's failure. */
  async ask(servers: readonly DnsServer[] | string, host: string): Promise<ResolverView> {
    if (typeof servers === "string") return { kind: "not-asked", why: servers };
    if (this.#signal.aborted) return { kind: "not-asked", why: "out of time (--check-timeout)" };
    let first: ResolverView | undefined;
    for (const server of servers) {
      const view = await this.#one(server, host);
      if (view.kind !== "no-answer") return view;
      first ??= view;
    }
    return first ?? { kind: "not-asked", why: "no server to ask" };
  }
}

/** The pod's resolvers from resolv.conf (at most three, as libc reads), or why there are none. */
function podResolvers(context: ResolutionContext): readonly DnsServer[] | string {
  if (context.resolvConf === undefined) return "not in a pod";
  const port = context.resolverPort ?? 53;
  const servers = resolvConfNameservers(context.resolvConf).slice(0, 3).map((host) => ({ host, port }));
  return servers.length > 0 ? servers : "/etc/resolv.conf names no nameserver";
}

/** The resolution check. */
export function resolutionCheck(options: ResolutionCheckOptions = {}): DoctorCheck<ResolutionContext> {
  const dnsTimeoutMs = options.dnsTimeoutMs ?? 2_000;
  const apiTimeoutMs = options.apiTimeoutMs ?? 10_000;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  return {
    id: RESOLUTION_CHECK_ID,
    title: "Resolution (pod resolver and cluster DNS)",
    async run(context, signal) {
      const finding = (verdict: Finding["verdict"], saw: string): Finding[] => [
        { check: RESOLUTION_CHECK_ID, subject: "hairpinned hosts", verdict, saw },
      ];
      if (context.hosts.length === 0) return finding("ok", "there are no hairpinned hosts to resolve");
      if (context.expected.length === 0) {
        return finding("could-not-check", `the proxy's addresses are not known (${context.expectedFrom})`);
      }
      const dns = await clusterDns(context, signal, apiTimeoutMs);
      const clusterServers = "server" in dns ? [dns.server] : dns.why;
      const pod = podResolvers(context);
      const asker = new Asker(context.lookup, signal, dnsTimeoutMs);
      const resolve = async (host: string): Promise<HostResolution> => {
        const [podView, clusterView] = await Promise.all([
          asker.ask(pod, host),
          asker.ask(clusterServers, host),
        ]);
        return {
          host,
          pod: podView,
          cluster: clusterView,
          expected: context.expected,
          expectedFrom: context.expectedFrom,
          inCluster: context.inCluster,
          ...(context.release === undefined ? {} : { release: context.release }),
        };
      };
      // The first host alone: a server that times out on it is skipped for the rest.
      const [first, ...rest] = context.hosts;
      const resolutions: HostResolution[] = [await resolve(first!)];
      let next = 0;
      const results: HostResolution[] = new Array(rest.length);
      const worker = async () => {
        while (next < rest.length) {
          const index = next++;
          results[index] = await resolve(rest[index]!);
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, rest.length) }, worker));
      resolutions.push(...results);
      const findings = resolutionFindings(resolutions, {
        ...(context.sampledFrom === undefined ? {} : { sampledFrom: context.sampledFrom }),
      });
      return "finding" in dns && dns.finding !== undefined ? [dns.finding, ...findings] : findings;
    },
  };
}
