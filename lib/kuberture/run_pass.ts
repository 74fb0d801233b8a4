/**
 * One kuberture pass: plan the outputs, then hand them to the publisher's writer, one per kind
 * (Services, DNSEndpoints), writing by server-side apply as `kuberture` (forced). The writer
 * refuses a name held by an object without this instance's labels (that output only), prunes
 * what no output wants, and prunes nothing when no output resolved. A dry run writes nothing and
 * reports diffs. The report is a value; the runtime logs it.
 *
 * Effects: API calls through the client, whose write fence stops a replica that no longer leads.
 *
 * @module
 */

import type { Manifest } from "../kube/client.ts";
import { isForbidden, isNotFound, WriteFencedError } from "../kube/errors.ts";
import type { InvolvedObject } from "../resources/event.ts";
import { DNS_ENDPOINT } from "../resources/dns_endpoint.ts";
import type { EndpointSlice } from "../resources/endpoint_slice.ts";
import type { KubeObject } from "../resources/kube_object.ts";
import type { Node } from "../resources/node.ts";
import type { ResourceType } from "../resources/resource_type.ts";
import { SERVICE } from "../resources/service.ts";
import { ownedObjectApi, type OwnedObjectClient } from "../publisher/owned_object_api.ts";
import { type ObjectRefusal, observedMeta, type ObservedObject } from "../publisher/owned_object_plan.ts";
import { OwnedObjectWriter, type WriteResult } from "../publisher/owned_object_writer.ts";
import { errorMessage } from "../util/error_message.ts";
import { unifiedDiff } from "../util/unified_diff.ts";
import type { KubertureConfig } from "./config/kuberture_config.ts";
import { type OutputStep, type OwnedKind, planKuberturePass, writerGroups } from "./kuberture_plan.ts";
import { FIELD_MANAGER, kubertureOwnership, type Owner } from "./output_object.ts";

/** The calls a pass makes (the publisher's writer's). */
export type PassApi = OwnedObjectClient;

/** What happened to one output. */
export type OutputResult =
  /** Applied; `changed` when the server stored a new version. */
  | {
    readonly kind: "written";
    readonly output: string;
    readonly name: string;
    readonly changed: boolean;
    readonly addresses: number;
  }
  /** Dry run: what would be written (`diff` empty: already as desired). */
  | {
    readonly kind: "previewed";
    readonly output: string;
    readonly name: string;
    readonly diff: string;
    readonly addresses: number;
  }
  /** No address resolved: the published object, if any, is kept as it is. */
  | { readonly kind: "kept"; readonly output: string; readonly name: string }
  /** The name is held by an object that is not this instance's: left alone. */
  | {
    readonly kind: "refused";
    readonly output: string;
    readonly name: string;
    readonly objectKind: OwnedKind;
    /** The object in the way, for a Warning Event on it. */
    readonly object: InvolvedObject;
    readonly message: string;
  }
  | {
    readonly kind: "failed";
    readonly output: string;
    readonly name: string;
    readonly message: string;
    /** Not sent because this replica no longer leads: a hand-over, not a fault (the loop says it). */
    readonly fenced?: true;
  };

/** What happened to one stale object. */
export type PruneResult =
  | { readonly kind: "deleted" | "previewed"; readonly objectKind: OwnedKind; readonly name: string }
  | {
    readonly kind: "failed";
    readonly objectKind: OwnedKind;
    readonly name: string;
    readonly message: string;
  };

/** A pass's report. `listFailed` set: the outputs of the kind that could not be listed are left out. */
export interface PassReport {
  readonly outputs: readonly OutputResult[];
  /** Per output name: what a `node-*` source could not map (absent: everything mapped). */
  readonly unresolved?: Readonly<Record<string, string>>;
  readonly prune: readonly PruneResult[];
  readonly listFailed?: string;
  /** Listing DNSEndpoints was refused (403) with no `crd` output: stale ones cannot be pruned. */
  readonly endpointsUnlisted?: string;
}

/**
 * What kept a pass from succeeding (an output failed, a prune failed, a listing failed), in words,
 * the first such thing; `undefined` when every output and prune went through. A refusal (an
 * object of the output's name that is not ours) is no failure of the pass: retrying cannot clear
 * it, and counting it would keep the replica unready and block a rollout while the other outputs
 * publish. It stays visible: ERROR once per change, a Warning Event, a metric.
 */
export function passProblem(report: PassReport): string | undefined {
  if (report.listFailed !== undefined) return `cannot list this instance's objects: ${report.listFailed}`;
  const output = report.outputs.find((result) => result.kind === "failed");
  if (output?.kind === "failed") return `output ${output.output}: ${output.message}`;
  const prune = report.prune.find((result) => result.kind === "failed");
  if (prune?.kind === "failed") return `deleting ${prune.objectKind} ${prune.name}: ${prune.message}`;
  return undefined;
}

/** What a pass reads besides the API. */
export interface PassInput {
  readonly config: KubertureConfig;
  readonly slices: readonly EndpointSlice[];
  readonly nodes: readonly Node[];
  readonly namespace: string;
  readonly instance: string;
  readonly owner: Owner | undefined;
  /**
   * Whether to list DNSEndpoints although no output writes them, to prune one left by an earlier
   * `crd` output. The runtime asks for it at its first pass and while a `crd` output has been
   * configured since start, so a cluster that never used one is not asked on every pass.
   */
  readonly listDnsEndpoints: boolean;
}

/** How a pass runs. */
export interface RunPassOptions {
  readonly api: PassApi;
  readonly dryRun: boolean;
  readonly signal: AbortSignal;
}

const TYPES: Readonly<Record<OwnedKind, ResourceType<KubeObject>>> = {
  Service: SERVICE,
  DNSEndpoint: DNS_ENDPOINT,
};

/** A listed object as the writer compares it, with the whole object kept for dry-run diffs. */
interface Listed extends ObservedObject {
  readonly object: KubeObject;
}

/** Runs one pass. Never rejects for API failures (they are in the report); rejects when `signal` aborts. */
export async function runPass(input: PassInput, options: RunPassOptions): Promise<PassReport> {
  const plan = planKuberturePass(input);
  const results = new Map<string, OutputResult>();
  const prune: PruneResult[] = [];
  const listFailures: string[] = [];
  let endpointsUnlisted: string | undefined;
  const writesCrd = plan.outputs.some((step) => step.objectKind === "DNSEndpoint");
  const kinds = writesCrd || input.listDnsEndpoints
    ? ["Service", "DNSEndpoint"] as const
    : ["Service"] as const;
  for (const kind of kinds) {
    const writer = new OwnedObjectWriter(
      ownedObjectApi({
        client: options.api,
        type: TYPES[kind],
        namespace: input.namespace,
        ownership: kubertureOwnership(input.instance),
        observe: (object): Listed => ({ ...observedMeta(object.metadata), spec: {}, object }),
        fieldManager: FIELD_MANAGER,
        serverSideApply: true,
      }),
      { dryRun: options.dryRun },
    );
    const result = await writer.write(writerGroups(plan, kind), options.signal);
    const steps = plan.outputs.filter((step) => step.objectKind === kind);
    if (result.kind === "failed") {
      // Where the CRD is not installed there are no DNSEndpoints; kuberture's own chart grants
      // Services only, so a refusal to list them must not stop a drop-in that writes none.
      if (kind === "DNSEndpoint" && !writesCrd && isNotFound(result.error)) continue;
      if (kind === "DNSEndpoint" && !writesCrd && isForbidden(result.error)) {
        endpointsUnlisted =
          `listing DNSEndpoints in ${input.namespace} was refused (${
            errorMessage(result.error)
          }), so one left by an earlier output: crd would not be deleted; grant list and delete on ` +
          `dnsendpoints.externaldns.k8s.io in ${input.namespace} (this chart does)`;
        continue;
      }
      listFailures.push(`${kind}s: ${errorMessage(result.error)}`);
      continue;
    }
    for (const step of steps) results.set(step.output.name, outputResult(step, result, writer, input));
    prune.push(...pruneResults(kind, result));
  }
  const outputs = plan.outputs.flatMap((step) => results.get(step.output.name) ?? []);
  const unresolved = Object.fromEntries(
    plan.outputs.filter((step) => step.unresolved !== "").map((step) => [step.output.name, step.unresolved]),
  );
  return {
    outputs,
    prune,
    unresolved,
    ...(listFailures.length === 0 ? {} : { listFailed: listFailures.join("; ") }),
    ...(endpointsUnlisted === undefined ? {} : { endpointsUnlisted }),
  };
}

/** What the writer's answer means for one output of its kind. */
function outputResult(
  step: OutputStep,
  result: Exclude<WriteResult<Listed>, { kind: "failed" }>,
  writer: OwnedObjectWriter<Listed>,
  input: PassInput,
): OutputResult {
  const base = { output: step.output.name, name: step.output.serviceName };
  if (step.kind === "keep" || result.kind === "guarded") return { kind: "kept", ...base };
  const refusal = result.refused.find((refused) => refused.group === step.output.name);
  if (refusal !== undefined) return refusalResult(refusal, step, writer, input);
  const addresses = step.addresses.length;
  if (result.kind === "planned") {
    const existing = result.writes.updates.find((update) => update.observed.name === base.name)?.observed
      .object;
    return { kind: "previewed", ...base, diff: previewDiff(existing, step.desired.manifest), addresses };
  }
  const failure = result.errors.find((failed) => failed.group === step.output.name);
  if (failure !== undefined) {
    const fenced = failure.error instanceof WriteFencedError ? { fenced: true as const } : {};
    return { kind: "failed", ...base, message: errorMessage(failure.error), ...fenced };
  }
  const changed = result.actions.some((action) =>
    action.group === step.output.name && (action.kind === "created" || action.kind === "updated")
  );
  return { kind: "written", ...base, changed, addresses };
}

function refusalResult(
  refusal: ObjectRefusal,
  step: OutputStep,
  writer: OwnedObjectWriter<Listed>,
  input: PassInput,
): OutputResult {
  const base = { output: step.output.name, name: refusal.name };
  const where = `${step.objectKind} ${input.namespace}/${refusal.name}`;
  switch (refusal.problem) {
    case "foreign-object":
      return {
        kind: "refused",
        ...base,
        objectKind: step.objectKind,
        object: writer.reference(refusal.name, refusal.uid ?? ""),
        message: `${where} exists and is not kuberture's (it lacks the labels app.kubernetes.io/managed-by=` +
          `kuberture and kuberture/instance=${input.instance}); it is left alone: delete or rename it, or ` +
          "give this output another serviceName",
      };
    case "unreadable-object":
      return { kind: "failed", ...base, message: `${where} carries kuberture's labels but cannot be read` };
    case "invalid-object":
      return { kind: "failed", ...base, message: `${where} was refused as invalid: ${refusal.detail ?? ""}` };
    case "name-clash":
      return {
        kind: "failed",
        ...base,
        message: `${where} is also written by output ${refusal.detail ?? ""}`,
      };
  }
}

/** The stale objects of `kind` the writer deleted (or would), and those it could not. */
function pruneResults(
  kind: OwnedKind,
  result: Exclude<WriteResult<Listed>, { kind: "failed" }>,
): PruneResult[] {
  if (result.kind === "guarded") return [];
  if (result.kind === "planned") {
    return result.writes.deletes.map(({ name }) => ({ kind: "previewed", objectKind: kind, name }));
  }
  const stale = new Set(result.writes.deletes.map(({ name }) => name));
  return [
    ...result.actions.filter((action) => action.kind === "deleted")
      .map(({ name }): PruneResult => ({ kind: "deleted", objectKind: kind, name })),
    ...result.errors.filter((failed) => failed.group === undefined && stale.has(failed.name))
      .map(({ name, error }): PruneResult => ({
        kind: "failed",
        objectKind: kind,
        name,
        message: errorMessage(error),
      })),
  ];
}

/** A readable diff of what a write would change: labels, annotations and spec, one line each. */
function previewDiff(existing: KubeObject | undefined, manifest: Manifest): string {
  const before = existing === undefined ? "" : render(existing as unknown as Manifest, manifest);
  const after = render(manifest, manifest);
  const label = `${manifest.kind} ${manifest.metadata.namespace}/${manifest.metadata.name}`;
  return unifiedDiff(before, after, { label });
}

/** The fields of `object` that `shape` sets, as sorted `path: value` lines. */
function render(object: Manifest, shape: Manifest): string {
  const lines: string[] = [];
  const metadata = object.metadata as Record<string, unknown>;
  for (const field of ["labels", "annotations"] as const) {
    const map = (metadata[field] ?? {}) as Record<string, string>;
    const wanted = Object.keys((shape.metadata as Record<string, unknown>)[field] ?? {});
    for (const key of wanted.sort()) {
      if (map[key] !== undefined) lines.push(`metadata.${field}.${key}: ${map[key]}`);
    }
  }
  const spec = (object.spec ?? {}) as Record<string, unknown>;
  for (const key of Object.keys((shape.spec ?? {}) as Record<string, unknown>).sort()) {
    if (spec[key] !== undefined) lines.push(`spec.${key}: ${JSON.stringify(spec[key])}`);
  }
  return lines.map((line) => `${line}\n`).join("");
}
