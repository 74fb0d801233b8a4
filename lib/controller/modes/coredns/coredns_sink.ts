/**
 * coredns mode's sink: makes the ouroboros block in the CoreDNS Corefile (one data key of a
 * ConfigMap, `kube-system/coredns[Corefile]` by default) hold exactly the desired hostnames.
 *
 * Effects: HTTP through the injected client; time and randomness injected.
 *
 * Writes are merge patches of our key with the read `resourceVersion` as precondition: the key is
 * the whole Corefile, so a 409 beats silently dropping someone's edit (retried up to 5 times).
 * Refusals name the fix and become Warning Events; reverts of our write go to `revert_guard.ts`.
 * A write to a Corefile without `reload` WARNs once per resourceVersion. `dryRun` records no Event
 * and remembers no write. The sink never logs; `edit` and `wording` retarget it to node-local-dns.
 *
 * @module
 */

import { isConflict, isInvalid, isNotFound } from "../../../kube/errors.ts";
import type { EventRecorder } from "../../../kube/event_recorder.ts";
import { CONFIG_MAP, type ConfigMap } from "../../../resources/config_map.ts";
import { type Clock, systemClock } from "../../../util/clock.ts";
import { errorMessage } from "../../../util/error_message.ts";
import { unifiedDiff } from "../../../util/unified_diff.ts";
import { type BlockMarkers, DEFAULT_MARKERS } from "../markers.ts";
import { hostnameChange, type Notice, type Sink, type SinkOutcome } from "../sink.ts";
import { CONFIGMAP_DATA_LIMIT, configMapDataBytes } from "./configmap_data_bytes.ts";
import { recordWarning, refuseWithWarning, type WarningTarget } from "./configmap_warning.ts";
import { applyCorefileBlock, type CorefileEdit } from "./corefile/apply_corefile_block.ts";
import { isMarkerProblem } from "./corefile/corefile_refusal.ts";
import { COREDNS_WORDING, type CorefileSinkWording } from "./corefile_sink_wording.ts";
import type { ConfigMapApi, CorefileLocation } from "./corefile_location.ts";
import { RevertGuard, type RevertGuardOptions } from "./revert_guard.ts";
import { transientFailure } from "./transient_failure.ts";

/** Options for {@linkcode CorednsSink}. */
export interface CorednsSinkOptions {
  readonly client: ConfigMapApi;
  readonly target: CorefileLocation;
  /** The rewrite target, ending with a dot. */
  readonly proxyFqdn: string;
  /** Default: the original's markers. */
  readonly markers?: BlockMarkers;
  /** No Events when absent. */
  readonly recorder?: Pick<EventRecorder, "record">;
  /** @default systemClock */
  readonly clock?: Clock;
  /** Random numbers in [0, 1) for the jitter. @default Math.random */
  readonly random?: () => number;
  /** Tries per reconcile when writes conflict. @default 5 */
  readonly maxAttempts?: number;
  /** The first pause after a conflict; doubles per attempt, plus up to 10 % jitter. @default 10 */
  readonly conflictPauseMs?: number;
  readonly revertGuard?: RevertGuardOptions;
  /** `--dry-run`: stop right before the patch and answer `previewed`. */
  readonly dryRun?: boolean;
  /** Default: coredns mode's block. */
  readonly edit?: CorefileEditFn;
  /** @default COREDNS_WORDING */
  readonly wording?: CorefileSinkWording;
}

/** One pass's pure edit: the Corefile as read and the desired hosts in, the decision out. */
export type CorefileEditFn = (
  corefile: string,
  hosts: readonly string[],
) => CorefileEdit & { readonly notices?: readonly Notice[] };

/** Event reasons this sink records. */
export const COREFILE_EVENT_REASONS = {
  markersDamaged: "CorefileMarkersDamaged",
  notEditable: "CorefileNotEditable",
  keyMissing: "CorefileKeyMissing",
  immutable: "ConfigMapImmutable",
  tooLarge: "ConfigMapTooLarge",
  writeRejected: "CorefileWriteRejected",
  reverted: "CorefileReverted",
} as const;

type Attempt =
  | { readonly kind: "done"; readonly outcome: SinkOutcome }
  | { readonly kind: "conflict"; readonly error: unknown };

interface Pass {
  readonly hosts: readonly string[];
  readonly signal: AbortSignal;
  readonly notices: Notice[];
}

/** What we last wrote, for revert detection. */
interface LastWrite {
  /** The hosts, joined. */
  readonly hosts: string;
  readonly at: number;
  revertSeen: boolean;
}

/** The coredns mode sink. */
export class CorednsSink implements Sink {
  readonly description: string;
  readonly #client: ConfigMapApi;
  readonly #target: CorefileLocation;
  readonly #where: string;
  readonly #recorder: Pick<EventRecorder, "record"> | undefined;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #maxAttempts: number;
  readonly #pauseMs: number;
  readonly #guard: RevertGuard;
  readonly #dryRun: boolean;
  readonly #edit: CorefileEditFn;
  readonly #words: CorefileSinkWording;
  #lastWrite: LastWrite | undefined;
  #reloadWarnedAt: string | undefined;

  constructor(options: CorednsSinkOptions) {
    this.#client = options.client;
    this.#target = options.target;
    this.#where = `${options.target.namespace}/${options.target.configmap}`;
    this.#words = options.wording ?? COREDNS_WORDING;
    this.description = `${this.#words.name} ${this.#where}[${options.target.key}]`;
    const fqdn = options.proxyFqdn;
    const markers = options.markers ?? DEFAULT_MARKERS;
    this.#edit = options.edit ??
      ((corefile, hosts) => applyCorefileBlock(corefile, { hosts, fqdn, markers }));
    // An Event is a write too: a dry run records none.
    this.#recorder = options.dryRun ? undefined : options.recorder;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#maxAttempts = options.maxAttempts ?? 5;
    this.#pauseMs = options.conflictPauseMs ?? 10;
    this.#guard = new RevertGuard(options.revertGuard);
    this.#dryRun = options.dryRun ?? false;
  }

  /** Makes the block hold `hosts` (sorted, de-duplicated, validated by the caller). */
  async reconcile(hosts: readonly string[], signal: AbortSignal): Promise<SinkOutcome> {
    signal.throwIfAborted();
    const pass: Pass = { hosts, signal, notices: [] };
    let conflict: unknown;
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
      const result = await this.#attempt(pass);
      if (result.kind === "done") return withNotices(result.outcome, pass.notices);
      conflict = result.error;
      pass.notices.push({
        level: "debug",
        message: "Corefile changed between our read and our write; reading it again",
        properties: { configmap: this.#where, attempt },
      });
      if (attempt === this.#maxAttempts) break;
      const pause = this.#pauseMs * 2 ** (attempt - 1) * (1 + 0.1 * this.#random());
      if (!(await this.#clock.sleep(pause, signal))) signal.throwIfAborted();
    }
    const message = `ConfigMap ${this.#where} changed under us on each of ${this.#maxAttempts} attempts ` +
      "(409 Conflict); another writer is busy with it, will retry with backoff";
    return withNotices({ kind: "failed", message, cause: conflict }, pass.notices);
  }

  async #attempt(pass: Pass): Promise<Attempt> {
    const { hosts, signal } = pass;
    const ref = { namespace: this.#target.namespace, name: this.#target.configmap };
    let configMap: ConfigMap;
    try {
      configMap = await this.#client.get(CONFIG_MAP, ref, { signal });
    } catch (error) {
      if (isNotFound(error)) return done(this.#missing());
      return done(transientFailure(error, signal));
    }
    const on: WarningTarget = { configMap, recorder: this.#recorder, signal };
    const { key } = this.#target;
    const corefile = configMap.data[key];
    if (corefile === undefined) {
      return done(
        await refuseWithWarning(on, {
          problem: "key-missing",
          reason: COREFILE_EVENT_REASONS.keyMissing,
          message:
            `ConfigMap ${this.#where} has no ${JSON.stringify(key)} key, so there is no Corefile to edit; ` +
            `set ${this.#words.keyFlag} to the key that holds the Corefile`,
        }),
      );
    }

    const edit = this.#edit(corefile, hosts);
    pass.notices.push(...(edit.notices ?? []));
    if (edit.kind === "unchanged") return done({ kind: "unchanged", hosts: hosts.length });
    if (edit.kind === "refused") {
      const reason = isMarkerProblem(edit.problem)
        ? COREFILE_EVENT_REASONS.markersDamaged
        : COREFILE_EVENT_REASONS.notEditable;
      const message = `ConfigMap ${this.#where} key ${JSON.stringify(key)}: ${edit.message}`;
      return done(await refuseWithWarning(on, { problem: edit.problem, reason, message }));
    }

    const joined = hosts.join(" ");
    const blocked = await this.#beforeWrite(pass, on, { hostsKey: joined, corefile: edit.corefile });
    if (blocked !== undefined) return done(blocked);
    const change = {
      hosts: hosts.length,
      ...hostnameChange(edit.previousHosts, hosts),
      diff: unifiedDiff(corefile, edit.corefile, { label: `${this.#where}[${key}]` }),
    };
    if (this.#dryRun) return done({ kind: "previewed", ...change });
    try {
      await this.#client.mergePatch(
        CONFIG_MAP,
        ref,
        { data: { [key]: edit.corefile } },
        { resourceVersion: configMap.metadata.resourceVersion, signal },
      );
    } catch (error) {
      if (isConflict(error)) return { kind: "conflict", error };
      if (isNotFound(error)) return done(this.#missing());
      if (isInvalid(error)) {
        return done(
          await refuseWithWarning(on, {
            problem: "rejected",
            reason: COREFILE_EVENT_REASONS.writeRejected,
            message: `the API server refused the new Corefile for ConfigMap ${this.#where}: ` +
              `${errorMessage(error)}`,
          }),
        );
      }
      return done(transientFailure(error, signal));
    }
    this.#lastWrite = { hosts: joined, at: this.#clock.now(), revertSeen: false };
    if (!edit.reload && this.#reloadWarnedAt !== configMap.metadata.resourceVersion) {
      this.#reloadWarnedAt = configMap.metadata.resourceVersion;
      pass.notices.push({
        level: "warn",
        message:
          "the Corefile has no 'reload' plugin: the ouroboros block is written, but CoreDNS applies it " +
          `only after its pods restart; add 'reload' to ${this.#words.reloadWhere}`,
        properties: { namespace: this.#target.namespace, configmap: this.#target.configmap },
      });
    }
    return done({ kind: "written", ...change });
  }

  /** Revert detection and hold-off, immutability, size: a refusal, or `undefined` to go ahead. */
  async #beforeWrite(
    pass: Pass,
    on: WarningTarget,
    write: { readonly hostsKey: string; readonly corefile: string },
  ): Promise<SinkOutcome | undefined> {
    const { configMap } = on;
    const now = this.#clock.now();
    const last = this.#lastWrite;
    if (last !== undefined && last.hosts === write.hostsKey && !last.revertSeen) {
      last.revertSeen = true;
      await this.#reverted(pass, on, now);
    }
    const gate = this.#guard.writeGate(now, last?.at);
    if (!gate.allowed) {
      return {
        kind: "refused",
        scope: "nothing-written",
        problem: "reverted",
        recheckAfterMs: gate.waitMs,
        message: `another writer keeps replacing the ouroboros block in ConfigMap ${this.#where} ` +
          `(${gate.reverts} times recently); not rewriting it for another ${seconds(gate.waitMs)}. ` +
          this.#words.revertRemedy,
      };
    }
    if (configMap.immutable) {
      return await refuseWithWarning(on, {
        problem: "immutable",
        reason: COREFILE_EVENT_REASONS.immutable,
        message: `ConfigMap ${this.#where} is immutable, so its Corefile cannot be edited; ` +
          "recreate it without immutable: true, or use coredns-import mode",
      });
    }
    const bytes = configMapDataBytes({ ...configMap.data, [this.#target.key]: write.corefile });
    if (bytes > CONFIGMAP_DATA_LIMIT) {
      return await refuseWithWarning(on, {
        problem: "too-large",
        reason: COREFILE_EVENT_REASONS.tooLarge,
        message:
          `writing ${pass.hosts.length} ${this.#words.units} would make ConfigMap ${this.#where} hold ${bytes} bytes of data, ` +
          `over the ${CONFIGMAP_DATA_LIMIT}-byte limit; nothing written, the previous Corefile stays. ` +
          "Narrow the hostnames (--ingress-class, --gateway-class) or use another mode",
      });
    }
    return undefined;
  }

  #missing(): SinkOutcome {
    return {
      kind: "refused",
      scope: "nothing-written",
      problem: "configmap-missing",
      message: `ConfigMap ${this.#where} does not exist, so there is no Corefile to edit; ` +
        `check ${this.#words.whereFlags} (ouroboros never creates it)`,
    };
  }

  async #reverted(pass: Pass, on: WarningTarget, now: number): Promise<void> {
    const verdict = this.#guard.observeRevert(now);
    pass.notices.push({
      level: "debug",
      message: "the ouroboros block was reverted by another writer",
      properties: { configmap: this.#where, reverts: verdict.reverts },
    });
    if (verdict.kind !== "fight-started") return;
    const { windowMs, maxHoldOffMs } = this.#guard.settings;
    const message = `another writer reverted the ouroboros block in ConfigMap ${this.#where} ` +
      `${verdict.reverts} times within ${minutes(windowMs)} (a GitOps tool owning the Corefile?); ` +
      `ouroboros now waits ${seconds(verdict.holdOffMs)}, doubling up to ${minutes(maxHoldOffMs)}, ` +
      `between rewrites. ${this.#words.revertRemedy}`;
    pass.notices.push({
      level: "warn",
      message,
      properties: { namespace: this.#target.namespace, configmap: this.#target.configmap },
    });
    await recordWarning(on, { reason: COREFILE_EVENT_REASONS.reverted, message });
  }
}

function done(outcome: SinkOutcome): Attempt {
  return { kind: "done", outcome };
}

function withNotices(outcome: SinkOutcome, notices: readonly Notice[]): SinkOutcome {
  return notices.length === 0 ? outcome : { ...outcome, notices: [...notices] };
}

function minutes(ms: number): string {
  const value = Math.round(ms / 6_000) / 10;
  return `${value} minute${value === 1 ? "" : "s"}`;
}

function seconds(ms: number): string {
  return `${Math.ceil(ms / 1000)} s`;
}
