/**
 * external-dns mode's {@linkcode Sink}: makes the records namespace hold exactly one set of
 * records per wanted hostname (DNSEndpoints or annotated headless Services), touching only
 * objects that carry both ownership labels.
 *
 * One pass:
 * 1. build the desired records from the hostnames and the current targets;
 * 2. list the owned records by the ownership selector;
 * 3. plan (`plan.ts`); for every record to create, read its name first: a foreign object there
 *    refuses that hostname, an owned one the list missed is updated instead; plan again;
 * 4. create, update (a merge patch of the owned fields, at the planned resourceVersion; on 409
 *    re-read and retry once), delete (with uid and resourceVersion preconditions; 404 is fine,
 *    409 re-reads and retries once, and an object that stopped being ours is left alone).
 *
 * Updates are merge patches rather than PUTs of a re-read object: the decoded objects the client
 * returns are narrowed, so a PUT would drop fields ouroboros does not model (a Service's IP
 * families, traffic policies, session affinity), while a patch of just the owned fields leaves
 * them, and the status subresource, as they are.
 *
 * Every hostname is handled on its own: a refused or failing one never stops the others. The
 * pass then reports: `refused` when any hostname was refused or a guard stopped the pass, and
 * rejects when a retryable failure happened (after doing everything else it could). Refusals,
 * guards and skipped hostnames are logged (ERROR or WARN) when they appear, then at DEBUG while
 * they last.
 *
 * With DNSEndpoint output, a pass that was not guarded ends with the status surfacer
 * (`status_surfacer.ts`) over the listed DNSEndpoints it did not delete: a WARN, at most once per
 * object and problem every five minutes, when external-dns does not seem to process them. It
 * reads only the pass's listing (no extra API calls) and never changes the outcome.
 *
 * @module
 */

import { isAlreadyExists, isConflict, isInvalid, isNotFound } from "../../kube/errors.ts";
import type { JsonObject } from "../../resources/json.ts";
import { type Clock, systemClock } from "../../util/clock.ts";
import { logger } from "../../util/logging.ts";
import type { ReconcileContext, Sink, SinkOutcome } from "../sink.ts";
export type { ReconcileContext } from "../sink.ts";
import {
  emptyDesiredMessage,
  type MessageContext,
  nothingBuiltMessage,
  recordNoun,
  refusalMessage,
} from "./messages.ts";
import type { ObservedRecord } from "./observed.ts";
import { kubectlResource } from "./ownership.ts";
import {
  type FailedBuild,
  foreignInstance,
  type HostRefusal,
  type Plan,
  planRecords,
  updatePatch,
} from "./plan.ts";
import { type RecordApi, recordApi, type RecordClient } from "./record_api.ts";
import { buildRecords, type DesiredRecord, type HostBuild, type RecordSettings } from "./records.ts";
import { STATUS_GRACE_MS, surfaceStatus } from "./status_surfacer.ts";
import type { TargetsResult } from "./targets.ts";
import { errorMessage } from "../../util/error_message.ts";

const log = logger("sinks", "external-dns");

/** Everything one pass did, for Events, metrics and tests. */
export interface ReconcileReport {
  readonly outcome: SinkOutcome;
  /** Names created, updated and deleted by this pass. */
  readonly created: readonly string[];
  readonly updated: readonly string[];
  readonly deleted: readonly string[];
  /** Hostnames left alone, each with its operator-facing message. */
  readonly refused: readonly (HostRefusal & { readonly message: string })[];
  /** Hostnames that could not be built (their existing records are kept). */
  readonly failed: readonly FailedBuild[];
  /** Retryable failures; {@linkcode ExternalDnsSink.reconcile} rejects when there are any. */
  readonly errors: readonly unknown[];
}

/** How to build an {@linkcode ExternalDnsSink}. */
export interface ExternalDnsSinkOptions {
  readonly client: RecordClient;
  readonly settings: RecordSettings;
  /**
   * The current targets, read at the start of every pass; `undefined` until first resolved. The
   * controller re-resolves them when the proxy Service changes and then asks for a pass.
   */
  readonly targets: () => TargetsResult | undefined;
  /** Measures the status surfacer's repeat window. @default systemClock */
  readonly clock?: Clock;
  /** Wall time, compared with DNSEndpoints' `creationTimestamp`. @default () => new Date() */
  readonly wallClock?: () => Date;
}

interface PassState {
  readonly created: string[];
  readonly updated: string[];
  readonly deleted: string[];
  readonly refused: HostRefusal[];
  readonly errors: unknown[];
}

/** A problem to log once per transition. */
interface Notice {
  readonly level: "warn" | "error";
  readonly message: string;
  readonly properties: Readonly<Record<string, unknown>>;
}

function rethrowIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason;
}

/**
 * Rejects a pass with retryable write failures, the way {@linkcode ExternalDnsSink.reconcile}
 * does: the error, prefixed with the sink's `description`, says how many writes failed and
 * carries the first as its cause. Does nothing when there were none.
 */
export function throwIfWritesFailed(description: string, report: ReconcileReport): void {
  if (report.errors.length === 0) return;
  const [first] = report.errors;
  throw new Error(
    `${description}: ${report.errors.length} write(s) failed and will be retried; first: ${
      errorMessage(first)
    }`,
    { cause: first },
  );
}

/** The external-dns sink (both outputs). */
export class ExternalDnsSink implements Sink {
  readonly description: string;
  readonly #settings: RecordSettings;
  readonly #targets: () => TargetsResult | undefined;
  readonly #api: RecordApi;
  readonly #context: MessageContext;
  /** The problems logged by the previous pass (see `#announce`). */
  #announced = new Set<string>();
  readonly #clock: Clock;
  readonly #wallClock: () => Date;
  /** The status surfacer's memory: clock time of the last warning per object and problem. */
  #statusWarned: ReadonlyMap<string, number> = new Map();
  /** Clock time of this sink's last create or update per DNSEndpoint name. */
  #writtenAt = new Map<string, number>();

  /** Binds the sink to its client, settings and target source. */
  constructor(options: ExternalDnsSinkOptions) {
    this.#settings = options.settings;
    this.#targets = options.targets;
    this.#api = recordApi(options.client, options.settings);
    this.#context = options.settings;
    this.#clock = options.clock ?? systemClock;
    this.#wallClock = options.wallClock ?? (() => new Date());
    this.description =
      `external-dns ${kubectlResource(options.settings.output)} in ${options.settings.namespace} ` +
      `(instance ${options.settings.instance})`;
  }

  /**
   * One pass over `hosts` (see the module documentation). Rejects on retryable failures, after
   * doing everything else it could; `context.sources` feeds the source annotation.
   */
  async reconcile(
    hosts: readonly string[],
    signal: AbortSignal,
    context: ReconcileContext = {},
  ): Promise<SinkOutcome> {
    const report = await this.reconcileDetailed(hosts, signal, context);
    throwIfWritesFailed(this.description, report);
    return report.outcome;
  }

  /** {@linkcode reconcile} with everything the pass did; never rejects for per-object failures. */
  async reconcileDetailed(
    hosts: readonly string[],
    signal: AbortSignal,
    context: ReconcileContext = {},
  ): Promise<ReconcileReport> {
    signal.throwIfAborted();
    const output = this.#settings.output;
    const builds = buildRecords(hosts, this.#targets(), this.#settings, context.sources);
    const listing = await this.#api.list(signal);
    let plan = planRecords({ output, builds, owned: listing.owned, unreadable: listing.unreadable });
    if (plan.kind === "apply" && plan.creates.length > 0) {
      plan = await this.#replanWithLookups(plan, builds, listing.owned, listing.unreadable, signal);
    }

    if (plan.kind === "guarded") {
      const message = plan.guard === "empty-desired"
        ? emptyDesiredMessage(plan.owned, this.#context)
        : nothingBuiltMessage(plan.failed);
      this.#announce([{ level: "warn", message, properties: { sink: this.description, guard: plan.guard } }]);
      return {
        outcome: {
          kind: "refused",
          problem: plan.guard === "empty-desired" ? "mass-prune-guard" : "nothing-built",
          message,
          scope: "guard",
        },
        created: [],
        updated: [],
        deleted: [],
        refused: [],
        failed: plan.guard === "nothing-built" ? plan.failed : [],
        errors: [],
      };
    }

    const state: PassState = {
      created: [],
      updated: [],
      deleted: [],
      refused: [...plan.refused],
      errors: [],
    };
    for (const record of plan.creates) await this.#create(record, state, signal);
    for (const update of plan.updates) {
      await this.#update(update.record, update.observed, update.patch, state, signal);
    }
    for (const record of plan.deletes) await this.#delete(record, state, signal);

    const refused = state.refused.map((refusal) => ({
      ...refusal,
      message: refusalMessage(refusal, this.#context),
    }));
    this.#announce([
      ...plan.failed.map((build): Notice => ({
        level: "warn",
        message: `external-dns: ${build.host} skipped, its existing records are kept: ${build.message}`,
        properties: { host: build.host, problem: build.problem },
      })),
      ...refused.map((refusal): Notice => ({
        level: "error",
        message: refusal.message,
        properties: { host: refusal.host, name: refusal.name, problem: refusal.problem },
      })),
    ]);
    if (output === "crd") {
      this.#surfaceStatus(listing.owned, state.deleted, [...state.created, ...state.updated]);
    }
    return {
      outcome: this.#outcome(plan, state, refused),
      created: state.created,
      updated: state.updated,
      deleted: state.deleted,
      refused,
      failed: plan.failed,
      errors: state.errors,
    };
  }

  /**
   * Logs this pass's problems: at their level when new since the previous pass, at DEBUG while
   * they persist, so a standing problem is said once per transition instead of every pass.
   */
  #announce(notices: readonly Notice[]): void {
    const current = new Set<string>();
    for (const notice of notices) {
      const key = `${notice.level}\n${notice.message}`;
      current.add(key);
      if (this.#announced.has(key)) log.debug(notice.message, { ...notice.properties, repeated: true });
      else if (notice.level === "warn") log.warn(notice.message, notice.properties);
      else log.error(notice.message, notice.properties);
    }
    this.#announced = current;
  }

  /** Warns about listed DNSEndpoints external-dns does not seem to process (see the module documentation). */
  #surfaceStatus(
    listed: readonly ObservedRecord[],
    deleted: readonly string[],
    written: readonly string[],
  ): void {
    const clockMs = this.#clock.now();
    for (const name of written) this.#writtenAt.set(name, clockMs);
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
    for (const notice of notices) log.warn(notice.message, notice.properties);
  }

  #outcome(
    plan: Extract<Plan, { kind: "apply" }>,
    state: PassState,
    refused: readonly (HostRefusal & { readonly message: string })[],
  ): SinkOutcome {
    if (refused.length > 0) {
      const shown = refused.slice(0, 3).map((refusal) => refusal.message).join("; ");
      const more = refused.length > 3 ? `; and ${refused.length - 3} more` : "";
      const scope = new Set(refused.map((refusal) => refusal.host)).size < plan.hosts
        ? "some-hosts"
        : "nothing-written";
      return { kind: "refused", problem: refused[0]!.problem, message: `${shown}${more}`, scope };
    }
    const hosts = plan.hosts;
    if (state.created.length + state.updated.length + state.deleted.length === 0) {
      return { kind: "unchanged", hosts };
    }
    return { kind: "written", hosts, added: plan.added, removed: plan.removed };
  }

  /** Reads every name about to be created; plans again if any is taken. */
  async #replanWithLookups(
    plan: Extract<Plan, { kind: "apply" }>,
    builds: readonly HostBuild[],
    owned: readonly ObservedRecord[],
    unreadable: readonly string[],
    signal: AbortSignal,
  ): Promise<Plan> {
    const foundOwned: ObservedRecord[] = [];
    const foreign: ObservedRecord[] = [];
    const broken: string[] = [];
    for (const record of plan.creates) {
      const found = await this.#api.lookup(record.name, signal);
      if (found.kind === "owned") foundOwned.push(found.record);
      else if (found.kind === "foreign") foreign.push(found.record);
      else if (found.kind === "unreadable") broken.push(record.name);
    }
    if (foundOwned.length + foreign.length + broken.length === 0) return plan;
    return planRecords({
      output: this.#settings.output,
      builds,
      owned: [...owned, ...foundOwned],
      foreign,
      unreadable: [...unreadable, ...broken],
    });
  }

  #refuseInvalid(record: DesiredRecord, error: unknown, state: PassState): void {
    state.refused.push({
      host: record.host,
      name: record.name,
      problem: "invalid-object",
      detail: errorMessage(error),
    });
  }

  async #create(record: DesiredRecord, state: PassState, signal: AbortSignal): Promise<void> {
    try {
      await this.#api.create(record, signal);
      state.created.push(record.name);
      log.debug("external-dns: record created", {
        kind: this.#api.noun,
        name: record.name,
        host: record.host,
      });
    } catch (error) {
      rethrowIfAborted(signal);
      if (isInvalid(error)) return this.#refuseInvalid(record, error, state);
      if (!isAlreadyExists(error)) {
        state.errors.push(error);
        return;
      }
      // Created by someone since we looked: ours (another replica) is updated, anything else refused.
      await this.#afterRace(record, state, signal, "the name was taken while creating it");
    }
  }

  /** Re-reads a name after a lost race and acts on what holds it now. */
  async #afterRace(
    record: DesiredRecord,
    state: PassState,
    signal: AbortSignal,
    race: string,
  ): Promise<void> {
    const found = await this.#api.lookup(record.name, signal).catch((error: unknown) => {
      rethrowIfAborted(signal);
      state.errors.push(error);
      return undefined;
    });
    if (found === undefined) return;
    switch (found.kind) {
      case "absent":
        state.errors.push(new Error(`${this.#api.noun} ${record.name}: ${race}, then it disappeared`));
        return;
      case "foreign": {
        const instance = foreignInstance(found.record);
        state.refused.push({
          host: record.host,
          name: record.name,
          problem: "foreign-object",
          ...(instance === undefined ? {} : { foreignInstance: instance }),
        });
        return;
      }
      case "unreadable":
        state.refused.push({ host: record.host, name: record.name, problem: "unreadable-object" });
        return;
      case "owned": {
        const patch = updatePatch(record, found.record);
        if (patch !== undefined) await this.#update(record, found.record, patch, state, signal, false);
        return;
      }
    }
  }

  async #update(
    record: DesiredRecord,
    observed: ObservedRecord,
    patch: JsonObject,
    state: PassState,
    signal: AbortSignal,
    retry = true,
  ): Promise<void> {
    try {
      await this.#api.patch(observed, patch, signal);
      state.updated.push(record.name);
      log.debug("external-dns: record updated", {
        kind: this.#api.noun,
        name: record.name,
        host: record.host,
      });
    } catch (error) {
      rethrowIfAborted(signal);
      if (isInvalid(error)) return this.#refuseInvalid(record, error, state);
      if (isNotFound(error)) {
        if (retry) await this.#create(record, state, signal);
        else state.errors.push(error);
        return;
      }
      if (!isConflict(error) || !retry) {
        state.errors.push(error);
        return;
      }
      await this.#afterRace(record, state, signal, "it changed while updating it");
    }
  }

  async #delete(record: ObservedRecord, state: PassState, signal: AbortSignal, retry = true): Promise<void> {
    try {
      await this.#api.delete(record, signal);
      state.deleted.push(record.name);
      log.debug("external-dns: record deleted", {
        kind: this.#api.noun,
        name: record.name,
        host: record.host,
      });
    } catch (error) {
      rethrowIfAborted(signal);
      if (isNotFound(error)) return; // Already gone: what we wanted.
      if (!isConflict(error) || !retry) {
        state.errors.push(error);
        return;
      }
      const found = await this.#api.lookup(record.name, signal).catch((lookupError: unknown) => {
        rethrowIfAborted(signal);
        state.errors.push(lookupError);
        return undefined;
      });
      if (found?.kind === "owned") await this.#delete(found.record, state, signal, false);
      else if (found !== undefined && found.kind !== "absent") {
        log.info("external-dns: a record about to be pruned stopped being ouroboros'; left alone", {
          kind: recordNoun(this.#settings.output),
          name: record.name,
        });
      }
    }
  }
}
