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
import { ExternalDnsModeSink } from "../controller/external_dns_mode.ts";
import { loadKubeAccess } from "../controller/kube_access.ts";
import { narrowPermissions } from "../controller/permissions.ts";
import type { TargetOrigin } from "../controller/proxy_targets.ts";
import { ControllerRuntime, type ControllerRuntimeOptions } from "../controller/runtime.ts";
import type { TargetRef } from "../controller/sources.ts";
import type { ClusterConfig } from "../kube/config.ts";
import { KubeClient } from "../kube/client.ts";
import { EventRecorder } from "../kube/event_recorder.ts";
import { CorednsImportSink } from "../sinks/coredns/import_reconciler.ts";
import { runStartupProbes } from "../sinks/coredns/probes.ts";
import { CorednsSink } from "../sinks/coredns/reconciler.ts";
import { hostsPathProblem } from "../sinks/etc_hosts/hosts_path.ts";
import { cleanupHostsFile, EtcHostsSink } from "../sinks/etc_hosts/reconciler.ts";
import { probeOrphans } from "../sinks/external_dns/orphan_probe.ts";
import { blockMarkers } from "../sinks/markers.ts";
import { formatDuration } from "../util/duration.ts";
import { configureLogging, logger } from "../util/logging.ts";
import { VERSION } from "../util/version.ts";
import { CONTROLLER_OPTIONS } from "./controller_options.ts";
import { clusterDomainMismatch, type ControllerSettings, controllerSettings } from "./controller_settings.ts";
import { declaredEnv, installShutdownSignals, printStdout, readTextOrUndefined } from "./process.ts";
import { RESOLV_CONF } from "./proxy.ts";

/** The service account's namespace file, mounted into every pod. */
export const POD_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

/** How long the start-up orphan probe may take before it is skipped. */
const ORPHAN_PROBE_TIMEOUT_MS = 5_000;

type ControllerValues = OptionValues<typeof CONTROLLER_OPTIONS.options>;

/** What a mode adds to the runtime, and to the start-up line. */
interface ModeWiring {
  readonly sink: ControllerRuntimeOptions["sink"];
  /** The ConfigMap the sink edits (CoreDNS modes). */
  readonly target?: TargetRef;
  /** The proxy Service the records point at (external-dns mode without a fixed address). */
  readonly proxyService?: TargetRef;
  /** The hosts file (etc-hosts mode), which keeps its read and write permission. */
  readonly hostsFile?: string;
  /** Extra fields for the "controller starting" line. */
  readonly details: Record<string, unknown>;
}

/** Dependencies the mode builders share. */
interface ModeContext {
  readonly settings: ControllerSettings;
  readonly client: KubeClient;
  readonly recorder: EventRecorder;
  readonly podNamespace: string | undefined;
}

function corednsWiring({ settings, client, recorder }: ModeContext): ModeWiring {
  const target = settings.coredns;
  const markers = blockMarkers(settings.values.markerId);
  return {
    sink: new CorednsSink({ client, target, proxyFqdn: settings.proxyFqdn, recorder, markers }),
    target: { namespace: target.namespace, name: target.configmap },
    details: { proxyFqdn: settings.proxyFqdn, markerId: markers.id || "(none)" },
  };
}

function corednsImportWiring({ settings, client, recorder }: ModeContext): ModeWiring {
  const target = settings.corednsImport;
  return {
    sink: new CorednsImportSink({ client, target, proxyFqdn: settings.proxyFqdn, recorder }),
    target: { namespace: target.namespace, name: target.configmap },
    details: { proxyFqdn: settings.proxyFqdn },
  };
}

function etcHostsWiring({ settings }: ModeContext): ModeWiring {
  const { etcHosts, proxyIp, markerId } = settings.values;
  const markers = blockMarkers(markerId);
  return {
    sink: new EtcHostsSink({ path: etcHosts, proxyIp, markers }),
    hostsFile: etcHosts,
    details: { hostsFile: etcHosts, proxyIp, markerId: markers.id || "(none)" },
  };
}

function externalDnsWiring({ settings, client, recorder, podNamespace }: ModeContext): ModeWiring {
  const external = settings.externalDns;
  const proxyService: TargetRef | undefined = external.proxyIp !== "" ? undefined : {
    namespace: settings.values.proxyServiceNamespace || podNamespace || external.namespace,
    name: external.proxyService,
  };
  const details = {
    output: external.output,
    recordsNamespace: external.namespace,
    instance: external.instance,
    ttl: external.recordTtl,
    targetsFrom: proxyService === undefined
      ? `--external-dns-proxy-ip=${external.proxyIp}`
      : `Service ${proxyService.namespace}/${proxyService.name}`,
    annotations: Object.keys(external.annotations).length,
    labels: Object.keys(external.labels).length,
    ...(external.output === "service" ? { annotationPrefix: external.annotationPrefix } : {}),
  };
  return {
    sink: (inputs) => {
      let targets: TargetOrigin;
      if (proxyService === undefined) targets = { kind: "address", address: external.proxyIp };
      else if (inputs.proxyService === undefined) throw new Error("the proxy Service is not watched");
      else targets = { kind: "service", ref: proxyService, store: inputs.proxyService };
      return new ExternalDnsModeSink({ client, settings: external, targets, recorder });
    },
    ...(proxyService === undefined ? {} : { proxyService }),
    details,
  };
}

const WIRING: Readonly<Record<ControllerValues["mode"], (context: ModeContext) => ModeWiring>> = {
  "coredns": corednsWiring,
  "coredns-import": corednsImportWiring,
  "etc-hosts": etcHostsWiring,
  "external-dns": externalDnsWiring,
};

/** The start-up checks of the mode; none of them fails the start. */
async function startupProbes(
  settings: ControllerSettings,
  client: KubeClient,
  signal: AbortSignal,
): Promise<void> {
  const { values } = settings;
  const mode = values.mode;
  if (mode === "coredns" || mode === "coredns-import") {
    await runStartupProbes(client, {
      mode,
      coredns: settings.coredns,
      corednsImport: settings.corednsImport,
      nodeLocalDns: { namespace: values.nodeLocalDnsNamespace, configmap: values.nodeLocalDnsConfigmap },
    }, signal);
    return;
  }
  if (mode !== "external-dns") return;
  const external = settings.externalDns;
  const probe = AbortSignal.any([signal, AbortSignal.timeout(ORPHAN_PROBE_TIMEOUT_MS)]);
  try {
    await probeOrphans(client, {
      activeOutput: external.output,
      namespace: external.namespace,
      instance: external.instance,
    }, probe);
  } catch (error) {
    // Only an abort gets here (shutdown, or the probe's deadline): the probe is best effort.
    logger("controller").debug("the orphan probe did not finish; skipped", {
      error: error instanceof Error ? error.message : String(error),
    });
  }
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
    const result = await cleanupHostsFile(
      values.etcHosts,
      signals.shutdown,
      undefined,
      blockMarkers(values.markerId),
    );
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
    await startupProbes(settings, client, signals.shutdown);
    const recorder = new EventRecorder({ client, instance });
    const mode = WIRING[values.mode]({ settings, client, recorder, podNamespace });
    const permissions = narrowPermissions(
      config,
      mode.hostsFile === undefined ? {} : { hostsFile: mode.hostsFile },
    );
    await run(settings, config, client, mode, permissions, signals.shutdown);
    log.info("controller stopped", { signal: signals.received() ?? "none" });
  } finally {
    signals.dispose();
    client.close();
  }
  return 0;
}

/** Starts the runtime, logs what runs, and runs it until `signal` aborts. */
async function run(
  settings: ControllerSettings,
  config: ClusterConfig,
  client: KubeClient,
  mode: ModeWiring,
  permissions: ReturnType<typeof narrowPermissions>,
  signal: AbortSignal,
): Promise<void> {
  const { values } = settings;
  const log = logger("controller");
  const runtime = ControllerRuntime.start({
    api: client,
    sink: mode.sink,
    gatewayApi: values.gatewayApi,
    ...(mode.target === undefined ? {} : { target: mode.target }),
    ...(mode.proxyService === undefined ? {} : { proxyService: mode.proxyService }),
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
    log,
  });
  log.info("controller starting", {
    mode: values.mode,
    target: runtime.sink.description,
    ...mode.details,
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
  await runtime.run(signal);
}
