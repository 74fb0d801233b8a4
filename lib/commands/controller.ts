/**
 * `ouroboros controller`: parse and validate the configuration, connect to the API server, run
 * the start-up probes, give up unneeded permissions, then watch and reconcile until SIGTERM or
 * SIGINT (exit 0).
 *
 * The coredns and coredns-import modes run; etc-hosts and external-dns are validated but refuse
 * to start (exit 1) until their sinks exist, rather than pretending to work.
 *
 * @module
 */

import { renderHelp } from "../cli/help.ts";
import { ConfigError, parseOptions } from "../cli/options.ts";
import { loadKubeAccess } from "../controller/kube_access.ts";
import { narrowPermissions } from "../controller/permissions.ts";
import { ControllerRuntime } from "../controller/runtime.ts";
import type { TargetRef } from "../controller/sources.ts";
import { KubeClient } from "../kube/client.ts";
import { EventRecorder } from "../kube/event_recorder.ts";
import { CorednsImportSink } from "../sinks/coredns/import_reconciler.ts";
import { runStartupProbes } from "../sinks/coredns/probes.ts";
import { CorednsSink } from "../sinks/coredns/reconciler.ts";
import type { Sink } from "../sinks/sink.ts";
import { formatDuration } from "../util/duration.ts";
import { configureLogging, logger } from "../util/logging.ts";
import { VERSION } from "../util/version.ts";
import { CONTROLLER_OPTIONS } from "./controller_options.ts";
import { clusterDomainMismatch, type ControllerSettings, controllerSettings } from "./controller_settings.ts";
import { declaredEnv, installShutdownSignals, printStdout, readTextOrUndefined } from "./process.ts";
import { RESOLV_CONF } from "./proxy.ts";

/** The service account's namespace file, mounted into every pod. */
export const POD_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

/** Modes whose sinks this build has. */
const RUNNABLE_MODES = ["coredns", "coredns-import"] as const;
type RunnableMode = (typeof RUNNABLE_MODES)[number];

function isRunnable(mode: string): mode is RunnableMode {
  return (RUNNABLE_MODES as readonly string[]).includes(mode);
}

/** The sink for the mode, and the ConfigMap it edits (watched for drift). */
function buildSink(
  mode: RunnableMode,
  settings: ControllerSettings,
  client: KubeClient,
  recorder: EventRecorder,
): { readonly sink: Sink; readonly target: TargetRef } {
  if (mode === "coredns") {
    const target = settings.coredns;
    return {
      sink: new CorednsSink({ client, target, proxyFqdn: settings.proxyFqdn, recorder }),
      target: { namespace: target.namespace, name: target.configmap },
    };
  }
  const target = settings.corednsImport;
  return {
    sink: new CorednsImportSink({ client, target, proxyFqdn: settings.proxyFqdn, recorder }),
    target: { namespace: target.namespace, name: target.configmap },
  };
}

/** Runs the controller subcommand and returns the exit status. */
export async function runController(argv: readonly string[]): Promise<number> {
  const outcome = parseOptions(CONTROLLER_OPTIONS, argv, declaredEnv(CONTROLLER_OPTIONS));
  if (outcome.kind === "help") {
    printStdout(renderHelp(CONTROLLER_OPTIONS));
    return 0;
  }
  if (outcome.kind === "invalid") throw new ConfigError("controller", outcome.problems);
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

  const mode = values.mode;
  if (!isRunnable(mode)) {
    throw new Error(
      `mode ${mode} is not implemented in this build yet; use --mode=coredns or --mode=coredns-import`,
    );
  }

  const env = (name: string) => Deno.env.get(name);
  const config = await loadKubeAccess(values.kubeconfig, env);
  // The pod name (the kubelet sets HOSTNAME) tells replicas' Events apart.
  const instance = env("HOSTNAME") || values.instance || "ouroboros-controller";
  const client = KubeClient.fromConfig(config);
  const signals = installShutdownSignals();
  try {
    await runStartupProbes(client, {
      mode,
      coredns: settings.coredns,
      corednsImport: settings.corednsImport,
      nodeLocalDns: { namespace: values.nodeLocalDnsNamespace, configmap: values.nodeLocalDnsConfigmap },
    }, signals.shutdown);
    const recorder = new EventRecorder({ client, instance });
    const { sink, target } = buildSink(mode, settings, client, recorder);
    const permissions = narrowPermissions(config);

    const runtime = ControllerRuntime.start({
      api: client,
      sink,
      gatewayApi: values.gatewayApi,
      target,
      desired: {
        clusterDomain: settings.clusterDomain,
        proxyFqdn: settings.proxyFqdn,
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
      mode,
      target: sink.description,
      proxyFqdn: settings.proxyFqdn,
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
      version: VERSION,
    });
    if (clusterDomainMismatch(settings.proxyFqdn, settings.clusterDomain)) {
      log.warn(
        "proxy-fqdn suffix does not match cluster-domain; in-cluster lookups will resolve to NXDOMAIN",
        {
          clusterDomain: settings.clusterDomain,
          proxyFqdn: settings.proxyFqdn,
        },
      );
    }
    await runtime.run(signals.shutdown);
    log.info("controller stopped", { signal: signals.received() ?? "none" });
  } finally {
    signals.dispose();
    client.close();
  }
  return 0;
}
