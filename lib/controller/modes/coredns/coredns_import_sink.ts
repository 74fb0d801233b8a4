/**
 * coredns-import mode's sink: keeps one key (`ouroboros.override`) of the import ConfigMap
 * (`kube-system/coredns-custom`) equal to one `rewrite name` line per desired hostname, deleting
 * it when there are none. CoreDNS imports the key; the Corefile is never written in this mode.
 *
 * Effects: HTTP through the injected client; Events through the injected recorder.
 *
 * The ConfigMap is never created: an unmounted one would look healthy while doing nothing.
 * Patches name only our key and carry no precondition: nobody else writes the key, and the value
 * comes from the full desired set, so a stale read costs at most one redundant write.
 *
 * @module
 */

import { isInvalid, isNotFound } from "../../../kube/errors.ts";
import type { EventRecorder } from "../../../kube/event_recorder.ts";
import { CONFIG_MAP, type ConfigMap } from "../../../resources/config_map.ts";
import { errorMessage } from "../../../util/error_message.ts";
import { unifiedDiff } from "../../../util/unified_diff.ts";
import { hostnameChange, type Sink, type SinkOutcome } from "../sink.ts";
import { CONFIGMAP_DATA_LIMIT, configMapDataBytes } from "./configmap_data_bytes.ts";
import { refuseWithWarning, type WarningTarget } from "./configmap_warning.ts";
import { importLineFor } from "./corefile/import_line.ts";
import { importDataChange, importSnippet, snippetHosts } from "./corefile/import_snippet.ts";
import { rewriteInputProblem } from "./corefile/rewrite_rule.ts";
import type { ConfigMapApi, CorefileLocation } from "./corefile_location.ts";
import { transientFailure } from "./transient_failure.ts";

/** Options for {@linkcode CorednsImportSink}. */
export interface CorednsImportSinkOptions {
  readonly client: ConfigMapApi;
  /** The import ConfigMap and the key we own. */
  readonly target: CorefileLocation;
  /** The rewrite target, ending with a dot. */
  readonly proxyFqdn: string;
  /** No Events when absent. */
  readonly recorder?: Pick<EventRecorder, "record">;
  /** `--dry-run`: stop right before the patch and answer `previewed`; record no Event. */
  readonly dryRun?: boolean;
}

/** Event reasons this sink records. */
export const IMPORT_EVENT_REASONS = {
  immutable: "ConfigMapImmutable",
  tooLarge: "ConfigMapTooLarge",
  writeRejected: "ImportKeyWriteRejected",
} as const;

/** The coredns-import mode sink. */
export class CorednsImportSink implements Sink {
  readonly description: string;
  readonly #client: ConfigMapApi;
  readonly #target: CorefileLocation;
  readonly #where: string;
  readonly #fqdn: string;
  readonly #recorder: Pick<EventRecorder, "record"> | undefined;
  readonly #dryRun: boolean;

  constructor(options: CorednsImportSinkOptions) {
    this.#client = options.client;
    this.#target = options.target;
    this.#where = `${options.target.namespace}/${options.target.configmap}`;
    this.description = `coredns-import ${this.#where}[${options.target.key}]`;
    this.#fqdn = options.proxyFqdn;
    this.#dryRun = options.dryRun ?? false;
    // An Event is a write too: a dry run records none.
    this.#recorder = this.#dryRun ? undefined : options.recorder;
  }

  /** Makes our key hold `hosts` (sorted, de-duplicated, validated by the caller). */
  async reconcile(hosts: readonly string[], signal: AbortSignal): Promise<SinkOutcome> {
    signal.throwIfAborted();
    const problem = rewriteInputProblem(hosts, this.#fqdn);
    if (problem !== undefined) {
      return {
        kind: "refused",
        scope: "nothing-written",
        problem: problem.field === "host" ? "invalid-host" : "invalid-fqdn",
        message: `refusing to write a rewrite rule: ${problem.reason}`,
      };
    }
    const ref = { namespace: this.#target.namespace, name: this.#target.configmap };
    let configMap: ConfigMap;
    try {
      configMap = await this.#client.get(CONFIG_MAP, ref, { signal });
    } catch (error) {
      if (isNotFound(error)) return this.#missing();
      return transientFailure(error, signal);
    }
    const on: WarningTarget = { configMap, recorder: this.#recorder, signal };
    const { key } = this.#target;
    const existing = configMap.data[key];
    const desired = importSnippet(hosts, this.#fqdn);
    const change = importDataChange(existing, desired);
    if (change === "none") return { kind: "unchanged", hosts: hosts.length };

    if (configMap.immutable) {
      return await refuseWithWarning(on, {
        problem: "immutable",
        reason: IMPORT_EVENT_REASONS.immutable,
        message:
          `ConfigMap ${this.#where} is immutable, so ouroboros cannot write its ${
            JSON.stringify(key)
          } key; ` +
          "recreate it without immutable: true",
      });
    }
    if (desired !== undefined) {
      const bytes = configMapDataBytes({ ...configMap.data, [key]: desired });
      if (bytes > CONFIGMAP_DATA_LIMIT) {
        return await refuseWithWarning(on, {
          problem: "too-large",
          reason: IMPORT_EVENT_REASONS.tooLarge,
          message:
            `writing ${hosts.length} rewrite rules would make ConfigMap ${this.#where} hold ${bytes} bytes of data, ` +
            `over the ${CONFIGMAP_DATA_LIMIT}-byte limit; nothing written, the previous rules stay. ` +
            "Narrow the hostnames (--ingress-class, --gateway-class) or move other keys out of this ConfigMap",
        });
      }
    }

    const counted = {
      hosts: hosts.length,
      ...hostnameChange(snippetHosts(existing ?? ""), hosts),
      diff: unifiedDiff(existing ?? "", desired ?? "", { label: `${this.#where}[${key}]` }),
    };
    if (this.#dryRun) return { kind: "previewed", ...counted };
    try {
      await this.#client.mergePatch(CONFIG_MAP, ref, { data: { [key]: desired ?? null } }, { signal });
    } catch (error) {
      if (isNotFound(error)) return this.#missing();
      if (isInvalid(error)) {
        return await refuseWithWarning(on, {
          problem: "rejected",
          reason: IMPORT_EVENT_REASONS.writeRejected,
          message: `the API server refused the new ${JSON.stringify(key)} key of ConfigMap ${this.#where}: ` +
            `${errorMessage(error)}`,
        });
      }
      return transientFailure(error, signal);
    }
    return { kind: "written", ...counted };
  }

  #missing(): SinkOutcome {
    return {
      kind: "refused",
      scope: "nothing-written",
      problem: "import-configmap-missing",
      message: `ConfigMap ${this.#where} does not exist. coredns-import mode needs it as a prerequisite: ` +
        `create it (kubectl --namespace ${this.#target.namespace} create configmap ${this.#target.configmap}), ` +
        "mount it into the CoreDNS pods at /etc/coredns/custom as a directory (not with subPath), and add " +
        `"${importLineFor(this.#target.key)}" to the .:53 block of the Corefile. ` +
        "ouroboros never creates it",
    };
  }
}
