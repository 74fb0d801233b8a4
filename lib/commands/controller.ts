/**
 * `ouroboros controller`: parse and validate the configuration, connect to the API server, run
 * the start-up probes, give up unneeded permissions, then watch and reconcile until SIGTERM or
 * SIGINT (exit 0).
 *
 * Every mode runs the same sources, filters and resync; what differs is the sink and what else
 * is watched:
 *
 * | mode             | the sink writes                    | also watched              | start-up probes        |
 * |------------------|------------------------------------|---------------------------|------------------------|
 * | `coredns`        | the Corefile block                 | that ConfigMap (drift)    | node-local-dns, reload |
 * | `coredns-import` | one key of the import ConfigMap    | that ConfigMap (drift)    | node-local-dns, reload |
 * | `etc-hosts`      | the block in `--etc-hosts`         | nothing                   | none                   |
 * | `external-dns`   | DNSEndpoints or annotated Services | the proxy Service         | orphaned records       |
 *
 * In external-dns mode the proxy Service (`--external-dns-proxy-service`) is looked up in
 * `--proxy-service-namespace` when set, else the pod's namespace (the service account's
 * namespace file), else the records' namespace; with `--external-dns-proxy-ip` it is not
 * watched at all.
 *
 * `--mode=etc-hosts --cleanup` removes our block from the hosts file and exits without reading
 * any cluster configuration or contacting the API server (uninstall runs it on every node).
 *
 * @module
 */

import { renderHelp } from "../cli/help.ts";
import { ConfigError, type OptionValues, parseOptions } from "../cli/options.ts";
import { loadKubeAccess } from "../controller/kube_access.ts";
import { narrowPermissions } from "../controller/permissions.ts";
import { ControllerRuntime } from "../controller/runtime.ts";
import type { ClusterConfig } from "../kube/config.ts";
import { KubeClient } from "../kube/client.ts";
import { EventRecorder } from "../kube/event_recorder.ts";
import { corednsImportMode, corednsMode, type CorednsModeSettings } from "../sinks/coredns/coredns_mode.ts";
import { cleanupHostsFile } from "../sinks/etc_hosts/cleanup_hosts_file.ts";
import { etcHostsMode } from "../sinks/etc_hosts/etc_hosts_mode.ts";
import { hostsPathProblem } from "../sinks/etc_hosts/hosts_path.ts";
import { externalDnsMode } from "../sinks/external_dns/external_dns_mode.ts";
import { blockMarkers } from "../sinks/markers.ts";
import type { Mode, ModeContext, WatchObject } from "../sinks/sink.ts";
import { formatDuration } from "../util/duration.ts";
import { configureLogging, logger } from "../util/logging.ts";
import { RESOLV_CONF } from "../util/resolv_conf.ts";
import { VERSION } from "../util/version.ts";
import { CONTROLLER_OPTIONS } from "./controller_options.ts";
import { clusterDomainMismatch, type ControllerSettings, controllerSettings } from "./controller_settings.ts";
import { declaredEnv, installShutdownSignals, printStdout, readTextOrUndefined } from "../daemon/process.ts";

/** The service account's namespace file, mounted into every pod. */
export const POD_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

type ControllerValues = OptionValues<typeof CONTROLLER_OPTIONS.options>;

/** Each mode's builder, given its own settings: the only place the modes are named. */
const MODES: Readonly<
  Record<ControllerValues["mode"], (settings: ControllerSettings, context: ModeContext) => Mode>
> = {
  "coredns": (settings, context) => corednsMode(corednsSettings(settings), context),
  "coredns-import": (settings, context) => corednsImportMode(corednsSettings(settings), context),
  "etc-hosts": ({ values }, context) =>
    etcHostsMode(
      { path: values.etcHosts, proxyIp: values.proxyIp, markers: blockMarkers(values.markerId) },
      context,
    ),
  "external-dns": ({ values, externalDns }, context) =>
    externalDnsMode({ ...externalDns, proxyServiceNamespace: values.proxyServiceNamespace }, context),
};

function corednsSettings(
  { values, coredns, corednsImport, proxyFqdn }: ControllerSettings,
): CorednsModeSettings {
  return {
    coredns,
    corednsImport,
    proxyFqdn,
    markers: blockMarkers(values.markerId),
    nodeLocalDns: { namespace: values.nodeLocalDnsNamespace, configmap: values.nodeLocalDnsConfigmap },
  };
}

/** `--cleanup`: the problems with the flags it was given with. */
function cleanupProblems(values: ControllerValues): string[] {
  const problems: string[] = [];
  if (values.mode !== "etc-hosts") {
    problems.push(
      `--cleanup works only with --mode=etc-hosts (got --mode=${values.mode}): it removes the block from a ` +
        "node's hosts file. The CoreDNS modes are cleaned up by the chart's pre-delete hook, external-dns " +
        "records by its post-delete hook",
    );
  }
  if (values.etcHosts === "") problems.push("--cleanup needs --etc-hosts: the hosts file to clean");
  else {
    const unsafe = hostsPathProblem(values.etcHosts);
    if (unsafe !== undefined) problems.push(`--etc-hosts: ${unsafe.message}`);
  }
  return problems;
}

/** Removes our block from the hosts file; exit status 0 when it is gone (or was never there). */
async function runCleanup(values: ControllerValues): Promise<number> {
  configureLogging({ level: values.logLevel, format: values.logFormat });
  const log = logger("controller");
  const signals = installShutdownSignals();
  try {
    const result = await cleanupHostsFile(values.etcHosts, {
      signal: signals.shutdown,
      markers: blockMarkers(values.markerId),
    });
    switch (result.kind) {
      case "removed":
        log.info("removed the ouroboros block from the hosts file", {
          path: values.etcHosts,
          hosts: result.hosts,
        });
        return 0;
      case "absent":
        log.info("the hosts file has no ouroboros block; nothing to remove", { path: values.etcHosts });
        return 0;
      case "refused":
        log.error("cannot clean the hosts file; it was not changed", {
          path: values.etcHosts,
          problem: result.problem,
          message: result.message,
        });
        return 1;
      case "failed":
        // A runtime failure like any other: main logs it as fatal (an OS error with its code) and
        // exits 1.
        throw result.cause instanceof Error && result.cause.message === result.message
          ? result.cause
          : new Error(result.message, { cause: result.cause });
    }
  } finally {
    signals.dispose();
  }
}

/** Runs the controller subcommand and returns the exit status. */
export async function runController(argv: readonly string[]): Promise<number> {
  const outcome = parseOptions(CONTROLLER_OPTIONS, argv, declaredEnv(CONTROLLER_OPTIONS));
  if (outcome.kind === "help") {
    printStdout(renderHelp(CONTROLLER_OPTIONS));
    return 0;
  }
  if (outcome.kind === "invalid") throw new ConfigError("controller", outcome.problems);
  if (outcome.values.cleanup) {
    const problems = cleanupProblems(outcome.values);
    if (problems.length > 0) throw new ConfigError("controller", problems);
    return await runCleanup(outcome.values);
  }
  const podNamespace = readTextOrUndefined(POD_NAMESPACE_FILE)?.trim() || undefined;
  const settings = controllerSettings(
    outcome.values,
    outcome.sources.clusterDomain,
    () => readTextOrUndefined(RESOLV_CONF),
    podNamespace,
  );
  if (settings instanceof ConfigError) throw settings;
  const { values } = settings;
  configureLogging({ level: values.logLevel, format: values.logFormat });
  const log = logger("controller");

  const env = (name: string) => Deno.env.get(name);
  const config = await loadKubeAccess(values.kubeconfig, env);
  // The pod name (the kubelet sets HOSTNAME) tells replicas' Events apart.
  const instance = env("HOSTNAME") || values.instance || "ouroboros-controller";
  const client = KubeClient.fromConfig(config);
  const signals = installShutdownSignals();
  try {
    const recorder = new EventRecorder({ client, instance });
    const runtime = start(
      settings,
      (watch) => MODES[values.mode](settings, { client, recorder, watch, podNamespace }),
      client,
    );
    await runtime.probe(signals.shutdown);
    const hostsFile = runtime.mode.hostsFile;
    const permissions = narrowPermissions(config, hostsFile === undefined ? {} : { hostsFile });
    logStart(settings, config, runtime, permissions);
    await runtime.run(signals.shutdown);
    log.info("controller stopped", { signal: signals.received() ?? "none" });
  } finally {
    signals.dispose();
    client.close();
  }
  return 0;
}

/** Builds the runtime for the mode and binds its health listener. */
function start(
  settings: ControllerSettings,
  mode: (watch: WatchObject) => Mode,
  client: KubeClient,
): ControllerRuntime {
  const { values } = settings;
  return ControllerRuntime.start({
    api: client,
    mode,
    gatewayApi: values.gatewayApi,
    desired: {
      clusterDomain: settings.clusterDomain,
      ...(settings.proxyFqdn === "" ? {} : { proxyFqdn: settings.proxyFqdn }),
      ingressHosts: values.ingressHosts,
      ingressClass: values.ingressClass,
      gatewayClass: values.gatewayClass,
    },
    resyncMs: values.resync,
    health: values.listenHealth,
    version: VERSION,
    log: logger("controller"),
  });
}

/** The "controller starting" line, and the warning about a proxy FQDN outside the cluster domain. */
function logStart(
  settings: ControllerSettings,
  config: ClusterConfig,
  runtime: ControllerRuntime,
  permissions: ReturnType<typeof narrowPermissions>,
): void {
  const { values } = settings;
  const log = logger("controller");
  log.info("controller starting", {
    mode: values.mode,
    target: runtime.mode.sink.description,
    ...runtime.mode.details,
    clusterDomain: settings.clusterDomain,
    clusterDomainSource: settings.clusterDomainSource,
    gatewayApi: values.gatewayApi,
    ingressHosts: values.ingressHosts,
    ingressClass: values.ingressClass,
    gatewayClass: values.gatewayClass,
    resync: formatDuration(values.resync),
    health: runtime.healthAddress ?? "off",
    apiServer: config.server,
    kubeConfig: config.source,
    readAccess: permissions.read,
    writeAccess: permissions.write,
    version: VERSION,
  });
  if (clusterDomainMismatch(settings.proxyFqdn, settings.clusterDomain)) {
    log.warn(
      "proxy-fqdn suffix does not match cluster-domain; in-cluster lookups will resolve to NXDOMAIN",
      { clusterDomain: settings.clusterDomain, proxyFqdn: settings.proxyFqdn },
    );
  }
}
