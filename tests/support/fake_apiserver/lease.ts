/**
 * `coordination.k8s.io/v1` Lease bodies as the real API server decodes, stores and validates
 * them, so a leader elector tested against the fake fails here when it would fail in a cluster:
 *
 * - `spec.acquireTime` and `spec.renewTime` are `MicroTime`s. The real server parses them with
 *   the layout `2006-01-02T15:04:05.000000Z07:00`: exactly six fractional digits, then `Z` or an
 *   offset. Anything else (a JavaScript `toISOString()` with three digits, whole seconds) is
 *   400 BadRequest, "Lease in version "v1" cannot be handled as a Lease: parsing time …". They
 *   are stored in UTC, `2026-12-03T13:37:03.123456Z`, so a value in that form round-trips
 *   unchanged and an offset comes back as `Z`.
 * - `holderIdentity`, `strategy`, `preferredHolder` must be strings and `leaseDurationSeconds`,
 *   `leaseTransitions` 32-bit integers (400 otherwise); a `null` field is left out, unknown spec
 *   fields and top-level fields other than `spec` are dropped, and `spec` is always present.
 * - Validation (422 Invalid): `leaseDurationSeconds` > 0, `leaseTransitions` ≥ 0,
 *   `preferredHolder` only with a `strategy`, `strategy` one the server knows.
 *
 * The registry side lives in `kinds.ts`: a PUT must carry `metadata.resourceVersion` (422
 * otherwise) and a PUT to a missing Lease creates it (201).
 *
 * Pure: no I/O.
 *
 * @module
 */

import { isJsonMap, type Json, type JsonMap } from "./json.ts";
import { badRequest, type StatusCause } from "./status.ts";

/** Go's layout for `metav1.MicroTime`. */
export const MICRO_TIME_LAYOUT = "2006-01-02T15:04:05.000000Z07:00";

/** A parsed MicroTime: its canonical UTC text, or Go's parse error. */
export type MicroTimeParse =
  | { readonly ok: true; readonly canonical: string }
  | { readonly ok: false; readonly error: string };

/** The layout's elements in order, each with what it accepts. */
const ELEMENTS: readonly { readonly layout: string; readonly pattern: RegExp }[] = [
  { layout: "2006", pattern: /^\d{4}/ },
  { layout: "-", pattern: /^-/ },
  { layout: "01", pattern: /^\d{2}/ },
  { layout: "-", pattern: /^-/ },
  { layout: "02", pattern: /^\d{2}/ },
  { layout: "T", pattern: /^T/ },
  { layout: "15", pattern: /^\d{2}/ },
  { layout: ":", pattern: /^:/ },
  { layout: "04", pattern: /^\d{2}/ },
  { layout: ":", pattern: /^:/ },
  { layout: "05", pattern: /^\d{2}/ },
  { layout: ".000000", pattern: /^\.\d{6}/ },
  { layout: "Z07:00", pattern: /^(Z|[+-]\d{2}:\d{2})/ },
];

function quote(text: string): string {
  return JSON.stringify(text);
}

/**
 * Parses `text` as the real server parses a MicroTime, with Go's error wording.
 *
 * @example
 * ```ts
 * parseMicroTime("2026-12-03T15:37:03.123456+02:00"); // { ok: true, canonical: "2026-12-03T13:37:03.123456Z" }
 * parseMicroTime("2026-12-03T13:37:03.123Z").ok; // false: three digits
 * ```
 */
export function parseMicroTime(text: string): MicroTimeParse {
  const parts: string[] = [];
  let rest = text;
  for (const element of ELEMENTS) {
    const match = element.pattern.exec(rest);
    if (match === null) {
      return {
        ok: false,
        error: `parsing time ${quote(text)} as ${quote(MICRO_TIME_LAYOUT)}: cannot parse ${quote(rest)} as ${
          quote(element.layout)
        }`,
      };
    }
    parts.push(match[0]);
    rest = rest.slice(match[0].length);
  }
  if (rest !== "") return { ok: false, error: `parsing time ${quote(text)}: extra text: ${quote(rest)}` };
  const [year, , month, , day, , hour, , minute, , second, fraction, zone] = parts;
  const number = (part: string | undefined) => Number(part);
  const outOfRange = (what: string): MicroTimeParse => ({
    ok: false,
    error: `parsing time ${quote(text)}: ${what} out of range`,
  });
  if (number(month) < 1 || number(month) > 12) return outOfRange("month");
  const daysInMonth = new Date(Date.UTC(number(year), number(month), 0)).getUTCDate();
  if (number(hour) > 23) return outOfRange("hour");
  if (number(minute) > 59) return outOfRange("minute");
  if (number(second) > 59) return outOfRange("second");
  if (number(day) < 1 || number(day) > daysInMonth) return outOfRange("day");
  let offsetMinutes = 0;
  if (zone !== "Z") {
    const sign = zone!.startsWith("-") ? -1 : 1;
    offsetMinutes = sign * (number(zone!.slice(1, 3)) * 60 + number(zone!.slice(4, 6)));
  }
  const utc = new Date(Date.UTC(number(year), number(month) - 1, number(day), number(hour), number(minute)));
  utc.setUTCFullYear(number(year)); // Date.UTC maps years 0–99 to 1900–1999
  utc.setUTCMinutes(utc.getUTCMinutes() - offsetMinutes);
  const whole = utc.toISOString().slice(0, 16); // YYYY-MM-DDTHH:MM
  return { ok: true, canonical: `${whole}:${second}${fraction}Z` };
}

function cannotHandle(reason: string): never {
  throw badRequest(`Lease in version "v1" cannot be handled as a Lease: ${reason}`);
}

/** Go's name for the JSON type of `value`, as `json: cannot unmarshal <it> into …` says it. */
function jsonTypeName(value: Json): string {
  if (typeof value === "number") return `number ${value}`;
  if (typeof value === "boolean") return "bool";
  if (Array.isArray(value)) return "array";
  return typeof value === "string" ? "string" : "object";
}

function wrongType(field: string, value: Json, goType: string): never {
  cannotHandle(
    `json: cannot unmarshal ${
      jsonTypeName(value)
    } into Go struct field LeaseSpec.spec.${field} of type ${goType}`,
  );
}

const SPEC_FIELDS: Readonly<Record<string, "string" | "int32" | "MicroTime">> = {
  holderIdentity: "string",
  leaseDurationSeconds: "int32",
  acquireTime: "MicroTime",
  renewTime: "MicroTime",
  leaseTransitions: "int32",
  strategy: "string",
  preferredHolder: "string",
};

function decodeField(field: string, type: "string" | "int32" | "MicroTime", value: Json): Json {
  switch (type) {
    case "string":
      if (typeof value !== "string") wrongType(field, value, "string");
      return value;
    case "int32":
      if (typeof value !== "number") wrongType(field, value, "int32");
      if (!Number.isInteger(value) || value < -2147483648 || value > 2147483647) {
        wrongType(field, value, "int32");
      }
      return value;
    case "MicroTime": {
      if (typeof value !== "string") {
        cannotHandle(`json: cannot unmarshal ${jsonTypeName(value)} into Go value of type string`);
      }
      const parsed = parseMicroTime(value);
      if (!parsed.ok) cannotHandle(parsed.error);
      return parsed.canonical;
    }
  }
}

/**
 * A Lease body as the real server keeps it: typed fields checked (400 BadRequest), MicroTimes
 * in UTC, `null` fields and unknown fields dropped, `spec` always present.
 */
export function decodeLease(body: JsonMap): JsonMap {
  const spec = body.spec ?? {};
  if (!isJsonMap(spec)) {
    cannotHandle(
      `json: cannot unmarshal ${jsonTypeName(spec)} into Go struct field Lease.spec of type v1.LeaseSpec`,
    );
  }
  const decoded: JsonMap = {};
  for (const [field, type] of Object.entries(SPEC_FIELDS)) {
    const value = spec[field];
    if (value === undefined || value === null) continue;
    decoded[field] = decodeField(field, type, value);
  }
  const result: JsonMap = {};
  for (const key of ["apiVersion", "kind", "metadata"]) if (body[key] !== undefined) result[key] = body[key]!;
  result.spec = decoded;
  return result;
}

const STRATEGIES = ["OldestEmulationVersion"];

/** What the real server's Lease validation refuses in `object` (422 causes); empty when valid. */
export function leaseProblems(object: JsonMap): Required<StatusCause>[] {
  const spec = isJsonMap(object.spec) ? object.spec : {};
  const causes: Required<StatusCause>[] = [];
  const invalid = (field: string, value: Json | undefined, message: string) =>
    causes.push({
      reason: "FieldValueInvalid",
      message: `Invalid value: ${JSON.stringify(value)}: ${message}`,
      field: `spec.${field}`,
    });
  const duration = spec.leaseDurationSeconds;
  if (typeof duration === "number" && duration <= 0) {
    invalid("leaseDurationSeconds", duration, "must be greater than 0");
  }
  const transitions = spec.leaseTransitions;
  if (typeof transitions === "number" && transitions < 0) {
    invalid("leaseTransitions", transitions, "must be greater than or equal to 0");
  }
  const strategy = typeof spec.strategy === "string" ? spec.strategy : undefined;
  if (strategy !== undefined && !strategy.includes("/") && !STRATEGIES.includes(strategy)) {
    causes.push({
      reason: "FieldValueNotSupported",
      message: `Unsupported value: ${JSON.stringify(strategy)}: supported values: ${
        STRATEGIES.map((name) => JSON.stringify(name)).join(", ")
      }`,
      field: "spec.strategy.strategy",
    });
  }
  if (typeof spec.preferredHolder === "string" && spec.preferredHolder !== "" && !strategy) {
    causes.push({
      reason: "FieldValueForbidden",
      message: "Forbidden: may only be specified if `strategy` is defined",
      field: "spec.preferredHolder",
    });
  }
  return causes;
}
