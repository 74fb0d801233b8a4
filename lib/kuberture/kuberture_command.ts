/**
 * `ouroboros kuberture`, a drop-in for kuberture: reads the config (every problem before any
 * connection, exit 2), elects a leader, finds its Deployment for owner references, then keeps one
 * Service or DNSEndpoint per output in step with the source EndpointSlices, reloading the config
 * file when it changes.
 *
 * Effects: this is the wiring; the pure parts are the settings, the config parser and the planner.
 *
 * @module
 */

import { errorFields } from "../util/error_message.ts";
import { ConfigError } from "../cli/options.ts";
import { defineSubcommand, type Service } from "../daemon/subcommand.ts";
import { connectToCluster } from "../election/cluster_connection.ts";
import { EventRecorder } from "../kube/event_recorder.ts";
import { runningNamespace } from "../kube/kube_access.ts";
import { parse } from "yaml";
import { ConfigWatcher } from "./config/config_watcher.ts";
import { readKubertureConfig } from "./config/read_kuberture_config.ts";
import { KubertureRuntime } from "./kuberture_runtime.ts";
import { kubertureOnceReport } from "./once_report.ts";
import { findOwnerDeployment } from "./owner_deployment.ts";
import { type ListenAddress, parseListenAddress } from "../util/listen_address.ts";
import { systemClock } from "../util/clock.ts";
import { logger } from "../util/logging.ts";
import { printStdout } from "../util/stdio.ts";
import { VERSION } from "../util/version.ts";
import { KUBERTURE_OPTIONS } from "./kuberture_options.ts";
import { type KubertureSettings, kubertureSettings, type KubertureValues } from "./kuberture_settings.ts";
import { startKubertureCleanup } from "./kuberture_cleanup.ts";

/** `--once` gives up after this long without a pass (the caches never synced). */
const ONCE_DEADLINE_MS = 120_000;

/** A bind address of the config file: `"0"` (or empty) turns the listener off, as in kuberture. */
function bindAddress(text: string): ListenAddress | null {
  if (text === "" || text === "0") return null;
  const parsed = parseListenAddress(text);
  return typeof parsed === "string" ? null : parsed;
}

/** The `kuberture` subcommand, for `main.ts`'s table. */
export const KUBERTURE = defineSubcommand({
  options: KUBERTURE_OPTIONS,
  usage: "publish the API server's addresses through external-dns (a drop-in for kuberture)",
  settings: ({ values, sources }): KubertureRun | ConfigError => {
    const podNamespace = runningNamespace(values.kubeconfig, {
      env: (name) => Deno.env.get(name),
      parseYaml: parse,
    });
    if (values.cleanup) return cleanupRun(values, podNamespace);
    const settings = kubertureSettings({
      values,
      sources,
      configFile: readKubertureConfig(values.config),
      podNamespace,
    });
    return settings instanceof Error ? settings : { kind: "run", values: settings.values, settings };
  },
  start: (run) =>
    run.kind === "cleanup" ? startKubertureCleanup(run.values, run.namespace) : startKuberture(run.settings),
});

/** What a run does: publish (the settings), or delete what this instance wrote and exit. */
type KubertureRun =
  | { readonly kind: "run"; readonly values: KubertureValues; readonly settings: KubertureSettings }
  | { readonly kind: "cleanup"; readonly values: KubertureValues; readonly namespace: string };

/** `--cleanup`'s run, or what is wrong with its flags; the config file is not read. */
function cleanupRun(values: KubertureValues, podNamespace: string | undefined): KubertureRun | ConfigError {
  const problems: string[] = [];
  if (values.once || values.dryRun) problems.push("--cleanup is a run of its own: drop --once and --dry-run");
  if (values.instance === "") problems.push("--instance (KUBERTURE_INSTANCE) must not be empty");
  if (podNamespace === undefined || podNamespace === "") {
    problems.push("the namespace to clean is unknown: set POD_NAMESPACE, or give --kubeconfig");
  }
  if (problems.length > 0) return new ConfigError("kuberture", problems);
  return { kind: "cleanup", values, namespace: podNamespace! };
}

async function startKuberture(settings: KubertureSettings): Promise<Service> {
  const { values, config, namespace } = settings;
  const log = logger("kuberture");
  const env = (name: string) => Deno.env.get(name);
  const podName = env("HOSTNAME") ?? "";
  const cluster = await connectToCluster({
    kubeconfig: values.kubeconfig,
    env,
    ...(settings.election === undefined
      ? {}
      : { election: { lease: settings.election, identity: podName || values.instance } }),
    fieldManager: "kuberture",
  });
  const { access, client, elector } = cluster;
  const close = () => cluster.close();
  try {
    const lookup = await findOwnerDeployment(client, { namespace, podName });
    const recorder = values.dryRun
      ? { record: () => Promise.resolve({ kind: "suppressed" as const }) }
      : new EventRecorder({ client, instance: podName || values.instance, component: "kuberture" });
    const runtime = new KubertureRuntime({
      api: client,
      config,
      namespace,
      instance: values.instance,
      owner: lookup.kind === "found" ? lookup.owner : undefined,
      recorder,
      dryRun: values.dryRun,
      version: VERSION,
      moreMetrics: (registry) => cluster.registerMetrics(registry),
      log,
      ...(elector === undefined ? {} : { election: elector }),
    });
    const routes = runtime.healthRoutes();
    const listeners = values.once ? {} : {
      health: { address: bindAddress(config.healthProbeBindAddress), routes },
      ...(config.metricsBindAddress === config.healthProbeBindAddress
        ? {}
        : { moreListeners: [{ address: bindAddress(config.metricsBindAddress), routes }] }),
    };
    return {
      ...listeners,
      // env stays: the YAML parser reads LOG_TOKENS and LOG_STREAM whenever a reload parses the file.
      revoke: [{ name: "write" }, { name: "run" }, { name: "ffi" }, { name: "sys" }],
      async run({ signals, healthAddress, moreAddresses }) {
        log.info("kuberture starting", {
          config: values.config,
          instance: values.instance,
          namespace,
          source: `${config.source.namespace}/${config.source.serviceName}`,
          outputs: config.outputs.map((output) => output.name).join(","),
          ...(lookup.kind === "found"
            ? { owner: `Deployment/${lookup.owner.name}` }
            : { ownerNotFound: lookup.reason }),
          leaderElection: elector === undefined ? "off" : elector.lease,
          ...(elector === undefined ? {} : { identity: elector.identity }),
          dryRun: values.dryRun,
          once: values.once,
          health: healthAddress ?? "off",
          metrics: moreAddresses[0] ?? healthAddress ?? "off",
          apiServer: access.server,
          version: VERSION,
        });
        if (values.once) {
          const deadline = AbortSignal.any([signals.shutdown, AbortSignal.timeout(ONCE_DEADLINE_MS)]);
          const report = kubertureOnceReport(await runtime.once(deadline));
          printStdout(report.stdout);
          log[report.code === 1 ? "error" : "info"](`--once: ${report.summary}`, { exitCode: report.code });
          return report.code;
        }
        const watcher = new ConfigWatcher(values.config, {
          initial: { config, text: settings.configText },
          clock: systemClock,
          onOutcome: (change) => {
            if (change.kind === "refused") {
              log.error("the changed config file is refused; the running config stays", {
                config: values.config,
                problems: change.problems.join("; "),
              });
              return;
            }
            if (change.kind !== "loaded") return;
            runtime.setConfig(change.config);
            log.info("config reloaded", { config: values.config, outputs: change.config.outputs.length });
            if (change.restartNeeded.length > 0) {
              log.warn("some changes take effect only after a restart", {
                keys: change.restartNeeded.join(","),
              });
            }
          },
        });
        const watching = watcher.run(signals.shutdown).catch((error: unknown) =>
          log.error("the config file is no longer watched; changes need a restart", {
            config: values.config,
            ...errorFields(error),
          })
        );
        await runtime.run(signals.shutdown);
        await watching;
        log.info("kuberture stopped", { signal: signals.received() });
        return 0;
      },
      close,
    };
  } catch (error) {
    close();
    throw error;
  }
}
