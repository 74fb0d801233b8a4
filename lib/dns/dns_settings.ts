/**
 * Turns `ouroboros dns`'s parsed options into validated settings, every problem at once and
 * before any connection; upstreams and the cluster domain default from `/etc/resolv.conf`.
 *
 * Pure: the file's text and the pod's namespace are passed in.
 *
 * @module
 */

import { ConfigError, type OptionValues } from "../cli/options.ts";
import { parseUpstreams, type Upstream, UPSTREAM_ACCEPTED } from "./upstream_list.ts";
import { labelSelectorProblem } from "../kube/label_selector.ts";
import { detectClusterDomain, RESOLV_CONF, resolvConfNameservers } from "../util/resolv_conf.ts";
import type { DNS_OPTIONS } from "./dns_options.ts";

/** dns's parsed option values. */
export type DnsValues = OptionValues<typeof DNS_OPTIONS.options>;

/** Everything `ouroboros dns` needs, validated. */
export interface DnsSettings {
  readonly values: DnsValues;
  readonly upstreams: readonly Upstream[];
  /** `--upstream` or `/etc/resolv.conf`. */
  readonly upstreamSource: "flag" | "resolv.conf";
  readonly ttlSeconds: number;
  readonly clusterDomain: string;
  /** Namespaces default to the pod's own. */
  readonly proxyService: { readonly namespace: string; readonly name: string };
  readonly parNamespace: string;
  /** `undefined` when `--dns-service-name` is empty. */
  readonly dnsService: { readonly namespace: string; readonly name: string } | undefined;
}

/** Inputs of {@linkcode dnsSettings}. */
export interface DnsSettingsInput {
  readonly values: DnsValues;
  /** `/etc/resolv.conf`'s text; `undefined` when it could not be read. */
  readonly resolvConf: string | undefined;
  /** `POD_NAMESPACE`, else the service account's namespace file. */
  readonly podNamespace: string | undefined;
}

/** Validates dns's options. */
export function dnsSettings(input: DnsSettingsInput): DnsSettings | ConfigError {
  const { values } = input;
  const problems: string[] = [];
  let upstreams: readonly Upstream[] = [];
  const upstreamSource = values.upstream.trim() === "" ? "resolv.conf" : "flag";
  if (upstreamSource === "flag") {
    const parsed = parseUpstreams(values.upstream);
    if (parsed.ok) upstreams = parsed.upstreams;
    else {problems.push(...parsed.problems.map((problem) =>
        `--upstream: ${problem}; accepted: ${UPSTREAM_ACCEPTED}`
      ));}
  } else if (!values.restoreWorkloads) {
    const found = parseUpstreams(resolvConfNameservers(input.resolvConf).join(","));
    if (found.ok && found.upstreams.length > 0) upstreams = found.upstreams;
    else {
      problems.push(
        `--upstream is not set and ${RESOLV_CONF} has no usable nameserver line` +
          (input.resolvConf === undefined ? " (it could not be read)" : "") +
          `: give --upstream (${UPSTREAM_ACCEPTED})`,
      );
    }
  }
  if (values.ttl % 1000 !== 0) {
    problems.push(`--ttl: ${values.ttl} ms is not whole seconds; accepted: 1s, 30s, 5m`);
  }
  const selectorProblem = labelSelectorProblem(values.clientSelector);
  if (selectorProblem !== undefined) {
    problems.push(
      `--client-selector: ${selectorProblem}; accepted: a label selector such as app=cert-manager`,
    );
  }
  const namespace = input.podNamespace ?? "";
  const needsNamespace = (flag: string, value: string): string => {
    if (value === "" && namespace === "") {
      problems.push(`${flag} is empty and this pod's namespace is unknown: set it, or POD_NAMESPACE`);
    }
    return value || namespace;
  };
  const proxyService = {
    namespace: values.hairpin
      ? needsNamespace("--proxy-service-namespace", values.proxyServiceNamespace)
      : "",
    name: values.proxyServiceName,
  };
  if (values.hairpin && values.proxyServiceName === "") {
    problems.push(
      "--proxy-service-name is empty: name the proxy Service, or turn hairpin answers off with --hairpin=false",
    );
  }
  const optIns = [
    values.manageWorkloads && "--manage-workloads",
    values.manageProxyConfig && "--manage-proxy-config",
  ]
    .filter((flag): flag is string => typeof flag === "string");
  const parNamespace = values.manageProxyConfig || values.parNamespace !== ""
    ? needsNamespace("--par-namespace", values.parNamespace)
    : namespace;
  let dnsService: DnsSettings["dnsService"];
  if (values.dnsServiceName !== "") {
    dnsService = {
      namespace: needsNamespace("--dns-service-namespace", values.dnsServiceNamespace),
      name: values.dnsServiceName,
    };
  } else if (optIns.length > 0) {
    problems.push(
      `${optIns.join(" and ")} ${
        optIns.length > 1 ? "need" : "needs"
      } --dns-service-name: this server's Service, whose address is written`,
    );
  }
  if (problems.length > 0) return new ConfigError("dns", problems);
  return {
    values,
    upstreams,
    upstreamSource,
    ttlSeconds: values.ttl / 1000,
    clusterDomain: values.clusterDomain || detectClusterDomain(input.resolvConf),
    proxyService,
    parNamespace,
    dnsService,
  };
}
