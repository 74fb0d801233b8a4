/**
 * par's `dns.par.dev/v1alpha1` Records (namespaced): a list of A-record entries, each chosen by
 * the labels of client pods, naming a hostname, its addresses and how it is answered
 * (`forward-type`: `manager` answers the hostname with the addresses, `proxy` sends the client's
 * every lookup to a forward proxy). The CRD is not part of `@kubernetes/client-node`, so the wire
 * shape is declared here.
 *
 * Decided: decoding is tolerant per entry. par's CRD is often installed without a strict schema
 * and users edit these objects by hand; one mistyped entry must not cost the object its other
 * entries. An entry whose fields have the wrong JSON type is left out and named in `problems`
 * (with its path, `spec.a[2].labels is a string, not a map`); the object itself fails only when
 * its metadata does. Values are kept as written: whether a hostname is a DNS name, an address an
 * IP and a forward type known is checked where they are used (`lib/dns/answer/`), which can name
 * the object in its report.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { FieldError, Fields } from "./fields.ts";
import { asObject, type Decoder } from "./json.ts";
import type { KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** One entry of `spec.a` as the API server sends it (only the fields read here). */
export interface RecordsEntryWire {
  labels?: Record<string, string>;
  hostname?: string;
  "ip-addresses"?: string[];
  "forward-type"?: "manager" | "proxy";
  /** par's own per-entry namespace list (its CRD requires it); see {@linkcode RecordsEntry.namespaces}. */
  namespaces?: string[];
}

/** The fields of a Records object as the API server sends them (only those read here). */
export interface RecordsWire {
  metadata?: unknown;
  spec?: { a?: RecordsEntryWire[] };
}

/** One well-typed entry of `spec.a`, values as written. */
export interface RecordsEntry {
  /** Its position in `spec.a`, so a report can point at it. */
  readonly index: number;
  /** Client pods (and Deployments' pod templates) must carry every one; `{}` selects all of the namespace. */
  readonly labels: Readonly<Record<string, string>>;
  /** As written (case and a trailing dot kept); `""` when absent. */
  readonly hostname: string;
  /** `ip-addresses`, as written; `[]` when absent. */
  readonly ipAddresses: readonly string[];
  /** `forward-type` as written (`manager` or `proxy` are known); `""` when absent. */
  readonly forwardType: string;
  /**
   * par's `namespaces` list, when the entry has one. par applied an entry to the namespaces it
   * lists; `undefined` when absent (the entry applies to the Records' own namespace).
   */
  readonly namespaces?: readonly string[];
}

/** A Records object as the DNS responder sees it. */
export interface Records extends KubeObject {
  readonly spec: { readonly a: readonly RecordsEntry[] };
  /**
   * Entries (or a whole `spec.a`) left out because a field had the wrong JSON type, each with
   * its path and what was left out (`spec.a[2].labels is a string, not a map; the entry is ignored`).
   */
  readonly problems: readonly string[];
}

function decodeEntry(entry: Fields<RecordsEntryWire>, index: number): RecordsEntry {
  const namespaces = entry.has("namespaces") ? entry.strings("namespaces") : undefined;
  return {
    index,
    labels: entry.stringMap("labels"),
    hostname: entry.optionalString("hostname") ?? "",
    ipAddresses: entry.strings("ip-addresses"),
    forwardType: entry.optionalString("forward-type") ?? "",
    ...(namespaces === undefined ? {} : { namespaces }),
  };
}

/** Runs `read`, turning a {@linkcode FieldError} into a problem instead of a failed object. */
function tolerant<T>(read: () => T, problems: string[], outcome: string): T | undefined {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof FieldError)) throw error;
    problems.push(`${error.message}; ${outcome}`);
    return undefined;
  }
}

const IGNORED = "the entry is ignored";
const NO_ENTRY = "no entry is read";

/**
 * The entries of `spec.a`, each decoded on its own: a `null` slot is skipped, anything else that
 * is not a well-typed entry becomes a problem.
 */
function decodeEntries(root: Fields<RecordsWire>, problems: string[]): RecordsEntry[] {
  const list = tolerant(() => root.object("spec").unchecked("a"), problems, NO_ENTRY);
  if (list === undefined) return [];
  if (!Array.isArray(list)) {
    problems.push(`spec.a is ${describe(list)}, not a list; ${NO_ENTRY}`);
    return [];
  }
  const out: RecordsEntry[] = [];
  list.forEach((raw: unknown, index) => {
    if (raw === null) return;
    const path = `spec.a[${index}]`;
    const object = asObject(raw);
    if (object === undefined) {
      problems.push(`${path} is ${describe(raw)}, not an object; ${IGNORED}`);
      return;
    }
    const fields = new Fields<RecordsEntryWire>(object, path);
    const decoded = tolerant(() => decodeEntry(fields, index), problems, IGNORED);
    if (decoded !== undefined) out.push(decoded);
  });
  return out;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** The Records resource type (par's CRD; may be missing from a cluster). */
export const RECORDS: ResourceType<Records> = defineResourceType<RecordsWire, Records>(
  { group: "dns.par.dev", version: "v1alpha1", kind: "Records", plural: "records", namespaced: true },
  (root, metadata) => {
    const problems: string[] = [];
    const a = decodeEntries(root, problems);
    return { metadata, spec: { a }, problems };
  },
);

/** Decodes a raw Records object; never throws. */
export const decodeRecords: Decoder<Records> = RECORDS.decode;
