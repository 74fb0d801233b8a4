/**
 * par's `dns.par.dev/v1alpha1` Records: A-record entries chosen by client pod labels, each with a
 * hostname, addresses and a `forward-type` (`manager` answers, `proxy` forwards every lookup).
 * - Tolerant per entry: the CRD often has no strict schema and is hand-edited, so a mistyped
 *   entry goes to `problems` instead of failing the object.
 * - Values are kept as written; `lib/dns/answer/` validates them, naming the object.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { FieldError, Fields } from "./fields.ts";
import { asObject, type Decoder } from "./json.ts";
import type { KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** One entry of `spec.a` on the wire (the fields read here). */
export interface RecordsEntryWire {
  labels?: Record<string, string>;
  hostname?: string;
  "ip-addresses"?: string[];
  "forward-type"?: "manager" | "proxy";
  namespaces?: string[];
}

/** A Records object on the wire (the fields read here). */
export interface RecordsWire {
  metadata?: unknown;
  spec?: { a?: RecordsEntryWire[] };
}

/** One well-typed entry of `spec.a`, values as written. */
export interface RecordsEntry {
  /** Its position in `spec.a`, for reports. */
  readonly index: number;
  /** Client pods must carry every one; `{}` selects the whole namespace. */
  readonly labels: Readonly<Record<string, string>>;
  /** Case and a trailing dot kept; `""` when absent. */
  readonly hostname: string;
  readonly ipAddresses: readonly string[];
  readonly forwardType: string;
  /** The namespaces the entry applies to; `undefined`: the Records' own. */
  readonly namespaces?: readonly string[];
}

/** A Records object as the DNS responder sees it. */
export interface Records extends KubeObject {
  readonly spec: { readonly a: readonly RecordsEntry[] };
  /** What was left out for a wrong JSON type, with its path. */
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
