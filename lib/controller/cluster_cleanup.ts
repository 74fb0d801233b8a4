/**
 * `ouroboros controller --cleanup` in the cluster modes (coredns, coredns-import, external-dns), and
 * `--cleanup-routes-only` in any mode: what the chart's uninstall hooks run with the controller's
 * own flags. It stops the controller first (`--cleanup-quiesce`), then hands the mode's own sink an
 * empty set of hostnames, once: the same editor, guards and refusals as every write remove the
 * block (or the key), so a damaged block is refused exactly as the controller refuses it, and
 * nothing outside it changes. A sink whose empty pass a guard stops (external-dns's mass-prune
 * guard) has a `cleanup` of its own instead; the route table has its own
 * (`routing/routes_cleanup.ts`).
 *
 * Decisions a reader could not guess:
 * - What a mode watches (the ConfigMap it edits, a Service it reads) is read once before the pass,
 *   instead of by a watch: the pass is the only one.
 * - A ConfigMap or key that is not there is nothing to clean (exit 0), not a refusal.
 * - A quiesce that did not finish is a warning and the cleanup goes on: a block left behind for good
 *   is worse than one a lingering controller may write again.
 *
 * Effects: the API client, Events on refusal, logs.
 *
 * @module
 */

import type { Service } from "../daemon/subcommand.ts";
import { connectToCluster } from "../election/cluster_connection.ts";
import type { KubeClient, ObjectRef } from "../kube/client.ts";
import { isNotFound } from "../kube/errors.ts";
import { EventRecorder } from "../kube/event_recorder.ts";
import { Store } from "../reflector/store.ts";
import type { KubeObject } from "../resources/kube_object.ts";
import type { ResourceType } from "../resources/resource_type.ts";
import { systemClock } from "../util/clock.ts";
import { logger } from "../util/logging.ts";
import type { ControllerValues } from "./controller_settings.ts";
import type { Mode, ModeContext, Notice, SinkOutcome, WatchObject } from "./modes/sink.ts";
import { permissionsToRevoke } from "./permissions.ts";
import { quiesceDeployment, type QuiesceOutcome } from "./quiesce_deployment.ts";

/** Refusals that mean the target is not there, so there is nothing to clean. */
const NOTHING_THERE = new Set(["configmap-missing", "key-missing", "import-configmap-missing"]);

/** The exit code and log line of a cleanup pass's outcome. Pure. */
export function cleanupVerdict(outcome: SinkOutcome, target: string): {
  readonly code: 0 | 1;
  readonly level: "info" | "error";
  readonly message: string;
  readonly properties: Readonly<Record<string, unknown>>;
} {
  switch (outcome.kind) {
    case "unchanged":
      return { code: 0, level: "info", message: "nothing of ouroboros to remove", properties: { target } };
    case "written":
    case "previewed":
      return {
        code: 0,
        level: "info",
        message: "removed what this controller wrote",
        properties: {
          target,
          hostsRemoved: outcome.removed,
          ...(outcome.diff ? { diff: outcome.diff } : {}),
        },
      };
    case "refused":
      if (NOTHING_THERE.has(outcome.problem.replace(/^node-local-dns-/, ""))) {
        return {
          code: 0,
          level: "info",
          message: outcome.scope === "some-hosts"
            ? "removed what this controller wrote; one of its targets is not there"
            : "nothing to clean: the target is not there",
          properties: { target, reason: outcome.message },
        };
      }
      return {
        code: 1,
        level: "error",
        message: "cannot clean up; nothing was changed",
        properties: { target, problem: outcome.problem, reason: outcome.message },
      };
    case "failed":
      return {
        code: 1,
        level: "error",
        message: "cleanup failed; run it again, or remove the block by hand",
        properties: { target, reason: outcome.message },
      };
  }
}

/** The quiesce target of `--cleanup-quiesce`, or `undefined` without one. */
function quiesceTarget(values: ControllerValues) {
  if (values.cleanupQuiesce === "") return undefined;
  const [namespace = "", name = ""] = values.cleanupQuiesce.split("/");
  return {
    namespace,
    name,
    selector: values.cleanupQuiesceSelector,
    timeoutMs: values.cleanupQuiesceTimeout,
  };
}

/** Logs what the quiesce found. */
function logQuiesce(outcome: QuiesceOutcome, where: string, selector: string): void {
  const log = logger("controller");
  switch (outcome.kind) {
    case "quiesced":
      log.info("controller quiesced: scaled to 0, no pod left", { deployment: where });
      return;
    case "absent":
      log.info("no controller pod is left (no Deployment to scale)", { deployment: where });
      return;
    case "timed-out":
      log.warn(
        "the controller's pods did not all stop in time; cleaning up anyway (a pod still running may " +
          "write again what the cleanup removes: check once it has gone)",
        { deployment: where, left: outcome.left, check: `kubectl get pods -l '${selector}'` },
      );
      return;
    case "not-scaled":
      log.warn(
        "could not scale the controller to 0; cleaning up anyway (a running controller may write its " +
          "block again)",
        { deployment: where, error: outcome.error },
      );
      return;
  }
}

/** A `watch` for one pass: each object is read once, by {@linkcode fill}, before the pass. */
function readOnce(client: KubeClient) {
  const reads: ((signal: AbortSignal) => Promise<void>)[] = [];
  const watch: WatchObject = <T extends KubeObject>(type: ResourceType<T>, ref: Required<ObjectRef>) => {
    const store = new Store<T>();
    reads.push(async (signal) => {
      try {
        store.replace([await client.get(type, ref, { signal })]);
      } catch (error) {
        if (!isNotFound(error)) throw error;
        store.replace([]);
      }
    });
    return store;
  };
  const fill = async (signal: AbortSignal) => {
    for (const read of reads) await read(signal);
  };
  return { watch, fill };
}

/** What one cleanup run removes: the target's name for the logs, and the removal. */
export interface CleanupTarget {
  readonly description: string;
  clean(signal: AbortSignal): Promise<SinkOutcome>;
}

/**
 * A mode's cleanup: its sink's own, or one pass with no hostnames after `fill` has read what the
 * mode watches.
 */
export function modeCleanup(mode: Mode, fill: (signal: AbortSignal) => Promise<void>): CleanupTarget {
  const sink = mode.sink;
  return {
    description: sink.description,
    clean: async (signal) => {
      if (sink.cleanup !== undefined) return await sink.cleanup(signal);
      await fill(signal);
      return await sink.reconcile([], signal);
    },
  };
}

/**
 * Connects and returns the cleanup run built by `build`, which gets what every mode gets and the
 * read of what the mode watches (`fill`).
 */
export async function startClusterCleanup(
  values: ControllerValues,
  options: {
    readonly podNamespace: string | undefined;
    readonly build: (context: ModeContext, fill: (signal: AbortSignal) => Promise<void>) => CleanupTarget;
  },
): Promise<Service> {
  const { podNamespace, build } = options;
  const log = logger("controller");
  const env = (name: string) => Deno.env.get(name);
  const cluster = await connectToCluster({ kubeconfig: values.kubeconfig, env });
  const { access, client } = cluster;
  const instance = env("HOSTNAME") || values.instance || "ouroboros-cleanup";
  const { watch, fill } = readOnce(client);
  let cleanup: CleanupTarget;
  try {
    cleanup = build({
      client,
      recorder: new EventRecorder({ client, instance }),
      watch,
      podNamespace,
      dryRun: false,
    }, fill);
  } catch (error) {
    cluster.close();
    throw error;
  }
  const target = cleanup.description;
  return {
    revoke: permissionsToRevoke(access, {}),
    async run({ signals }) {
      const signal = signals.shutdown;
      log.info("controller cleanup starting", { mode: values.mode, target, apiServer: access.server });
      const quiesce = quiesceTarget(values);
      if (quiesce !== undefined) {
        const where = `${quiesce.namespace}/${quiesce.name}`;
        log.info("quiescing the controller: scaling it to 0", {
          deployment: where,
          selector: quiesce.selector,
        });
        logQuiesce(
          await quiesceDeployment(client, quiesce, { clock: systemClock, signal }),
          where,
          quiesce.selector,
        );
      }
      const outcome = await cleanup.clean(signal);
      for (const notice of outcome.notices ?? []) logNotice(notice);
      const verdict = cleanupVerdict(outcome, target);
      log[verdict.level](verdict.message, verdict.properties);
      return verdict.code;
    },
    close: () => cluster.close(),
  };
}

function logNotice(notice: Notice): void {
  logger("controller")[notice.level](notice.message, notice.properties ?? {});
}
