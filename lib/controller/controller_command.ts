/**
 * `ouroboros controller`: validate the configuration, connect, give up what is no longer needed,
 * run the mode's start-up probes, then watch and reconcile until SIGTERM or SIGINT (exit 0).
 *
 * With `--leader-elect` the elector reads and writes the Lease through a client of its own; every
 * other write goes through a client fenced by the elector, so a replica not surely leading writes
 * nothing. `--dry-run` records no Events and gives up write access too.
 *
 * The external-dns mode's modules (the publisher, YAML, `node:crypto`) load only when that mode
 * runs: they cost every other mode 8 MiB of resident memory (issue 32). The other modes are small
 * and load with this module.
 *
 * Effects: this is the wiring; the pure parts are `controller_settings.ts` and `permissions.ts`.
 *
 * @module
 */

import { ConfigError } from "../cli/options.ts";
import { permissionReport, permissionsToRevoke } from "./permissions.ts";
import { ControllerRuntime } from "./runtime.ts";
import { readTextOrUndefined } from "../daemon/read_text_or_undefined.ts";
import { defineSubcommand, type Service } from "../daemon/subcommand.ts";
import { connectToCluster } from "../election/cluster_connection.ts";
import { POD_NAMESPACE_FILE } from "../kube/kube_access.ts";
import { EventRecorder } from "../kube/event_recorder.ts";
import { corednsImportMode, corednsMode, nodeLocalDnsOnlyMode } from "./modes/coredns/coredns_mode.ts";
import { etcHostsMode } from "./modes/etc_hosts/etc_hosts_mode.ts";
import { blockMarkers } from "./modes/markers.ts";
import { recordOwnership } from "./modes/external_dns/ownership.ts";
import type { ModeBuilder, ModeContext } from "./modes/sink.ts";
import { toSeconds } from "../util/duration.ts";
import { logger } from "../util/logging.ts";
import { RESOLV_CONF } from "../util/resolv_conf.ts";
import { printStdout } from "../util/stdio.ts";
import { VERSION } from "../util/version.ts";
import { modeCleanup, startClusterCleanup } from "./cluster_cleanup.ts";
import { cleanupRouteTable } from "./routing/routes_cleanup.ts";
import { type RoutesSettings, routesSettings } from "./routing/routes_settings.ts";
import { ROUTE_TABLE_KEY } from "../routes/route_table.ts";
import { cleanupProblems, hostsCleanup, startEtcHostsStep } from "./controller_cleanup.ts";
import { ONCE_DEADLINE_MS, onceReport } from "./controller_once.ts";
import { CONTROLLER_OPTIONS } from "./controller_options.ts";
import {
  clusterDomainMismatch,
  type ControllerSettings,
  controllerSettings,
  type ControllerValues,
  corednsSettings,
  desiredSetOptions,
} from "./controller_settings.ts";

/** What a dry run records Events with: nothing is sent (every Event counts as suppressed). */
const NO_EVENTS: ModeContext["recorder"] = { record: () => Promise.resolve({ kind: "suppressed" }) };

/** The one table that turns a mode's name into (a loader of) its builder. */
const MODES: Readonly<Record<ControllerValues["mode"], () => Promise<ModeBuilder<ControllerSettings>>>> = {
  "coredns": () => Promise.resolve((settings, context) => corednsMode(corednsSettings(settings), context)),
  "coredns-import": () =>
    Promise.resolve((settings, context) => corednsImportMode(corednsSettings(settings), context)),
  "etc-hosts": () =>
    Promise.resolve(({ values }, context) =>
      etcHostsMode(
        { path: values.etcHosts, proxyIp: values.proxyIp, markers: blockMarkers(values.markerId) },
        context,
      )
    ),
  "external-dns": async () => {
    const { externalDnsMode } = await import("./modes/external_dns/external_dns_mode.ts");
    return ({ values, externalDns }, context) =>
      externalDnsMode({ ...externalDns, proxyServiceNamespace: values.proxyServiceNamespace }, context);
  },
};

/** What a run does: clean the hosts file, or the cluster, and exit; or watch and reconcile. */
type ControllerRun =
  | { readonly kind: "cleanup" | "etc-hosts-step"; readonly values: ControllerValues }
  | {
    readonly kind: "cluster-cleanup";
    readonly values: ControllerValues;
    readonly settings: ControllerSettings;
  }
  | {
    readonly kind: "routes-cleanup";
    readonly values: ControllerValues;
    readonly routes: RoutesSettings;
    readonly podNamespace: string | undefined;
  }
  | { readonly kind: "watch"; readonly values: ControllerValues; readonly settings: ControllerSettings };

/** The `controller` subcommand, for `main.ts`'s table. */
export const CONTROLLER = defineSubcommand({
  options: CONTROLLER_OPTIONS,
  usage: "watch Ingress/Gateway and point in-cluster DNS for their hosts at the proxy",
  settings: ({ values, sources }): ControllerRun | ConfigError => {
    const problems = cleanupProblems(values);
    if (problems.length > 0) return new ConfigError("controller", problems);
    if (values.cleanup) {
      if (values.cleanupRoutesOnly) {
        // The mode's own flags do not matter: only the route table is cleaned.
        const podNamespace = readTextOrUndefined(POD_NAMESPACE_FILE)?.trim() || undefined;
        const { routes, problems: routesProblems } = routesSettings(values, podNamespace);
        if (routes === undefined || routesProblems.length > 0) {
          return new ConfigError("controller", [...routesProblems]);
        }
        return { kind: "routes-cleanup", values, routes, podNamespace };
      }
      if (values.cleanupStopDaemonset !== "" || values.cleanupAwaitDaemonset !== "") {
        return { kind: "etc-hosts-step", values };
      }
      if (values.mode === "etc-hosts") return { kind: "cleanup", values };
    }
    const settings = controllerSettings({
      values,
      clusterDomainSource: sources.clusterDomain,
      readResolvConf: () => readTextOrUndefined(RESOLV_CONF),
      podNamespace: readTextOrUndefined(POD_NAMESPACE_FILE)?.trim() || undefined,
    });
    if (settings instanceof ConfigError) return settings;
    return { kind: values.cleanup ? "cluster-cleanup" : "watch", values, settings };
  },
  start: (run) => {
    switch (run.kind) {
      case "cleanup":
        return hostsCleanup(run.values);
      case "etc-hosts-step":
        return startEtcHostsStep(run.values);
      case "cluster-cleanup":
        return MODES[run.values.mode]().then((buildMode) =>
          startClusterCleanup(run.values, {
            podNamespace: run.settings.podNamespace,
            build: (context, fill) =>
              modeCleanup(
                run.values.cleanupNodeLocalDnsOnly
                  ? nodeLocalDnsOnlyMode(corednsSettings(run.settings), context)
                  : buildMode(run.settings, context),
                fill,
              ),
          })
        );
      case "routes-cleanup": {
        const { namespace, configmap, instance } = run.routes;
        const target = { namespace, name: configmap, ownership: recordOwnership(instance) };
        return startClusterCleanup(run.values, {
          podNamespace: run.podNamespace,
          build: ({ client }) => ({
            description: `routes ${namespace}/${configmap}[${ROUTE_TABLE_KEY}]`,
            clean: (signal) => cleanupRouteTable(client, target, { signal }),
          }),
        });
      }
      case "watch":
        return startController(run.settings);
    }
  },
});

/** Connects, builds the runtime for the mode, and returns the service that runs it. */
async function startController(settings: ControllerSettings): Promise<Service> {
  const { values } = settings;
  const buildMode = await MODES[values.mode]();
  const log = logger("controller");
  const env = (name: string) => Deno.env.get(name);
  // The pod name (the kubelet sets HOSTNAME) tells replicas' Events apart.
  const instance = env("HOSTNAME") || values.instance || "ouroboros-controller";
  const election = settings.election;
  const cluster = await connectToCluster({
    kubeconfig: values.kubeconfig,
    env,
    ...(election.kind === "on" ? { election: { lease: election.lease, identity: instance } } : {}),
  });
  const { access: config, client, elector } = cluster;
  const closeClients = () => cluster.close();
  let runtime: ControllerRuntime;
  try {
    const dryRun = values.dryRun;
    const recorder = dryRun ? NO_EVENTS : new EventRecorder({ client, instance });
    const podNamespace = settings.podNamespace;
    runtime = ControllerRuntime.start({
      api: client,
      mode: (watch) => buildMode(settings, { client, recorder, watch, podNamespace, dryRun }),
      gatewayApi: values.gatewayApi,
      routeKinds: values.gatewayRouteKinds,
      desired: desiredSetOptions(settings),
      resyncMs: values.resync,
      version: VERSION,
      moreMetrics: (registry) => cluster.registerMetrics(registry),
      log,
      ...(elector === undefined ? {} : { election: elector }),
      ...(settings.routes === undefined ? {} : {
        routes: {
          target: {
            namespace: settings.routes.namespace,
            name: settings.routes.configmap,
            ownership: recordOwnership(settings.routes.instance),
          },
          proxyProtocol: settings.routes.proxyProtocol,
          client,
          dryRun,
        },
      }),
    });
  } catch (error) {
    closeClients();
    throw error;
  }
  const hostsFile = runtime.mode.hostsFile;
  const narrowing = { ...(hostsFile === undefined ? {} : { hostsFile }), readOnly: values.dryRun };
  return {
    ...(values.once ? {} : { health: { address: values.listenHealth, routes: runtime.healthRoutes() } }),
    revoke: permissionsToRevoke(config, narrowing),
    async run({ signals, healthAddress }) {
      await runtime.probe(signals.shutdown);
      const permissions = permissionReport(narrowing);
      log.info("controller starting", {
        mode: values.mode,
        target: runtime.mode.sink.description,
        ...runtime.mode.details,
        clusterDomain: settings.clusterDomain,
        clusterDomainSource: settings.clusterDomainSource,
        gatewayApi: values.gatewayApi,
        ...(values.gatewayApi ? { gatewayRouteKinds: values.gatewayRouteKinds.join(",") } : {}),
        ingressHosts: values.ingressHosts,
        ingressClass: values.ingressClass,
        gatewayClass: values.gatewayClass,
        wildcards: values.wildcards,
        resyncSeconds: toSeconds(values.resync),
        dryRun: values.dryRun,
        once: values.once,
        health: healthAddress ?? "off",
        apiServer: config.server,
        kubeConfig: config.source,
        readAccess: permissions.read,
        writeAccess: permissions.write,
        routes: settings.routes === undefined
          ? "off"
          : `${settings.routes.namespace}/${settings.routes.configmap}[routes.json]`,
        leaderElection: elector === undefined ? "off" : elector.lease,
        ...(elector === undefined ? {} : { identity: elector.identity }),
        version: VERSION,
      });
      if (election.kind === "ignored") {
        log.warn("--leader-elect is ignored in etc-hosts mode: every node writes its own hosts file", {
          mode: values.mode,
        });
      }
      if (clusterDomainMismatch(settings.proxyFqdn, settings.clusterDomain)) {
        log.warn(
          "proxy-fqdn suffix does not match cluster-domain; in-cluster lookups will resolve to NXDOMAIN",
          { clusterDomain: settings.clusterDomain, proxyFqdn: settings.proxyFqdn },
        );
      }
      if (values.once) {
        const report = onceReport(await runtime.once(signals.shutdown, { deadlineMs: ONCE_DEADLINE_MS }));
        printStdout(report.stdout);
        log[report.level](report.message, { ...report.properties, exitCode: report.code });
        return report.code;
      }
      await runtime.run(signals.shutdown);
      log.info("controller stopped", { signal: signals.received() });
      return 0;
    },
    close: closeClients,
  };
}
