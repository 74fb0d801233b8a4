/**
 * The `ouroboros dns` option table. Flags shared in meaning with the controller keep its names and
 * defaults, so one values file drives both.
 *
 * Pure: data.
 *
 * @module
 */

import {
  boolean,
  domainName,
  duration,
  integer,
  listenAddress,
  namespaceName,
  serviceName,
  text,
} from "../cli/kinds.ts";
import type { OptionSpec, OptionTable } from "../cli/options.ts";
import { LOGGING_OPTIONS } from "../daemon/logging_options.ts";
import {
  GATEWAY_API_OPTION,
  HOSTNAME_FILTER_OPTIONS,
  WILDCARDS_OPTION,
} from "../hostnames/source_options.ts";
import { KUBECONFIG_OPTION } from "../kube/kubeconfig_option.ts";

/** The dns option table. */
export const DNS_OPTIONS = {
  command: "dns",
  summary:
    "Serve DNS to the cluster's own workloads: hairpinned hostnames resolve to the proxy Service for the pods " +
    "chosen by --client-selector, par Records (dns.par.dev/v1alpha1) answer per workload, everything else is " +
    "forwarded to the cluster DNS. No cluster-wide DNS change.",
  options: {
    listenDns: {
      flag: "listen-dns",
      kind: listenAddress(),
      default: ":5353",
      help:
        "Address for DNS over UDP and TCP (the same port for both). The chart's Service maps port 53 to it, " +
        "so the server runs without root.",
    },
    listenHealth: {
      flag: "listen-health",
      kind: listenAddress({ allowEmpty: true }),
      default: ":8084",
      help: "Address serving /healthz, /readyz and /metrics. Empty disables it.",
    },
    upstream: {
      flag: "upstream",
      kind: text("ADDR[,ADDR]", "addresses such as 10.96.0.10 or [fd00::a]:53, comma-separated"),
      default: "",
      defaultText: "(the nameservers of /etc/resolv.conf: the cluster DNS)",
      help: "Where every question not answered here goes, tried in order. Port 53 unless given.",
    },
    ttl: {
      flag: "ttl",
      kind: duration(),
      default: "30s",
      help: "Time to live of the answers given here (whole seconds).",
    },
    maxUdpSize: {
      flag: "max-udp-size",
      kind: integer({ min: 512, max: 4096 }),
      default: "1232",
      help:
        "Largest UDP response sent, advertised in EDNS0; a client's smaller size is honoured, and a query " +
        "without EDNS0 never gets more than 512 bytes. Larger answers are truncated and come whole over TCP.",
    },
    upstreamTimeout: {
      flag: "upstream-timeout",
      kind: duration(),
      default: "2s",
      help: "How long one try at an upstream may take before the next try: the next upstream, or with one " +
        "upstream a second try at it. Every upstream is tried once and at least two tries are made, so a " +
        "client gets SERVFAIL after at most max(2, upstreams) times this.",
    },
    cacheSize: {
      flag: "cache-size",
      kind: integer({ min: 0, max: 1_000_000 }),
      default: "10000",
      help:
        "Forwarded answers kept for their TTL (at most 1h; NXDOMAIN and NODATA for their SOA's negative TTL), " +
        "so a repeated question needs no upstream: at most this many, and 16 MiB. 0 turns the cache off.",
    },
    tcpIdleTimeout: {
      flag: "tcp-idle-timeout",
      kind: duration(),
      default: "10s",
      help: "Close a client's TCP connection after this long without a query.",
    },
    drainDelay: {
      flag: "drain-delay",
      kind: duration({ allowZero: true }),
      default: "5s",
      help:
        "On SIGTERM, how long to keep answering (with /readyz failing) while the pod is removed from the " +
        "Service's endpoints, so clients' retries find another replica.",
    },
    clientSelector: {
      flag: "client-selector",
      kind: text("SELECTOR", "a label selector such as app=cert-manager or app in (a,b)"),
      default: "",
      defaultText: "(empty: every pod)",
      help: "Which pods get answers from here (hairpin and Records); queries from any other source are " +
        "forwarded unchanged.",
    },
    hairpin: {
      flag: "hairpin",
      kind: boolean(),
      default: "true",
      help:
        "Answer the hairpinned hostnames (the controller's sources and filters) with the proxy Service's " +
        "ClusterIPs. false: only par Records are answered here.",
    },
    ...KUBECONFIG_OPTION,
    ...GATEWAY_API_OPTION,
    ...HOSTNAME_FILTER_OPTIONS,
    ...WILDCARDS_OPTION,
    proxyServiceName: {
      flag: "proxy-service-name",
      kind: serviceName(),
      default: "ouroboros-proxy",
      help: "The hairpin proxy's Service: hairpinned hostnames resolve to its ClusterIPs (A for IPv4, AAAA " +
        "for IPv6), followed as they change.",
    },
    proxyServiceNamespace: {
      flag: "proxy-service-namespace",
      kind: namespaceName(),
      default: "",
      defaultText: "(empty: this pod's namespace)",
      help: "Namespace of the proxy Service.",
    },
    dnsServiceName: {
      flag: "dns-service-name",
      kind: serviceName(),
      default: "",
      help:
        "This server's own Service, whose ClusterIP patched workloads and the par proxy config point at. " +
        "Required with --manage-workloads or --manage-proxy-config.",
    },
    dnsServiceNamespace: {
      flag: "dns-service-namespace",
      kind: namespaceName(),
      default: "",
      defaultText: "(empty: this pod's namespace)",
      help: "Namespace of this server's Service.",
    },
    parNamespace: {
      flag: "par-namespace",
      kind: namespaceName(),
      default: "",
      defaultText: "(empty: this pod's namespace)",
      help: 'Where par\'s forward proxy lives: its Service and pods labelled par.dev/proxy="true", its ' +
        'ConfigMap labelled par.dev/proxy-config="true".',
    },
    manageWorkloads: {
      flag: "manage-workloads",
      kind: boolean(),
      default: "false",
      help:
        "Point Deployments matched by a Records entry at this server (dnsPolicy None, keeping the search " +
        "list and ndots the kubelet would give), and restore their own DNS settings when they stop matching.",
    },
    manageProxyConfig: {
      flag: "manage-proxy-config",
      kind: boolean(),
      default: "false",
      help:
        "Render {{ .dnsResolver }} in par's proxy ConfigMap with this server's address, and restart the " +
        "proxy Deployment when the rendered text changes.",
    },
    restoreWorkloads: {
      flag: "restore-workloads",
      kind: boolean(),
      default: "false",
      help: "Give every Deployment this server patched its own DNS settings back, then exit (the chart's " +
        "uninstall hook runs this).",
    },
    clusterDomain: {
      flag: "cluster-domain",
      kind: domainName(),
      default: "",
      defaultText: "(auto-detect from /etc/resolv.conf, fallback cluster.local)",
      help: "Cluster DNS domain, for the search list of patched workloads.",
    },
    ...LOGGING_OPTIONS,
  },
} as const satisfies OptionTable<Record<string, OptionSpec<unknown>>>;
