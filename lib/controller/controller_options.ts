/**
 * The `ouroboros controller` option table; names, variables and defaults match the original's.
 * Long because it is one table, a row per option (the original's flags and ours); split, the help
 * groups and the docs' flag tables would be read from several places.
 *
 * Pure: data.
 *
 * @module
 */

import {
  boolean,
  dnsLabel,
  domainName,
  duration,
  integer,
  ipAddress,
  keyValue,
  listenAddress,
  namespaceName,
  oneOf,
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
import { electionOptionRows } from "../election/election_options.ts";

/** The reconcile modes. */
export const CONTROLLER_MODES = ["coredns", "coredns-import", "etc-hosts", "external-dns"] as const;

/** The controller's option table. */
export const CONTROLLER_OPTIONS = {
  command: "controller",
  summary:
    "Watch Ingress (and, opt-in, Gateway API) objects and point in-cluster DNS for their public host " +
    "names at the ouroboros proxy: through the CoreDNS Corefile, a CoreDNS import snippet, a node's /etc/hosts, " +
    "or external-dns records.",
  options: {
    mode: {
      flag: "mode",
      kind: oneOf(CONTROLLER_MODES),
      default: "coredns",
      help: "Where hostnames are written.",
    },
    ...KUBECONFIG_OPTION,
    ...GATEWAY_API_OPTION,
    resync: {
      flag: "resync",
      kind: duration(),
      default: "10m",
      help: "How often the full desired state is re-applied even without changes.",
    },
    dryRun: {
      flag: "dry-run",
      kind: boolean(),
      default: "false",
      help:
        "Run as usual but write nothing (no ConfigMap, record or hosts-file write, no Event): every change " +
        "that would be made is logged at INFO as a unified diff of the target, a repeat of the same diff at " +
        "DEBUG. Needs only read access.",
    },
    once: {
      flag: "once",
      env: null,
      kind: boolean(),
      default: "false",
      help: "List, reconcile once, print the diff of what changed (with --dry-run: what would change) on " +
        "stdout and exit: 0 when the target already matched, 3 when it changed or would change, 1 on a " +
        "refusal, a failure or no answer within 2 minutes. Serves no health listener.",
    },
    corednsNamespace: {
      flag: "coredns-namespace",
      kind: namespaceName(),
      default: "kube-system",
      help: "Namespace of the CoreDNS ConfigMap.",
    },
    corednsConfigmap: {
      flag: "coredns-configmap",
      kind: text("NAME", "a ConfigMap name"),
      default: "coredns",
      help: "Name of the CoreDNS ConfigMap.",
    },
    corednsKey: {
      flag: "coredns-key",
      kind: text("KEY", "a ConfigMap data key"),
      default: "Corefile",
      help: "Data key holding the Corefile.",
    },
    corednsImportNamespace: {
      flag: "coredns-import-namespace",
      kind: namespaceName(),
      default: "kube-system",
      help: "Namespace of the import ConfigMap (coredns-import mode).",
    },
    corednsImportConfigmap: {
      flag: "coredns-import-configmap",
      kind: text("NAME", "a ConfigMap name"),
      default: "coredns-custom",
      help: "Name of the import ConfigMap (coredns-import mode).",
    },
    corednsImportKey: {
      flag: "coredns-import-key",
      kind: text("KEY", "a ConfigMap data key"),
      default: "ouroboros.override",
      help: "Data key in the import ConfigMap that holds the rewrite snippet.",
    },
    proxyFqdn: {
      flag: "proxy-fqdn",
      kind: text("FQDN", "a fully qualified name ending with a dot"),
      default: "",
      defaultText: "(empty: compose from --proxy-service-name)",
      help: "Explicit rewrite target, ending with a dot. Takes precedence over --proxy-service-name.",
    },
    proxyServiceName: {
      flag: "proxy-service-name",
      kind: serviceName(),
      default: "ouroboros-proxy",
      help: "Proxy Service name; with --proxy-service-namespace the target becomes " +
        "<name>.<namespace>.svc.<cluster-domain>.",
    },
    proxyServiceNamespace: {
      flag: "proxy-service-namespace",
      kind: namespaceName(),
      default: "",
      help: "Namespace of the proxy Service (the chart passes the release namespace).",
    },
    markerId: {
      flag: "marker-id",
      kind: dnsLabel("ID", "an id such as the release name"),
      default: "",
      defaultText: "(empty: the original's markers)",
      help:
        "coredns and etc-hosts modes, and the node-local-dns block of --node-local-dns=manage: gives this " +
        "installation's block its own marker lines, so several releases in one cluster keep separate blocks.",
    },
    etcHosts: {
      flag: "etc-hosts",
      kind: text("PATH", "a path to a hosts file"),
      default: "/host/etc/hosts",
      help: "Hosts file to manage (etc-hosts mode).",
    },
    proxyIp: {
      flag: "proxy-ip",
      kind: ipAddress(),
      default: "",
      help: "Proxy address written into the hosts file; required in etc-hosts mode.",
    },
    cleanup: {
      flag: "cleanup",
      env: null,
      kind: boolean(),
      default: "false",
      help:
        "Remove what this controller wrote, and exit (the chart's uninstall hooks run it). etc-hosts mode: " +
        "the ouroboros block of the --etc-hosts file, without contacting the API server. coredns and " +
        "coredns-import modes: the block (or key) in the ConfigMap the same flags name, through the same " +
        "editor and guards as a write, after --cleanup-quiesce. external-dns mode: this instance's records. " +
        "--cleanup-routes-only, --cleanup-stop-daemonset and --cleanup-await-daemonset pick another part.",
    },
    cleanupNodeLocalDnsOnly: {
      flag: "cleanup-node-local-dns-only",
      env: null,
      kind: boolean(),
      default: "false",
      help:
        "With --cleanup and --node-local-dns=manage: remove only the node-local-dns block and leave the " +
        "Corefile's block (or the import key) as it is.",
    },
    cleanupRoutesOnly: {
      flag: "cleanup-routes-only",
      env: null,
      kind: boolean(),
      default: "false",
      help:
        "With --cleanup and --routes, in any mode: delete only the route table ConfigMap (when it carries " +
        "this instance's labels) and leave the mode's output to its own cleanup.",
    },
    cleanupQuiesce: {
      flag: "cleanup-quiesce",
      env: null,
      kind: text("NAMESPACE/NAME", "a Deployment as namespace/name"),
      default: "",
      help:
        "With --cleanup: first scale this Deployment (the controller's) to 0 and wait until none of its " +
        "pods is left (--cleanup-quiesce-selector), so it cannot write again what the cleanup removes. " +
        "A Deployment that is not there (deleted already, or a DaemonSet's name) has its pods waited for " +
        "alone. Empty: no quiesce.",
    },
    cleanupQuiesceSelector: {
      flag: "cleanup-quiesce-selector",
      env: null,
      kind: text("SELECTOR", "a label selector such as a=b,c=d"),
      default: "",
      help: "The label selector of the --cleanup-quiesce Deployment's pods; required with it.",
    },
    cleanupStopDaemonset: {
      flag: "cleanup-stop-daemonset",
      env: null,
      kind: text("NAMESPACE/NAME", "a DaemonSet as namespace/name"),
      default: "",
      help: "etc-hosts mode, with --cleanup: instead of cleaning a hosts file, delete this DaemonSet (the " +
        "controller's) in the foreground and wait until it is gone, so none of its pods can write the " +
        "block again; not gone by --cleanup-quiesce-timeout is exit 1.",
    },
    cleanupAwaitDaemonset: {
      flag: "cleanup-await-daemonset",
      env: null,
      kind: text("NAMESPACE/NAME", "a DaemonSet as namespace/name"),
      default: "",
      help:
        "etc-hosts mode, with --cleanup: instead of cleaning a hosts file, wait until this DaemonSet (the " +
        "node cleanup) is ready on every node it targets, then delete it; not every node by " +
        "--cleanup-quiesce-timeout is exit 1, and the DaemonSet is kept to look at.",
    },
    cleanupQuiesceTimeout: {
      flag: "cleanup-quiesce-timeout",
      env: null,
      kind: duration(),
      default: "60s",
      help: "How long --cleanup-quiesce waits for the pods to go (then it warns and cleans up anyway), and " +
        "how long --cleanup-stop-daemonset and --cleanup-await-daemonset wait (then they fail).",
    },
    externalDnsNamespace: {
      flag: "external-dns-namespace",
      kind: namespaceName(),
      default: "",
      defaultText: "(the controller's namespace)",
      help: "Namespace for the emitted records (external-dns mode).",
    },
    externalDnsRecordTtl: {
      flag: "external-dns-record-ttl",
      kind: integer({ min: 1, max: 86400, placeholder: "SECONDS" }),
      default: "60",
      help: "TTL of each emitted record.",
    },
    externalDnsProxyIp: {
      flag: "external-dns-proxy-ip",
      kind: ipAddress(),
      default: "",
      help: "Record target override; empty means discover the ClusterIPs of --external-dns-proxy-service.",
    },
    externalDnsProxyService: {
      flag: "external-dns-proxy-service",
      kind: serviceName(),
      default: "ouroboros-proxy",
      help: "Service whose ClusterIPs become the record targets.",
    },
    externalDnsAnnotation: {
      flag: "external-dns-annotation",
      kind: keyValue(),
      default: "",
      defaultText: "(none)",
      help:
        "Annotation copied onto every emitted record; repeat the flag for more (at most 32). Reserved keys " +
        "are refused.",
      repeatable: true,
    },
    externalDnsLabel: {
      flag: "external-dns-label",
      kind: keyValue(),
      default: "",
      defaultText: "(none)",
      help:
        "Label copied onto every emitted record, for external-dns --label-filter; repeat the flag for more " +
        "(at most 32). Keys must be valid label keys; reserved keys are refused.",
      repeatable: true,
    },
    externalDnsOutput: {
      flag: "external-dns-output",
      kind: oneOf(["crd", "service"] as const),
      default: "crd",
      help: "crd emits DNSEndpoint objects; service emits annotated headless Services.",
    },
    externalDnsAnnotationPrefix: {
      flag: "external-dns-annotation-prefix",
      kind: text("PREFIX", "an annotation prefix ending with '/'"),
      default: "external-dns.alpha.kubernetes.io/",
      help: "Annotation prefix for output=service; must match the target external-dns instance.",
    },
    ...HOSTNAME_FILTER_OPTIONS,
    ...WILDCARDS_OPTION,
    clusterDomain: {
      flag: "cluster-domain",
      kind: domainName(),
      default: "",
      defaultText: "(auto-detect from /etc/resolv.conf, fallback cluster.local)",
      help: "Cluster DNS domain used to compose the rewrite target.",
    },
    listenHealth: {
      flag: "listen-health",
      kind: listenAddress({ allowEmpty: true }),
      default: ":8082",
      help: "Address serving /healthz, /readyz and /metrics. Empty disables it.",
    },
    instance: {
      flag: null,
      env: "OUROBOROS_INSTANCE",
      kind: text("NAME", "the Helm release name"),
      default: "",
      help:
        "Instance name stamped on the records this release owns (the chart sets the release name); required " +
        "in external-dns mode so two releases never prune each other's records.",
    },
    nodeLocalDns: {
      flag: "node-local-dns",
      kind: oneOf(["warn", "manage"]),
      default: "warn",
      help:
        "coredns and coredns-import modes: what to do about node-local-dns, which answers names outside " +
        "the cluster domain without CoreDNS's rewrite. warn: warn at start when it is installed. manage: also " +
        "keep a server block in its Corefile that forwards the hairpinned names to CoreDNS.",
    },
    nodeLocalDnsNamespace: {
      flag: null,
      env: "OUROBOROS_NODE_LOCAL_DNS_NAMESPACE",
      kind: namespaceName(),
      default: "kube-system",
      help: "Namespace of the node-local-dns ConfigMap (probed, or edited with --node-local-dns=manage).",
    },
    nodeLocalDnsConfigmap: {
      flag: null,
      env: "OUROBOROS_NODE_LOCAL_DNS_CONFIGMAP",
      kind: text("NAME", "a ConfigMap name"),
      default: "node-local-dns",
      help: "Name of the node-local-dns ConfigMap (probed, or edited with --node-local-dns=manage).",
    },
    nodeLocalDnsKey: {
      flag: null,
      env: "OUROBOROS_NODE_LOCAL_DNS_KEY",
      kind: text("KEY", "a ConfigMap data key"),
      default: "Corefile",
      help: "Data key of the node-local-dns ConfigMap holding its Corefile (--node-local-dns=manage).",
    },
    routes: {
      flag: "routes",
      kind: boolean(),
      default: "false",
      help:
        "Also publish a route table for the proxy's --routes-file: each hairpinned hostname goes to the " +
        "LoadBalancer Service holding the address its Ingress or Gateway reports, so an ingress controller " +
        "and a Gateway (or several Gateways) each get their own hostnames. Watches Services (read-only).",
    },
    routesConfigmap: {
      flag: "routes-configmap",
      kind: text("NAME", "a ConfigMap name"),
      default: "",
      defaultText: "(<OUROBOROS_INSTANCE>-routes, or ouroboros-routes)",
      help:
        "ConfigMap the route table is written to (key routes.json); the controller creates it and owns it.",
    },
    routesNamespace: {
      flag: "routes-namespace",
      kind: namespaceName(),
      default: "",
      defaultText: "(the controller's own namespace)",
      help: "Namespace of the route table ConfigMap (the proxy's, which mounts it).",
    },
    routesProxyProtocol: {
      flag: "routes-proxy-protocol",
      kind: oneOf(["v1", "v2"]),
      default: "v1",
      help: "PROXY protocol version of every backend in the table, unless its Service's annotation " +
        "ouroboros.lexfrei.tech/proxy-protocol says v1 or v2. Match the proxy's --proxy-protocol.",
    },
    ...electionOptionRows({
      elect: "false",
      electHelp:
        "Run several replicas with one writer: a coordination.k8s.io Lease picks the leader, the others keep " +
        "their caches warm and take over when it stops renewing. Off: this replica always writes. Not used in " +
        "etc-hosts mode, where every node writes its own file.",
      id: "",
      idDefaultText: "(<OUROBOROS_INSTANCE>-controller, or ouroboros-controller)",
      idHelp:
        "Name of the leader-election Lease; replicas with the same name elect one leader (the chart passes " +
        "<release>-controller, so two releases never share a Lease).",
    }),
    ...LOGGING_OPTIONS,
  },
  groups: [
    {
      title: "Mode and the proxy",
      options: [
        "mode",
        "proxyFqdn",
        "proxyServiceName",
        "proxyServiceNamespace",
        "clusterDomain",
        "instance",
        "markerId",
      ],
    },
    {
      title: "Which hostnames",
      options: [
        "ingressHosts",
        "ingressClass",
        "gatewayApi",
        "gatewayRouteKinds",
        "gatewayClass",
        "wildcards",
        "resync",
      ],
    },
    {
      title: "coredns and coredns-import modes",
      options: [
        "corednsNamespace",
        "corednsConfigmap",
        "corednsKey",
        "corednsImportNamespace",
        "corednsImportConfigmap",
        "corednsImportKey",
        "nodeLocalDns",
        "nodeLocalDnsNamespace",
        "nodeLocalDnsConfigmap",
        "nodeLocalDnsKey",
      ],
    },
    { title: "etc-hosts mode", options: ["etcHosts", "proxyIp"] },
    {
      title: "Cleanup on uninstall (--cleanup)",
      options: [
        "cleanup",
        "cleanupNodeLocalDnsOnly",
        "cleanupRoutesOnly",
        "cleanupQuiesce",
        "cleanupQuiesceSelector",
        "cleanupStopDaemonset",
        "cleanupAwaitDaemonset",
        "cleanupQuiesceTimeout",
      ],
    },
    {
      title: "external-dns mode",
      options: [
        "externalDnsNamespace",
        "externalDnsRecordTtl",
        "externalDnsProxyIp",
        "externalDnsProxyService",
        "externalDnsAnnotation",
        "externalDnsLabel",
        "externalDnsOutput",
        "externalDnsAnnotationPrefix",
      ],
    },
    {
      title: "Routing to several ingress controllers (--routes)",
      options: ["routes", "routesConfigmap", "routesNamespace", "routesProxyProtocol"],
    },
    {
      title: "Running",
      options: [
        "kubeconfig",
        "dryRun",
        "once",
        "listenHealth",
        "leaderElect",
        "leaderElectionNamespace",
        "leaderElectionId",
        "leaderElectionLeaseDuration",
        "leaderElectionRenewDeadline",
        "leaderElectionRetryPeriod",
        "logLevel",
        "logFormat",
      ],
    },
  ],
} as const satisfies OptionTable<Record<string, OptionSpec<unknown>>>;
