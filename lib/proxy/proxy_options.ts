/**
 * The `ouroboros proxy` option table: every flag, its environment variable, default, accepted
 * values and help. Names and defaults match the original's so existing manifests keep working.
 *
 * Pure: data.
 *
 * @module
 */

import {
  domainName,
  duration,
  filePath,
  hostName,
  integer,
  listenAddress,
  namespaceName,
  oneOf,
  port,
  serviceName,
} from "../cli/kinds.ts";
import type { OptionSpec, OptionTable } from "../cli/options.ts";
import { PROXY_PROTOCOL_VERSIONS } from "./proxy_protocol.ts";
import { LOGGING_OPTIONS } from "../daemon/logging_options.ts";

/** The proxy's option table. */
export const PROXY_OPTIONS = {
  command: "proxy",
  summary:
    "Run the TCP relay that puts a PROXY-protocol header in front of every connection and forwards it to " +
    "the ingress controller, so hairpinned in-cluster traffic is accepted like traffic from the load balancer.",
  options: {
    listenHttp: {
      flag: "listen-http",
      kind: listenAddress({ allowEmpty: true }),
      default: ":8080",
      help: "Address for plain-HTTP client connections, forwarded to --target-http-port. Empty disables it.",
    },
    listenHttps: {
      flag: "listen-https",
      kind: listenAddress({ allowEmpty: true }),
      default: ":8443",
      help:
        "Address for TLS client connections (relayed as opaque bytes), forwarded to --target-https-port. " +
        "Empty disables it.",
    },
    listenHealth: {
      flag: "listen-health",
      kind: listenAddress({ allowEmpty: true }),
      default: ":8081",
      help: "Address serving /healthz, /readyz and /metrics. Empty disables it.",
    },
    targetHost: {
      flag: "target-host",
      kind: hostName(),
      default: "",
      defaultText: "(empty: compose from --target-service-name)",
      help: "Backend host (the ingress controller). Takes precedence over --target-service-name.",
    },
    targetServiceName: {
      flag: "target-service-name",
      kind: serviceName(),
      default: "",
      help: "Backend Service name; with --target-service-namespace the host becomes " +
        "<name>.<namespace>.svc.<cluster-domain>.",
    },
    targetServiceNamespace: {
      flag: "target-service-namespace",
      kind: namespaceName(),
      default: "",
      help: "Namespace of the backend Service.",
    },
    clusterDomain: {
      flag: "cluster-domain",
      kind: domainName(),
      default: "",
      defaultText: "(auto-detect from /etc/resolv.conf, fallback cluster.local)",
      help: "Cluster DNS domain used to compose the backend host.",
    },
    targetHttpPort: {
      flag: "target-http-port",
      kind: port(),
      default: "80",
      help: "Backend port for connections from --listen-http; /readyz dials this port.",
    },
    targetHttpsPort: {
      flag: "target-https-port",
      kind: port(),
      default: "443",
      help: "Backend port for connections from --listen-https.",
    },
    dialTimeout: {
      flag: "dial-timeout",
      kind: duration(),
      default: "5s",
      help: "How long to wait for the backend to accept a connection (and to take the PROXY header).",
    },
    readyTimeout: {
      flag: "ready-timeout",
      kind: duration(),
      default: "2s",
      help: "How long /readyz waits for the backend before answering 503.",
    },
    shutdownGrace: {
      flag: "shutdown-grace",
      kind: duration(),
      default: "30s",
      help: "On SIGTERM, the longest time from the signal to exit: connections still open then are closed. " +
        "Keep it below the pod's terminationGracePeriodSeconds.",
    },
    drainDelay: {
      flag: "drain-delay",
      kind: duration({ allowZero: true }),
      default: "5s",
      help:
        "On SIGTERM, how long to keep accepting new connections (with /readyz failing) while the pod is " +
        "removed from Service endpoints. Counts towards --shutdown-grace.",
    },
    idleTimeout: {
      flag: "idle-timeout",
      kind: duration({ allowZero: true }),
      default: "1h",
      help: "Close a connection when no byte has moved in either direction for this long (a client gone " +
        "without a FIN, a half-closed connection never finished, a backend that stopped reading). 0 disables it.",
    },
    proxyProtocol: {
      flag: "proxy-protocol",
      kind: oneOf(PROXY_PROTOCOL_VERSIONS),
      default: "v1",
      help: "PROXY protocol version sent to the backend: v1 (text) or v2 (binary). Must match what the " +
        "ingress controller expects.",
    },
    routesFile: {
      flag: "routes-file",
      kind: filePath("the controller's routes.json"),
      default: "",
      defaultText: "(empty: every connection goes to --target-host)",
      help: "Route table the controller writes with --routes (the chart mounts it at " +
        "/etc/ouroboros/routes/routes.json): each connection goes to the backend of the hostname its TLS SNI or " +
        "HTTP Host names, else to --target-host. Re-read when it changes; an invalid table keeps the last good one.",
    },
    routeReadTimeout: {
      flag: "route-read-timeout",
      kind: duration(),
      default: "5s",
      help:
        "With --routes-file, how long a new connection may take to send its TLS ClientHello or HTTP request " +
        "head (the hostname) before it is closed.",
    },
    workers: {
      flag: "workers",
      kind: integer({ min: 0, max: 1024 }),
      default: "0",
      defaultText: "0 (1 up to 2 CPUs available, then one per 2 CPUs; available: the CPUs the process may " +
        "run on, capped by the cgroup CPU quota rounded down)",
      help: "Threads accepting and relaying connections, each on the same ports (the kernel spreads new " +
        "connections over them). 1 serves on the main thread.",
    },
    ...LOGGING_OPTIONS,
  },
} as const satisfies OptionTable<Record<string, OptionSpec<unknown>>>;
