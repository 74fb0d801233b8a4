/**
 * One kuberture pass decided without I/O: per output, the object to write, or "keep" when no
 * address resolved (kuberture's split-brain guard: an API server whose endpoints vanish for a
 * moment must not unpublish its own name); and which of this instance's objects no output claims.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Manifest } from "../kube/client_options.ts";
import type { EndpointSlice } from "../resources/endpoint_slice.ts";
import type { KubeObject } from "../resources/kube_object.ts";
import type { Node } from "../resources/node.ts";
import {
  type ResolvedOutputAddresses,
  resolveOutputAddresses,
} from "./addresses/resolve_output_addresses.ts";
import type { KubertureConfig, KubertureOutput } from "./config/kuberture_config.ts";
import { outputObject, type Owner } from "./output_object.ts";

/** The kinds kuberture writes. */
export type OwnedKind = "Service" | "DNSEndpoint";

/** One object this instance wrote earlier, as listed. */
export interface OwnedObject {
  readonly kind: OwnedKind;
  readonly object: KubeObject;
}

/** What to do for one output; `unresolved` says which endpoints or Nodes gave nothing ("": none). */
export type OutputStep =
  | {
    readonly kind: "write";
    readonly output: KubertureOutput;
    readonly objectKind: OwnedKind;
    readonly addresses: readonly string[];
    readonly manifest: Manifest;
    readonly unresolved: string;
  }
  /** No address resolved: whatever is published stays as it is. */
  | {
    readonly kind: "keep";
    readonly output: KubertureOutput;
    readonly objectKind: OwnedKind;
    readonly unresolved: string;
  };

/** What a `node-*` source could not map: endpoint IPs without a Node, Nodes without an address. */
export function unresolvedText(resolved: ResolvedOutputAddresses): string {
  const parts = [
    ...(resolved.unmatched.length === 0
      ? []
      : [`endpoint IPs no Node lists: ${resolved.unmatched.join(", ")}`]),
    ...resolved.skippedNodes.map((node) =>
      `Node ${node.name}: ${
        node.reason === "not-found" ? "not found" : "no address of the asked type and family"
      }`
    ),
  ];
  return parts.join("; ");
}

/** A pass's decisions. */
export interface KuberturePlan {
  readonly outputs: readonly OutputStep[];
  /** This instance's objects that no output names any more. */
  readonly prune: readonly { readonly kind: OwnedKind; readonly name: string }[];
}

/** The inputs of {@linkcode planKuberturePass}. */
export interface PlanInput {
  readonly config: KubertureConfig;
  readonly slices: readonly EndpointSlice[];
  readonly nodes: readonly Node[];
  /** This instance's objects as listed (both kinds). */
  readonly owned: readonly OwnedObject[];
  readonly namespace: string;
  readonly instance: string;
  readonly owner: Owner | undefined;
}

/** The kind of object an output writes. */
export function objectKindOf(output: Pick<KubertureOutput, "kind">): OwnedKind {
  return output.kind === "crd" ? "DNSEndpoint" : "Service";
}

/** Decides a pass (see the module doc). */
export function planKuberturePass(input: PlanInput): KuberturePlan {
  const outputs = input.config.outputs.map((output): OutputStep => {
    const objectKind = objectKindOf(output);
    const resolved = resolveOutputAddresses({ slices: input.slices, nodes: input.nodes, output });
    const { addresses } = resolved;
    const unresolved = unresolvedText(resolved);
    if (addresses.length === 0) return { kind: "keep", output, objectKind, unresolved };
    const manifest = outputObject(output, {
      namespace: input.namespace,
      instance: input.instance,
      addresses,
      owner: input.owner,
    });
    return { kind: "write", output, objectKind, addresses, manifest, unresolved };
  });
  const wanted = new Set(outputs.map((step) => `${step.objectKind}/${step.output.serviceName}`));
  const prune = input.owned
    .filter(({ kind, object }) => !wanted.has(`${kind}/${object.metadata.name}`))
    .map(({ kind, object }) => ({ kind, name: object.metadata.name }))
    .sort((a, b) => `${a.kind}/${a.name}`.localeCompare(`${b.kind}/${b.name}`));
  return { outputs, prune };
}
