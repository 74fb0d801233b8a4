/**
 * One kuberture pass decided without I/O: per output, the object to write, or "keep" when no
 * address resolved (kuberture's split-brain guard: an API server whose endpoints vanish for a
 * moment must not unpublish its own name); and the groups the publisher's writers get, one
 * writer per kind: an output wants its object of its own kind and nothing of the other, so
 * switching kind prunes the old object, and a held-back output keeps its name.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { DesiredGroup, DesiredObject } from "../publisher/owned_object_plan.ts";
import type { EndpointSlice } from "../resources/endpoint_slice.ts";
import type { Node } from "../resources/node.ts";
import {
  type ResolvedOutputAddresses,
  resolveOutputAddresses,
} from "./addresses/resolve_output_addresses.ts";
import type { KubertureConfig, KubertureOutput } from "./config/kuberture_config.ts";
import { outputObject, type Owner } from "./output_object.ts";

/** The kinds kuberture writes. */
export type OwnedKind = "Service" | "DNSEndpoint";

/** What to do for one output; `unresolved` says which endpoints or Nodes gave nothing ("": none). */
export type OutputStep =
  | {
    readonly kind: "write";
    readonly output: KubertureOutput;
    readonly objectKind: OwnedKind;
    readonly addresses: readonly string[];
    readonly desired: DesiredObject;
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
}

/** The inputs of {@linkcode planKuberturePass}. */
export interface PlanInput {
  readonly config: KubertureConfig;
  readonly slices: readonly EndpointSlice[];
  readonly nodes: readonly Node[];
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
    const desired = outputObject(output, {
      namespace: input.namespace,
      instance: input.instance,
      addresses,
      owner: input.owner,
    });
    return { kind: "write", output, objectKind, addresses, desired, unresolved };
  });
  return { outputs };
}

/**
 * The groups the writer of `kind` gets: every output, keyed by its name and holding its Service
 * name; it wants its object when it is of `kind` and resolved, nothing when it is of the other
 * kind (what it left there is pruned), and is not built when held back (what it has stays). When
 * no output resolved, none is built and nothing at all is pruned.
 */
export function writerGroups(plan: KuberturePlan, kind: OwnedKind): DesiredGroup[] {
  // No output resolved at all: no group is built, so the writers' guard prunes nothing.
  const resolved = plan.outputs.some((step) => step.kind === "write");
  return plan.outputs.map((step) => ({
    key: step.output.name,
    names: [step.output.serviceName],
    objects: step.kind === "keep" || !resolved ? undefined : step.objectKind === kind ? [step.desired] : [],
  }));
}
