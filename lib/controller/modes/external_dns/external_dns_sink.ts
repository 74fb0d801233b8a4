/**
 * external-dns mode's {@linkcode Sink}: one set of records per wanted hostname, touching only
 * objects with both ownership labels. A pass reads the targets (none usable: refused before any API
 * call, so nothing is pruned), builds the records, hands them to the {@linkcode OwnedObjectWriter},
 * puts a Warning Event on each object in a hostname's way, and runs the DNSEndpoint status
 * surfacer. Retryable write failures make the pass `failed`; only then do its refusals ride along
 * as ERROR notices, so they are not lost. The sink never logs; a lasting problem drops to DEBUG.
 *
 * Effects: API reads and writes (through the writer) and Events; three bounded memories between
 * passes (targets announced, problems said, the surfacer's).
 *
 * @module
 */

import { isNotFound } from "../../../kube/errors.ts";
import { DNS_ENDPOINT } from "../../../resources/dns_endpoint.ts";
import { SERVICE } from "../../../resources/service.ts";
import { type Clock, systemClock } from "../../../util/clock.ts";
import { errorMessage } from "../../../util/error_message.ts";
import type { ModeContext, Notice, ReconcileContext, Sink, SinkOutcome } from "../sink.ts";
import {
  buildRecords,
  type FailedBuild,
  type HostBuild,
  recordGroups,
  type RecordSettings,
} from "./build_records.ts";
import { emptyDesiredMessage, nothingBuiltMessage, refusalMessage } from "./messages.ts";
import { observeDnsEndpoint, type ObservedRecord, observeService } from "./observed_record.ts";
import { ownedObjectApi, type OwnedObjectClient } from "../../../publisher/owned_object_api.ts";
import { ownedObjectsDiff, type PlannedWrites } from "../../../publisher/owned_object_diff.ts";
import type { ObjectRefusal, ObjectRefusalProblem } from "../../../publisher/owned_object_plan.ts";
import {
  notDeletedMessage,
  OwnedObjectWriter,
  type WriteAction,
  type WriteResult,
} from "../../../publisher/owned_object_writer.ts";
import { kubectlResource, recordOwnership } from "./ownership.ts";
import { currentTargets, targetNotices, type TargetOrigin } from "./proxy_targets.ts";
import { STATUS_GRACE_MS, surfaceStatus } from "./status_surfacer.ts";

/** What an {@linkcode ExternalDnsSink} needs. */
export interface ExternalDnsSinkOptions {
  readonly client: OwnedObjectClient;
  readonly settings: RecordSettings;
  /** Where the records point, read at the start of every pass. */
  readonly targets: TargetOrigin;
  /** Records Warning Events on the objects that keep a hostname from being published. */
  readonly recorder: ModeContext["recorder"];
  /** Measures the status surfacer's repeat window. @default systemClock */
  readonly clock?: Clock;
  /** Wall time, compared with DNSEndpoints' `creationTimestamp`. @default () => new Date() */
  readonly wallClock?: () => Date;
  /** `--dry-run`: plan every pass, write nothing (no Event either), answer `previewed`. @default false */
  readonly dryRun?: boolean;
}

/** The Event reason for each refusal that has an object to attach it to. */
const EVENT_REASONS: Partial<Record<ObjectRefusalProblem, string>> = {
  "foreign-object": "RecordNameTaken",
  "unreadable-object": "RecordUnreadable",
};

/** The writer's result once it got to write, or to plan in a dry run. */
type Applied = Extract<WriteResult<ObservedRecord>, { kind: "applied" | "planned" }>;

/** The DEBUG line of each write. */
const WRITE_MESSAGES: Readonly<Record<Exclude<WriteAction["kind"], "left-alone">, string>> = {
  created: "external-dns: record created",
  updated: "external-dns: record updated",
  deleted: "external-dns: record deleted",
};

/** A refusal with its operator-facing message. */
type WordedRefusal = ObjectRefusal & { readonly message: string };

/** `outcome` with `notices` attached, left out when there are none. */
function withNotices<T extends SinkOutcome>(outcome: T, notices: readonly Notice[]): T {
  return notices.length === 0 ? outcome : { ...outcome, notices };
}

/**
 * Problems at their level when new since the previous pass, at DEBUG (`repeated: true`) while
 * they last; with the memory for the next pass.
 */
function quietRepeats(
  problems: readonly Notice[],
  previous: ReadonlySet<string>,
): { readonly notices: Notice[]; readonly said: Set<string> } {
  const said = new Set<string>();
  const notices = problems.map((notice): Notice => {
    const key = `${notice.level}\n${notice.message}`;
    said.add(key);
    if (!previous.has(key)) return notice;
    return { level: "debug", message: notice.message, properties: { ...notice.properties, repeated: true } };
  });
  return { notices, said };
}

/** The planned writes whose action succeeded, for the diff of a write. */
function succeeded(
  writes: PlannedWrites<ObservedRecord>,
  actions: readonly WriteAction[],
): PlannedWrites<ObservedRecord> {
  const done = new Set(actions.filter((action) => action.kind !== "left-alone").map((action) => action.name));
  return {
    creates: writes.creates.filter((object) => done.has(object.name)),
    updates: writes.updates.filter((update) => done.has(update.desired.name)),
    deletes: writes.deletes.filter((object) => done.has(object.name)),
  };
}

/** The external-dns sink, both outputs (see the module documentation). */
export class ExternalDnsSink implements Sink {
  readonly description: string;
  readonly #settings: RecordSettings;
  readonly #origin: TargetOrigin;
  readonly #recorder: ModeContext["recorder"];
  readonly #writer: OwnedObjectWriter<ObservedRecord>;
  readonly #clock: Clock;
  readonly #wallClock: () => Date;
  readonly #dryRun: boolean;
  #announcedTargets: string | undefined;
  /** The problems said by the previous pass (see `quietRepeats`). */
  #said: ReadonlySet<string> = new Set();
  /** The status surfacer's memory: clock time of the last warning per object and problem. */
  #statusWarned: ReadonlyMap<string, number> = new Map();
  /** Clock time of this sink's last create or update per DNSEndpoint name. */
  #writtenAt = new Map<string, number>();

  /** Binds the sink to its client, settings and targets; it holds no resources. */
  constructor(options: ExternalDnsSinkOptions) {
    const { settings, client } = options;
    this.#settings = settings;
    this.#origin = options.targets;
    this.#recorder = options.recorder;
    this.#clock = options.clock ?? systemClock;
    this.#wallClock = options.wallClock ?? (() => new Date());
    this.#dryRun = options.dryRun ?? false;
    const bound = { client, namespace: settings.namespace, ownership: recordOwnership(settings.instance) };
    this.#writer = new OwnedObjectWriter(
      settings.output === "crd"
        ? ownedObjectApi({ ...bound, type: DNS_ENDPOINT, observe: observeDnsEndpoint })
        : ownedObjectApi({
          ...bound,
          type: SERVICE,
          observe: (service) => observeService(service, settings.annotationPrefix),
        }),
      { dryRun: this.#dryRun },
    );
    this.description = `external-dns ${kubectlResource(settings.output)} in ${settings.namespace} ` +
      `(instance ${settings.instance})`;
  }

  /**
   * Deletes every record this instance owns (`--cleanup`), past the mass-prune guard that stops an
   * ordinary pass from doing so; needs no targets. No record kind served (the DNSEndpoint CRD not
   * installed) is nothing to clean. Rejects only when `signal` aborts.
   */
  async cleanup(signal: AbortSignal): Promise<SinkOutcome> {
    const result = await this.#writer.pruneAll(signal);
    if (result.kind === "failed") {
      if (isNotFound(result.error)) return { kind: "unchanged", hosts: 0 };
      return { kind: "failed", message: errorMessage(result.error), cause: result.error };
    }
    if (result.failures.length > 0) {
      return {
        kind: "failed",
        message: `record(s): ${notDeletedMessage(result.failures)}`,
        cause: result.failures[0]!.error,
      };
    }
    return result.removed === 0
      ? { kind: "unchanged", hosts: 0 }
      : { kind: "written", hosts: 0, added: 0, removed: result.removed, names: result.names };
  }

  /** One pass; `context.sources` feeds the source annotation. Rejects only when `signal` aborts. */
  async reconcile(
    hosts: readonly string[],
    signal: AbortSignal,
    context: ReconcileContext = {},
  ): Promise<SinkOutcome> {
    signal.throwIfAborted();
    const targets = currentTargets(this.#origin);
    const announced = targetNotices(this.#announcedTargets, targets);
    this.#announcedTargets = announced.key;
    if (targets === undefined || targets.kind === "unusable") {
      return withNotices({
        kind: "refused",
        problem: targets?.problem ?? "no-targets",
        message: targets?.message ?? "the proxy's addresses are not known yet",
        scope: "nothing-written",
      }, announced.notices);
    }
    const settings = this.#settings;
    const builds = buildRecords({ hosts, targets, settings, sources: context.sources });
    const result = await this.#writer.write(recordGroups(builds, settings.output), signal);
    switch (result.kind) {
      case "failed":
        return withNotices(
          { kind: "failed", message: errorMessage(result.error), cause: result.error },
          announced.notices,
        );
      case "guarded": {
        this.#said = new Set();
        const message = result.guard === "empty-desired"
          ? emptyDesiredMessage(result.owned, settings)
          : nothingBuiltMessage(builds.filter((build): build is FailedBuild => build.kind === "failed"));
        const problem = result.guard === "empty-desired" ? "mass-prune-guard" : "nothing-built";
        return withNotices({ kind: "refused", problem, message, scope: "guard" }, announced.notices);
      }
      case "applied":
      case "planned": {
        const refused = result.refused.map((refusal) => ({
          ...refusal,
          message: refusalMessage(refusal, settings),
        }));
        // An Event is a write too: a dry run records none.
        if (!this.#dryRun) await this.#recordEvents(refused, signal);
        const actions = result.kind === "applied" ? result.actions : [];
        const failing = result.kind === "applied" && result.errors.length > 0;
        const notices = [
          ...announced.notices,
          ...this.#actionNotices(actions),
          ...this.#problemNotices(builds, failing ? refused : []),
          ...this.#statusNotices(result.listed, actions),
        ];
        return withNotices(this.#outcome(result, builds, refused), notices);
      }
    }
  }

  /**
   * The outcome of a pass that got to write; a refusal is `some-hosts` while other hostnames are
   * in place, else `nothing-written`.
   */
  #outcome(result: Applied, builds: readonly HostBuild[], refused: readonly WordedRefusal[]): SinkOutcome {
    const errors = result.kind === "applied" ? result.errors : [];
    if (errors.length > 0) {
      const [first] = errors;
      return {
        kind: "failed",
        message: `${this.description}: ${errors.length} write(s) failed and will be retried; first: ${
          errorMessage(first!.error)
        }`,
        cause: first!.error,
      };
    }
    if (refused.length > 0) {
      const shown = refused.slice(0, 3).map((refusal) => refusal.message).join("; ");
      const more = refused.length > 3 ? `; and ${refused.length - 3} more` : "";
      const held = new Set(refused.map((refusal) => refusal.group)).size +
        builds.filter((build) => build.kind === "failed").length;
      return {
        kind: "refused",
        problem: refused[0]!.problem,
        message: `${shown}${more}`,
        scope: held < builds.length ? "some-hosts" : "nothing-written",
      };
    }
    const { groups: hosts, added, removed, names } = result;
    const diff = ownedObjectsDiff(
      result.kind === "planned" ? result.writes : succeeded(result.writes, result.actions),
      { kind: this.#writer.kind, namespace: this.#settings.namespace },
    );
    if (result.kind === "planned") {
      return diff === ""
        ? { kind: "unchanged", hosts }
        : { kind: "previewed", hosts, added, removed, names, diff };
    }
    if (!result.actions.some((action) => action.kind !== "left-alone")) return { kind: "unchanged", hosts };
    return { kind: "written", hosts, added, removed, names, diff };
  }

  /** DEBUG for every write, INFO for a record left alone. */
  #actionNotices(actions: readonly WriteAction[]): Notice[] {
    const kind = this.#writer.kind;
    return actions.map((action): Notice => {
      if (action.kind === "left-alone") {
        return {
          level: "info",
          message: "external-dns: a record about to be pruned stopped being ouroboros'; left alone",
          properties: { kind, name: action.name },
        };
      }
      return {
        level: "debug",
        message: WRITE_MESSAGES[action.kind],
        properties: { kind, name: action.name, host: action.group },
      };
    });
  }

  /** Skipped hostnames (WARN) and, for a failed pass, its refusals (ERROR), said once while they last. */
  #problemNotices(builds: readonly HostBuild[], refused: readonly WordedRefusal[]): Notice[] {
    const problems: Notice[] = [
      ...builds.filter((build): build is FailedBuild => build.kind === "failed").map((build): Notice => ({
        level: "warn",
        message: `external-dns: ${build.host} skipped, its existing records are kept: ${build.message}`,
        properties: { host: build.host, problem: build.problem },
      })),
      ...refused.map((refusal): Notice => ({
        level: "error",
        message: refusal.message,
        properties: { host: refusal.group, name: refusal.name, problem: refusal.problem },
      })),
    ];
    const { notices, said } = quietRepeats(problems, this.#said);
    this.#said = said;
    return notices;
  }

  /** A Warning Event on every object that keeps a hostname from being published. */
  async #recordEvents(refused: readonly WordedRefusal[], signal: AbortSignal): Promise<void> {
    for (const refusal of refused) {
      const reason = EVENT_REASONS[refusal.problem];
      if (reason === undefined) continue;
      await this.#recorder.record({
        object: this.#writer.reference(refusal.name, refusal.uid),
        type: "Warning",
        reason,
        message: refusal.message,
      }, signal);
    }
  }

  /** The status surfacer's warnings (DNSEndpoint output only). */
  #statusNotices(listed: Applied["listed"], actions: readonly WriteAction[]): Notice[] {
    if (this.#settings.output !== "crd") return [];
    const clockMs = this.#clock.now();
    const deleted: string[] = [];
    for (const action of actions) {
      if (action.kind === "created" || action.kind === "updated") this.#writtenAt.set(action.name, clockMs);
      else if (action.kind === "deleted") deleted.push(action.name);
    }
    const settling = new Set<string>();
    for (const [name, at] of this.#writtenAt) {
      if (clockMs - at < STATUS_GRACE_MS) settling.add(name);
      else this.#writtenAt.delete(name);
    }
    const { notices, next } = surfaceStatus({
      namespace: this.#settings.namespace,
      listed,
      deleted,
      now: { wallMs: this.#wallClock().getTime(), clockMs },
      previous: this.#statusWarned,
      settling,
    });
    this.#statusWarned = next;
    return notices.map((notice) => ({
      level: "warn",
      message: notice.message,
      properties: notice.properties,
    }));
  }
}
