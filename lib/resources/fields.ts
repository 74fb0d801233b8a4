/**
 * A typed reader for decoding raw Kubernetes JSON: field names are checked against a wire type at
 * compile time, values at run time, the first wrong one failing with its path. `null` counts as
 * absent, as the API server writes it for some empty optional fields.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { asObject, type Decoder, type JsonObject } from "./json.ts";
import { decodeMetadata, type MetadataShape, type ObjectMeta } from "./kube_object.ts";

/** The names of a wire type's fields. */
export type FieldName<W> = Extract<keyof W, string>;

/** The object type behind an optional field (`V1IngressSpec` for `spec?: V1IngressSpec`). */
export type Nested<V> = NonNullable<V> extends object ? NonNullable<V> : never;

/** The element type of an optional array field. */
export type Element<V> = NonNullable<V> extends readonly (infer E)[] ? NonNullable<E> : never;

/** Thrown inside a decoder, caught by {@linkcode objectDecoder} and turned into a reason. */
export class FieldError extends Error {
  constructor(path: string, problem: string) {
    super(`${path} ${problem}`);
    this.name = "FieldError";
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

/** Reads the fields of one JSON object, reporting problems with their full path. */
export class Fields<W> {
  readonly #value: JsonObject;
  /** `""` for the root. */
  readonly path: string;

  constructor(value: JsonObject, path: string) {
    this.#value = value;
    this.path = path;
  }

  /** The same object reported under another path (`clusters["prod"]` instead of `clusters[0]`). */
  withPath(path: string): Fields<W> {
    return new Fields(this.#value, path);
  }

  #pathOf(name: string): string {
    return this.path === "" ? name : `${this.path}.${name}`;
  }

  #get(name: string): unknown {
    const value = this.#value[name];
    return value === null ? undefined : value;
  }

  /** Unchecked, for a field a decoder reports on instead of failing (DNSEndpoint `status`). */
  unchecked(name: FieldName<W>): unknown {
    return this.#get(name);
  }

  /** Present and not `null`. */
  has(name: FieldName<W>): boolean {
    return this.#get(name) !== undefined;
  }

  /** A required, non-empty string. */
  string(name: FieldName<W>): string {
    const value = this.optionalString(name);
    if (value === undefined || value === "") throw new FieldError(this.#pathOf(name), "is missing");
    return value;
  }

  /** A string (maybe empty), or `undefined` when absent. */
  optionalString(name: FieldName<W>): string | undefined {
    const value = this.#get(name);
    if (value === undefined) return undefined;
    if (typeof value !== "string") {
      throw new FieldError(this.#pathOf(name), `is ${describe(value)}, not a string`);
    }
    return value;
  }

  optionalInteger(name: FieldName<W>): number | undefined {
    const value = this.#get(name);
    if (value === undefined) return undefined;
    if (typeof value !== "number" || !Number.isInteger(value)) {
      throw new FieldError(this.#pathOf(name), `is ${describe(value)}, not a whole number`);
    }
    return value;
  }

  integer(name: FieldName<W>): number {
    const value = this.optionalInteger(name);
    if (value === undefined) throw new FieldError(this.#pathOf(name), "is missing");
    return value;
  }

  port(name: FieldName<W>): number {
    const value = this.integer(name);
    if (value < 1 || value > 65_535) {
      throw new FieldError(this.#pathOf(name), `is ${value}, not a port (1-65535)`);
    }
    return value;
  }

  /** `IntOrString`, e.g. a Service's `targetPort`. */
  optionalIntOrString(name: FieldName<W>): number | string | undefined {
    const value = this.#get(name);
    if (value === undefined) return undefined;
    if (typeof value === "string" || (typeof value === "number" && Number.isInteger(value))) return value;
    throw new FieldError(this.#pathOf(name), `is ${describe(value)}, not a number or a string`);
  }

  optionalBoolean(name: FieldName<W>): boolean | undefined {
    const value = this.#get(name);
    if (value === undefined) return undefined;
    if (typeof value !== "boolean") {
      throw new FieldError(this.#pathOf(name), `is ${describe(value)}, not a boolean`);
    }
    return value;
  }

  /** Absent gives `[]`; `null` entries (old clients write them) are skipped, not fatal. */
  strings(name: FieldName<W>): readonly string[] {
    const value = this.#get(name);
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw new FieldError(this.#pathOf(name), `is ${describe(value)}, not a list`);
    value.forEach((entry, i) => {
      if (entry !== null && typeof entry !== "string") {
        throw new FieldError(`${this.#pathOf(name)}[${i}]`, `is ${describe(entry)}, not a string`);
      }
    });
    return value.filter((entry): entry is string => entry !== null);
  }

  /** Absent gives `{}`. */
  stringMap(name: FieldName<W>): Readonly<Record<string, string>> {
    const value = this.#get(name);
    if (value === undefined) return {};
    const object = asObject(value);
    if (object === undefined) throw new FieldError(this.#pathOf(name), `is ${describe(value)}, not a map`);
    for (const [key, entry] of Object.entries(object)) {
      if (typeof entry !== "string") {
        throw new FieldError(`${this.#pathOf(name)}.${key}`, `is ${describe(entry)}, not a string`);
      }
    }
    return object as Readonly<Record<string, string>>;
  }

  /** The keys of a map whose values are not read (ConfigMap `binaryData`). */
  keys(name: FieldName<W>): readonly string[] {
    const value = this.#get(name);
    if (value === undefined) return [];
    const object = asObject(value);
    if (object === undefined) throw new FieldError(this.#pathOf(name), `is ${describe(value)}, not a map`);
    return Object.keys(object);
  }

  /** Absent gives an empty object, so optional sections read as defaults. */
  object<K extends FieldName<W>>(name: K): Fields<Nested<W[K]>> {
    const value = this.#get(name);
    if (value === undefined) return new Fields({}, this.#pathOf(name));
    const object = asObject(value);
    if (object === undefined) {
      throw new FieldError(this.#pathOf(name), `is ${describe(value)}, not an object`);
    }
    return new Fields(object, this.#pathOf(name));
  }

  /** Absent gives `[]`; `null` entries are skipped. */
  objects<K extends FieldName<W>>(name: K): Fields<Element<W[K]>>[] {
    const value = this.#get(name);
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw new FieldError(this.#pathOf(name), `is ${describe(value)}, not a list`);
    const out: Fields<Element<W[K]>>[] = [];
    value.forEach((entry, i) => {
      if (entry === null) return;
      const path = `${this.#pathOf(name)}[${i}]`;
      const object = asObject(entry);
      if (object === undefined) throw new FieldError(path, `is ${describe(entry)}, not an object`);
      out.push(new Fields<Element<W[K]>>(object, path));
    });
    return out;
  }
}

/** What a whole object decoder needs to know about its kind. */
export interface KindIdentity {
  readonly apiVersion: string;
  readonly kind: string;
  /** @default everything */
  readonly metadata?: MetadataShape;
}

/** Builds a kind's narrow object from its checked metadata and a reader of the raw object. */
export type ObjectBuilder<W, T> = (root: Fields<W>, metadata: ObjectMeta) => T;

/**
 * A decoder for one kind: checks `kind`/`apiVersion` when present (list items omit them), the
 * metadata, then runs `build`; a {@linkcode FieldError} becomes a failed decoding, never a throw.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { V1ConfigMap } from "@kubernetes/client-node";
 * import { objectDecoder } from "./fields.ts";
 * import type { KubeObject } from "./kube_object.ts";
 *
 * interface ConfigMapData extends KubeObject {
 *   readonly data: Readonly<Record<string, string>>;
 * }
 * const decode = objectDecoder<V1ConfigMap, ConfigMapData>(
 *   { apiVersion: "v1", kind: "ConfigMap" },
 *   (root, metadata) => ({ metadata, data: root.stringMap("data") }),
 * );
 * assert.deepEqual(decode({ metadata: { name: "a", resourceVersion: "1" }, data: { k: 1 } }), {
 *   ok: false,
 *   reason: "data.k is a number, not a string",
 * });
 * ```
 */
export function objectDecoder<W, T>(
  identity: KindIdentity,
  build: ObjectBuilder<W, T>,
): Decoder<T> {
  return (raw) => {
    const object = asObject(raw);
    if (object === undefined) {
      return { ok: false, reason: `${identity.kind} is ${describe(raw)}, not an object` };
    }
    if (object.kind !== undefined && object.kind !== identity.kind) {
      return {
        ok: false,
        reason: `kind is ${JSON.stringify(object.kind)}, expected ${JSON.stringify(identity.kind)}`,
      };
    }
    if (object.apiVersion !== undefined && object.apiVersion !== identity.apiVersion) {
      return {
        ok: false,
        reason: `apiVersion is ${JSON.stringify(object.apiVersion)}, expected ${
          JSON.stringify(identity.apiVersion)
        }`,
      };
    }
    const metadata = decodeMetadata(object.metadata, identity.metadata);
    if (!metadata.ok) return metadata;
    try {
      return { ok: true, value: build(new Fields<W>(object, ""), metadata.value) };
    } catch (error) {
      if (error instanceof FieldError) return { ok: false, reason: error.message };
      throw error;
    }
  };
}
