/**
 * The addresses one kuberture output publishes, from the source Service's EndpointSlices and
 * (for the `node-*` sources) the cluster's Nodes: what goes, sorted and comma-joined, into the
 * output's `<prefix>target` annotation.
 *
 * What kuberture does, and we do too:
 * - only ready endpoints count, and an endpoint without a `ready` condition is ready;
 * - `endpointslice` publishes the endpoints' own addresses;
 * - the `node-*` sources map each endpoint to its Node by `nodeName`, or, when the endpoint has
 *   none, by finding a Node that lists the endpoint's address among its `status.addresses`
 *   (any type); then `node-internal` takes the Node's first `InternalIP`, `node-external` its
 *   first `ExternalIP`, `node-public` its first address of any type that parses as an IP and is
 *   public ({@linkcode isPublicAddress}); a Node with no such address is skipped;
 * - the result is sorted (byte order, so `10.0.0.10` before `10.0.0.9`) without duplicates.
 *
 * Where we differ, on purpose:
 * - `addressType` absent means both families (kuberture requires one);
 * - for the `node-*` sources the family filters the Node's addresses, not the slices: every
 *   IPv4 and IPv6 slice says which Nodes serve the API, and each Node gives its first address
 *   of the asked type *in each asked family*. kuberture takes the first address of the type
 *   whatever its family, so a Node listing its IPv6 InternalIP first put an IPv6 address in an
 *   `IPv4` output, and an `IPv6` output found nothing when the `kubernetes` slice was IPv4 only
 *   (the usual case in dual-stack clusters, where the API server advertises one address);
 * - addresses are printed canonically (dotted quad, RFC 5952), so two spellings of one address
 *   are one target, and an endpoint's address matches a Node's however either is spelled; an
 *   address that does not parse as an IP of its slice's family is dropped (a validating API
 *   server never stores one);
 * - an address claimed by several Nodes maps to all of them (kuberture kept whichever came last
 *   in its list);
 * - FQDN slices are ignored, as kuberture's family match also ends up doing.
 *
 * What kuberture logs as it goes (an endpoint no Node claims, a Node without the address) comes
 * back as values, `unmatched` and `skippedNodes`, for the caller to warn about.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Endpoint, EndpointSlice } from "../../resources/endpoint_slice.ts";
import type { Node } from "../../resources/node.ts";
import { formatIp, type IpAddress, parseIp } from "../../util/ip.ts";
import { isPublicAddress } from "./public_address.ts";

/**
 * What an output asks for: structurally `Pick<KubertureOutput, "addressSource" | "addressType">`
 * from the config module.
 */
export interface AddressSelection {
  readonly addressSource: "endpointslice" | "node-internal" | "node-external" | "node-public";
  /** One family, or `undefined` for both. */
  readonly addressType: "IPv4" | "IPv6" | undefined;
}

/** A Node a ready endpoint led to that gave no address. */
export interface SkippedNode {
  readonly name: string;
  /**
   * `not-found`: an endpoint's `nodeName` names a Node that is not in the list; `no-address`:
   * the Node has no address of the asked type in the asked family (or, for `node-public`, no
   * public one).
   */
  readonly reason: "not-found" | "no-address";
}

/** The answer of {@linkcode resolveOutputAddresses}. */
export interface ResolvedOutputAddresses {
  /** Canonical, sorted, unique; each of the asked family. Empty means the output has nothing to publish. */
  readonly addresses: readonly string[];
  /**
   * `node-*` sources: the addresses of ready endpoints without a `nodeName` that no Node lists
   * (sorted, unique), which contributed nothing. Always empty for `endpointslice`.
   */
  readonly unmatched: readonly string[];
  /** `node-*` sources: the Nodes that contributed nothing, by name. Always empty for `endpointslice`. */
  readonly skippedNodes: readonly SkippedNode[];
}

/** What {@linkcode resolveOutputAddresses} reads. */
export interface ResolveInput {
  /** The source Service's slices (the caller selects them by `kubernetes.io/service-name`). */
  readonly slices: readonly EndpointSlice[];
  /** Every Node; unused (and may be empty) for the `endpointslice` source. */
  readonly nodes: readonly Node[];
  readonly output: AddressSelection;
}

type Family = IpAddress["family"];

const SLICE_FAMILIES: Readonly<Record<string, Family>> = { IPv4: 4, IPv6: 6 };

const NODE_ADDRESS_TYPES: Readonly<Record<AddressSelection["addressSource"], string | undefined>> = {
  "endpointslice": undefined,
  "node-internal": "InternalIP",
  "node-external": "ExternalIP",
  "node-public": undefined,
};

function familiesOf(addressType: AddressSelection["addressType"]): readonly Family[] {
  if (addressType === undefined) return [4, 6];
  return [addressType === "IPv4" ? 4 : 6];
}

/** An endpoint counts unless it says it is not ready. */
function isReady(endpoint: Endpoint): boolean {
  return endpoint.conditions.ready !== false;
}

function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

/** The ready endpoints of the slices carrying IP addresses, with their slice's family. */
function* readyEndpoints(slices: readonly EndpointSlice[]): Generator<[Endpoint, Family]> {
  for (const slice of slices) {
    const family = SLICE_FAMILIES[slice.addressType];
    if (family === undefined) continue;
    for (const endpoint of slice.endpoints) if (isReady(endpoint)) yield [endpoint, family];
  }
}

/** The address in canonical spelling when it is an IP of `family`; `undefined` otherwise. */
function canonical(text: string, family: Family): string | undefined {
  const parsed = parseIp(text);
  return parsed?.family === family ? formatIp(parsed) : undefined;
}

function endpointAddresses(input: ResolveInput, families: readonly Family[]): ResolvedOutputAddresses {
  const addresses: string[] = [];
  for (const [endpoint, family] of readyEndpoints(input.slices)) {
    if (!families.includes(family)) continue;
    for (const text of endpoint.addresses) {
      const address = canonical(text, family);
      if (address !== undefined) addresses.push(address);
    }
  }
  return { addresses: sortedUnique(addresses), unmatched: [], skippedNodes: [] };
}

/** Canonical IP → the Nodes listing it among their addresses. */
function nodesByAddress(nodes: readonly Node[]): Map<string, Node[]> {
  const byAddress = new Map<string, Node[]>();
  for (const node of nodes) {
    for (const { address } of node.status.addresses) {
      const parsed = parseIp(address);
      if (parsed === undefined) continue;
      const key = formatIp(parsed);
      const claimed = byAddress.get(key) ?? [];
      if (!claimed.includes(node)) claimed.push(node);
      byAddress.set(key, claimed);
    }
  }
  return byAddress;
}

/** The Node's address the source asks for, in `family`, canonical; `undefined` when it has none. */
function nodeAddress(
  node: Node,
  source: AddressSelection["addressSource"],
  family: Family,
): string | undefined {
  const wantedType = NODE_ADDRESS_TYPES[source];
  for (const { type, address } of node.status.addresses) {
    if (wantedType !== undefined && type !== wantedType) continue;
    const parsed = parseIp(address);
    if (parsed?.family !== family) continue;
    if (source === "node-public" && !isPublicAddress(parsed)) continue;
    return formatIp(parsed);
  }
  return undefined;
}

function nodeAddresses(input: ResolveInput, families: readonly Family[]): ResolvedOutputAddresses {
  const byName = new Map(input.nodes.map((node) => [node.metadata.name, node]));
  const byAddress = nodesByAddress(input.nodes);
  const serving = new Map<string, Node>();
  const missing = new Set<string>();
  const unmatched: string[] = [];
  for (const [endpoint, family] of readyEndpoints(input.slices)) {
    if (endpoint.nodeName !== undefined) {
      const node = byName.get(endpoint.nodeName);
      if (node === undefined) missing.add(endpoint.nodeName);
      else serving.set(node.metadata.name, node);
      continue;
    }
    for (const text of endpoint.addresses) {
      const address = canonical(text, family) ?? text;
      const claimed = byAddress.get(address) ?? [];
      if (claimed.length === 0) unmatched.push(address);
      for (const node of claimed) serving.set(node.metadata.name, node);
    }
  }
  const addresses: string[] = [];
  const skippedNodes: SkippedNode[] = [...missing].map((name) => ({ name, reason: "not-found" }));
  for (const node of serving.values()) {
    const found = families.map((family) => nodeAddress(node, input.output.addressSource, family))
      .filter((address) => address !== undefined);
    if (found.length === 0) skippedNodes.push({ name: node.metadata.name, reason: "no-address" });
    addresses.push(...found);
  }
  skippedNodes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { addresses: sortedUnique(addresses), unmatched: sortedUnique(unmatched), skippedNodes };
}

/**
 * Resolves the addresses one output publishes (see the module documentation for the rules and
 * where they differ from kuberture's). Never throws; an empty `addresses` is the caller's cue to
 * keep what is published (kuberture's split-brain guard).
 *
 * @example
 * ```ts
 * import type { EndpointSlice } from "../../resources/endpoint_slice.ts";
 * import type { Node } from "../../resources/node.ts";
 * import { resolveOutputAddresses } from "./resolve_output_addresses.ts";
 *
 * const meta = (name: string) => ({
 *   name,
 *   namespace: "",
 *   uid: "",
 *   resourceVersion: "1",
 *   labels: {},
 *   annotations: {},
 *   ownerReferences: [],
 * });
 * const slice: EndpointSlice = {
 *   metadata: { ...meta("kubernetes"), namespace: "default" },
 *   addressType: "IPv4",
 *   endpoints: [
 *     { addresses: ["192.168.1.11"], conditions: {}, nodeName: "cp-2" },
 *     { addresses: ["192.168.1.10"], conditions: { ready: true }, nodeName: "cp-1" },
 *     { addresses: ["192.168.1.12"], conditions: { ready: false }, nodeName: "cp-3" },
 *   ],
 * };
 * const node = (name: string, external: string): Node => ({
 *   metadata: meta(name),
 *   status: { addresses: [{ type: "ExternalIP", address: external }] },
 * });
 * const nodes = [node("cp-1", "203.0.113.10"), node("cp-2", "203.0.113.11")];
 *
 * resolveOutputAddresses({
 *   slices: [slice],
 *   nodes,
 *   output: { addressSource: "endpointslice", addressType: "IPv4" },
 * }).addresses; // ["192.168.1.10", "192.168.1.11"]
 * resolveOutputAddresses({
 *   slices: [slice],
 *   nodes,
 *   output: { addressSource: "node-external", addressType: undefined },
 * }).addresses; // ["203.0.113.10", "203.0.113.11"]
 * ```
 */
export function resolveOutputAddresses(input: ResolveInput): ResolvedOutputAddresses {
  const families = familiesOf(input.output.addressType);
  return input.output.addressSource === "endpointslice"
    ? endpointAddresses(input, families)
    : nodeAddresses(input, families);
}
