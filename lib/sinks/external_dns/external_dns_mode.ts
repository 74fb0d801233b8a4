/**
 * external-dns mode as the controller runs it: the records sink (`lib/sinks/external_dns`) with
 * the controller's side of it around each pass.
 *
 * - Targets: read from the proxy Service cache (or `--external-dns-proxy-ip`) at the start of
 *   every pass, so a Service change re-targets the records. While there is no usable address
 *   (headless, no cluster IP yet, missing), the pass makes no API call at all: nothing is written
 *   and, above all, nothing is pruned. The change into that state is one ERROR saying what to
 *   fix; the way out is one INFO; each change of addresses is one INFO.
 * - Refusals: a hostname whose record name is held by an object ouroboros does not own is left
 *   alone (the sink logs it at ERROR once, and the others proceed); here it also becomes a
 *   Warning Event on that object, so `kubectl describe` on it says who wants the name and why
 *   it was not touched.
 * - Outcomes are labelled for the loop: the mass-prune guard and the nothing-built guard kept
 *   published records (a WARN with the remedy, logged by the sink), a per-hostname refusal left
 *   the others written. The sink logged all of them, so the loop logs them at DEBUG only.
 *
 * @module
 */

import type { KubeClient } from "../../kube/client.ts";
import type { EventNotice, RecordResult } from "../../kube/event_recorder.ts";
import { DNS_ENDPOINT } from "../../resources/dns_endpoint.ts";
import { SERVICE } from "../../resources/service.ts";
import { recordNoun } from "./messages.ts";
import type { HostRefusal } from "./plan.ts";
import type { RecordClient } from "./record_api.ts";
import type { RecordSettings } from "./records.ts";
import { ExternalDnsSink, type ReconcileReport, throwIfWritesFailed } from "./reconciler.ts";
import type { TargetsResult } from "./targets.ts";
import type { Mode, ModeContext, ReconcileContext, RefusalScope, Sink, SinkOutcome } from "../sink.ts";
import { type Log, logger } from "../../util/logging.ts";
import { errorMessage } from "../../util/error_message.ts";
import { probeOrphans } from "./orphan_probe.ts";
import { currentTargets, describeTargets, type TargetOrigin } from "./proxy_targets.ts";

/** Records Events; an `EventRecorder` fits. */
export interface EventSink {
  record(notice: EventNotice, signal?: AbortSignal): Promise<RecordResult>;
}

/** What {@linkcode ExternalDnsModeSink} needs. */
export interface ExternalDnsModeOptions {
  /** The records API, plus `get` to find the uid of an object that is in the way. */
  readonly client: RecordClient & Pick<KubeClient, "get">;
  readonly settings: RecordSettings;
  readonly targets: TargetOrigin;
  readonly recorder: EventSink;
  /** @default {logger("controller", "external-dns")} */
  readonly log?: Log;
}

/** The Event reason for each refusal that has an object to attach it to. */
const EVENT_REASONS: Partial<Record<HostRefusal["problem"], string>> = {
  "foreign-object": "RecordNameTaken",
  "unreadable-object": "RecordUnreadable",
};

/** Per-hostname refusal codes: the pass wrote the other hostnames. */
const HOST_PROBLEMS: ReadonlySet<string> = new Set([
  "foreign-object",
  "name-clash",
  "unreadable-object",
  "invalid-object",
]);

/** Guard codes: published records were kept as they are. */
const GUARD_PROBLEMS: ReadonlySet<string> = new Set(["mass-prune-guard", "nothing-built"]);

/** The external-dns sink with targets, Events and outcome labels (see the module comment). */
export class ExternalDnsModeSink implements Sink {
  readonly description: string;
  readonly #inner: ExternalDnsSink;
  readonly #client: Pick<KubeClient, "get">;
  readonly #settings: RecordSettings;
  readonly #origin: TargetOrigin;
  readonly #recorder: EventSink;
  readonly #log: Log;
  /** The targets of the current pass, read by the inner sink. */
  #targets: TargetsResult | undefined;
  /** The last targets logged, as a comparable string. */
  #announcedTargets: string | undefined;
  /** uid of each object currently in a hostname's way, by name (looked up once). */
  #blockers = new Map<string, string>();

  /** Builds the sink; it holds no resources. */
  constructor(options: ExternalDnsModeOptions) {
    this.#client = options.client;
    this.#settings = options.settings;
    this.#origin = options.targets;
    this.#recorder = options.recorder;
    this.#log = options.log ?? logger("controller", "external-dns");
    this.#inner = new ExternalDnsSink({
      client: options.client,
      settings: options.settings,
      targets: () => this.#targets,
    });
    this.description = this.#inner.description;
  }

  /** One pass: targets first, then the records, then Events for what was refused. */
  async reconcile(
    hosts: readonly string[],
    signal: AbortSignal,
    context: ReconcileContext = {},
  ): Promise<SinkOutcome> {
    signal.throwIfAborted();
    const targets = currentTargets(this.#origin);
    this.#targets = targets;
    this.#announceTargets(targets);
    if (targets === undefined || targets.kind === "unusable") {
      return {
        kind: "refused",
        problem: targets?.problem ?? "no-targets",
        message: targets?.message ?? "the proxy's addresses are not known yet",
        scope: "nothing-written",
        logged: true,
      };
    }
    const report = await this.#inner.reconcileDetailed(hosts, signal, context);
    await this.#recordRefusals(report, signal);
    throwIfWritesFailed(this.description, report);
    return this.#labelled(report, hosts.length);
  }

  #labelled(report: ReconcileReport, requested: number): SinkOutcome {
    const outcome = report.outcome;
    if (outcome.kind !== "refused") return outcome;
    let scope: RefusalScope = "nothing-written";
    if (GUARD_PROBLEMS.has(outcome.problem)) scope = "guard";
    else if (HOST_PROBLEMS.has(outcome.problem)) {
      const refusedHosts = new Set(report.refused.map((refusal) => refusal.host)).size;
      scope = refusedHosts + report.failed.length < requested ? "some-hosts" : "nothing-written";
    }
    return { ...outcome, scope, logged: true };
  }

  /** Logs a change of targets: ERROR into an unusable state, INFO for addresses. */
  #announceTargets(targets: TargetsResult | undefined): void {
    if (targets === undefined) return;
    const key = JSON.stringify(targets);
    if (key === this.#announcedTargets) return;
    const before = this.#announcedTargets;
    this.#announcedTargets = key;
    if (targets.kind === "unusable") {
      this.#log.error(
        "external-dns: the proxy has no usable address, so no record is written or deleted until it has one",
        { problem: targets.problem, detail: targets.message },
      );
      return;
    }
    this.#log.info(
      before === undefined
        ? "external-dns: records point at the proxy's addresses"
        : "external-dns: the proxy's addresses changed; re-targeting the records",
      {
        targets: describeTargets(targets),
        ipv4: targets.targets.ipv4,
        ipv6: targets.targets.ipv6,
      },
    );
  }

  /** A Warning Event on every object that keeps a hostname from being published. */
  async #recordRefusals(report: ReconcileReport, signal: AbortSignal): Promise<void> {
    const blockers = new Map<string, string>();
    for (const refusal of report.refused) {
      const reason = EVENT_REASONS[refusal.problem];
      if (reason === undefined) continue;
      const uid = this.#blockers.get(refusal.name) ?? await this.#uidOf(refusal.name, signal);
      blockers.set(refusal.name, uid);
      const crd = this.#settings.output === "crd";
      await this.#recorder.record({
        object: {
          apiVersion: crd ? "externaldns.k8s.io/v1alpha1" : "v1",
          kind: recordNoun(this.#settings.output),
          namespace: this.#settings.namespace,
          name: refusal.name,
          uid,
        },
        type: "Warning",
        reason,
        message: refusal.message,
      }, signal);
    }
    this.#blockers = blockers;
  }

  /** The uid of the object at `name`, or `""` when it cannot be read (the Event still names it). */
  async #uidOf(name: string, signal: AbortSignal): Promise<string> {
    const where = { namespace: this.#settings.namespace, name };
    try {
      const object = this.#settings.output === "crd"
        ? await this.#client.get(DNS_ENDPOINT, where, { signal })
        : await this.#client.get(SERVICE, where, { signal });
      return object.metadata.uid;
    } catch {
      return "";
    }
  }
}

/** What external-dns mode is built from. */
export interface ExternalDnsModeSettings extends RecordSettings {
  /** `--external-dns-proxy-ip`: a fixed target; empty: the proxy Service's cluster IPs. */
  readonly proxyIp: string;
  /** `--external-dns-proxy-service`: the proxy Service's name. */
  readonly proxyService: string;
  /**
   * `--proxy-service-namespace`: where the proxy Service is looked up; empty: the pod's
   * namespace, else the records' namespace.
   */
  readonly proxyServiceNamespace: string;
}

/** How long the start-up orphan probe may take before it is skipped. */
const ORPHAN_PROBE_TIMEOUT_MS = 5_000;

/**
 * external-dns mode: records for every hostname, pointing at `--external-dns-proxy-ip` or at the
 * proxy Service, which is then watched as a prerequisite (nothing is written before it has
 * listed, and each change re-targets the records). At start, records of the other output left
 * by an earlier deployment are reported.
 */
export function externalDnsMode(settings: ExternalDnsModeSettings, context: ModeContext): Mode {
  let targets: TargetOrigin;
  let targetsFrom: string;
  if (settings.proxyIp !== "") {
    targets = { kind: "address", address: settings.proxyIp };
    targetsFrom = `--external-dns-proxy-ip=${settings.proxyIp}`;
  } else {
    const ref = {
      namespace: settings.proxyServiceNamespace || context.podNamespace || settings.namespace,
      name: settings.proxyService,
    };
    targets = { kind: "service", ref, store: context.watch(SERVICE, ref, "prerequisite") };
    targetsFrom = `Service ${ref.namespace}/${ref.name}`;
  }
  return {
    sink: new ExternalDnsModeSink({
      client: context.client,
      settings,
      targets,
      recorder: context.recorder,
    }),
    probe: async (signal) => {
      const probe = AbortSignal.any([signal, AbortSignal.timeout(ORPHAN_PROBE_TIMEOUT_MS)]);
      try {
        await probeOrphans(context.client, {
          activeOutput: settings.output,
          namespace: settings.namespace,
          instance: settings.instance,
        }, probe);
        return [];
      } catch (error) {
        // Only an abort gets here (shutdown, or the probe's deadline): the probe is best effort.
        return [{
          level: "debug",
          message: "the orphan probe did not finish; skipped",
          properties: { error: errorMessage(error) },
        }];
      }
    },
    details: {
      output: settings.output,
      recordsNamespace: settings.namespace,
      instance: settings.instance,
      ttl: settings.recordTtl,
      targetsFrom,
      annotations: Object.keys(settings.annotations).length,
      labels: Object.keys(settings.labels).length,
      ...(settings.output === "service" ? { annotationPrefix: settings.annotationPrefix } : {}),
    },
  };
}
