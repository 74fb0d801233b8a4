/**
 * One kuberture pass against the API server: list this instance's objects, plan, then per output
 * server-side apply (field manager `kuberture`, force) unless an object without our ownership
 * labels holds the name (that output is refused, the others go on), and delete what no output
 * names. A dry run writes nothing and reports diffs. The result is a value; the runtime logs it.
 *
 * Effects: API calls through the client, whose write fence stops a replica that no longer leads.
 *
 * @module
 */

import { isForbidden, isNotFound } from "../kube/errors.ts";
import type { KubeClient, Manifest } from "../kube/client.ts";
import { DNS_ENDPOINT } from "../resources/dns_endpoint.ts";
import type { EndpointSlice } from "../resources/endpoint_slice.ts";
import type { KubeObject } from "../resources/kube_object.ts";
import type { Node } from "../resources/node.ts";
import type { ResourceType } from "../resources/resource_type.ts";
import { SERVICE } from "../resources/service.ts";
import { errorMessage } from "../util/error_message.ts";
import { unifiedDiff } from "../util/unified_diff.ts";
import type { KubertureConfig } from "./config/kuberture_config.ts";
import { type OwnedKind, type OwnedObject, planKuberturePass } from "./kuberture_plan.ts";
import { isOwnedBy, ownerSelector } from "../publisher/object_ownership.ts";
import { FIELD_MANAGER, kubertureOwnership, type Owner } from "./output_object.ts";

/** The calls a pass makes. */
export type PassApi = Pick<KubeClient, "get" | "apply" | "delete" | "listAll">;

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
    readonly object: KubeObject;
    readonly message: string;
  }
  | { readonly kind: "failed"; readonly output: string; readonly name: string; readonly message: string };

/** What happened to one stale object. */
export type PruneResult =
  | { readonly kind: "deleted" | "previewed"; readonly objectKind: OwnedKind; readonly name: string }
  | {
    readonly kind: "failed";
    readonly objectKind: OwnedKind;
    readonly name: string;
    readonly message: string;
  };

/** A pass's report. `listFailed` set: nothing else was attempted. */
export interface PassReport {
  readonly outputs: readonly OutputResult[];
  /** Per output name: what a `node-*` source could not map (absent: everything mapped). */
  readonly unresolved?: Readonly<Record<string, string>>;
  readonly prune: readonly PruneResult[];
  readonly listFailed?: string;
  /** Listing DNSEndpoints was refused (403) with no `crd` output: stale ones cannot be pruned. */
  readonly endpointsUnlisted?: string;
}

/** True when every output went through (written, previewed or kept) and every prune too. */
export function passSucceeded(report: PassReport): boolean {
  return report.listFailed === undefined &&
    report.outputs.every((result) => result.kind !== "failed" && result.kind !== "refused") &&
    report.prune.every((result) => result.kind !== "failed");
}

/** What a pass reads besides the API. */
export interface PassInput {
  readonly config: KubertureConfig;
  readonly slices: readonly EndpointSlice[];
  readonly nodes: readonly Node[];
  readonly namespace: string;
  readonly instance: string;
  readonly owner: Owner | undefined;
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

/** Runs one pass. Never rejects for API failures: they are in the report. */
export async function runPass(input: PassInput, options: RunPassOptions): Promise<PassReport> {
  let listed: Listed;
  try {
    listed = await listOwned(input, options);
  } catch (error) {
    return { outputs: [], prune: [], listFailed: errorMessage(error) };
  }
  const { owned, endpointsUnlisted } = listed;
  const plan = planKuberturePass({ ...input, owned });
  const outputs: OutputResult[] = [];
  for (const step of plan.outputs) {
    const name = step.output.serviceName;
    if (step.kind === "keep") {
      outputs.push({ kind: "kept", output: step.output.name, name });
      continue;
    }
    outputs.push(await writeOne(step.manifest, { ...step, name, instance: input.instance }, options));
  }
  const prune: PruneResult[] = [];
  for (const stale of plan.prune) {
    if (options.dryRun) {
      prune.push({ kind: "previewed", objectKind: stale.kind, name: stale.name });
      continue;
    }
    try {
      await options.api.delete(TYPES[stale.kind], { namespace: input.namespace, name: stale.name }, {
        signal: options.signal,
      });
      prune.push({ kind: "deleted", objectKind: stale.kind, name: stale.name });
    } catch (error) {
      if (isNotFound(error)) prune.push({ kind: "deleted", objectKind: stale.kind, name: stale.name });
      else {prune.push({
          kind: "failed",
          objectKind: stale.kind,
          name: stale.name,
          message: errorMessage(error),
        });}
    }
  }
  const unresolved = Object.fromEntries(
    plan.outputs.filter((step) => step.unresolved !== "").map((step) => [step.output.name, step.unresolved]),
  );
  return { outputs, prune, unresolved, ...(endpointsUnlisted === undefined ? {} : { endpointsUnlisted }) };
}

interface Listed {
  readonly owned: OwnedObject[];
  readonly endpointsUnlisted?: string;
}

/**
 * This instance's Services and DNSEndpoints (none without the CRD). A 403 on DNSEndpoints fails
 * the pass only when an output says `crd`: kuberture's own chart grants Services only.
 */
async function listOwned(input: PassInput, options: RunPassOptions): Promise<Listed> {
  const scope = {
    namespace: input.namespace,
    labelSelector: ownerSelector(kubertureOwnership(input.instance)),
    signal: options.signal,
  };
  const services = await options.api.listAll(SERVICE, scope);
  let endpoints: readonly KubeObject[] = [];
  let endpointsUnlisted: string | undefined;
  try {
    endpoints = (await options.api.listAll(DNS_ENDPOINT, scope)).items;
  } catch (error) {
    const writesCrd = input.config.outputs.some((output) => output.kind === "crd");
    if (isForbidden(error) && !writesCrd) {
      endpointsUnlisted =
        `listing DNSEndpoints in ${input.namespace} was refused (${errorMessage(error)}), ` +
        "so one left by an earlier output: crd would not be deleted; grant list and delete on " +
        `dnsendpoints.externaldns.k8s.io in ${input.namespace} (this chart does)`;
    } else if (!isNotFound(error)) throw error;
  }
  const owned = [
    ...services.items.map((object) => ({ kind: "Service" as const, object })),
    ...endpoints.map((object) => ({ kind: "DNSEndpoint" as const, object })),
  ];
  return endpointsUnlisted === undefined ? { owned } : { owned, endpointsUnlisted };
}

interface WriteTarget {
  readonly output: { readonly name: string };
  readonly name: string;
  readonly objectKind: OwnedKind;
  readonly addresses: readonly string[];
  readonly instance: string;
}

async function writeOne(
  manifest: Manifest,
  target: WriteTarget,
  options: RunPassOptions,
): Promise<OutputResult> {
  const type = TYPES[target.objectKind];
  const base = { output: target.output.name, name: target.name };
  const ref = { namespace: manifest.metadata.namespace ?? "", name: target.name };
  try {
    let existing: KubeObject | undefined;
    try {
      existing = await options.api.get(type, ref, { signal: options.signal });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    if (existing !== undefined && !isOwnedBy(existing.metadata.labels, kubertureOwnership(target.instance))) {
      return {
        kind: "refused",
        ...base,
        objectKind: target.objectKind,
        object: existing,
        message:
          `${target.objectKind} ${ref.namespace}/${target.name} exists and is not kuberture's (it lacks the ` +
          `labels app.kubernetes.io/managed-by=kuberture and kuberture/instance=${target.instance}); it is left ` +
          "alone: delete or rename it, or give this output another serviceName",
      };
    }
    if (options.dryRun) {
      return {
        kind: "previewed",
        ...base,
        diff: previewDiff(existing, manifest),
        addresses: target.addresses.length,
      };
    }
    const stored = await options.api.apply(type, manifest, {
      fieldManager: FIELD_MANAGER,
      force: true,
      signal: options.signal,
    });
    const changed = stored.metadata.resourceVersion !== existing?.metadata.resourceVersion;
    return { kind: "written", ...base, changed, addresses: target.addresses.length };
  } catch (error) {
    return { kind: "failed", ...base, message: errorMessage(error) };
  }
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
