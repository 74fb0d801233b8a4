/**
 * The validation the fake applies before storing an object: object names (DNS subdomain, or DNS
 * label for Namespaces and Services), the 1 MiB limit on a ConfigMap's `data` plus
 * `binaryData`, and a Lease's spec (`lease.ts`). Failures become 422 Invalid causes worded like
 * the real server's. {@linkcode decodeBody} comes first: what the real server could not even
 * decode into its Go type (a Lease's MicroTime in the wrong format) is 400 BadRequest.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { KindInfo } from "./kinds.ts";
import { isJsonMap, type JsonMap } from "./json.ts";
import { decodeLease, leaseProblems } from "./lease.ts";
import type { StatusCause } from "./status.ts";

/** The most bytes a ConfigMap's keys and values may total (`data` and decoded `binaryData`). */
export const CONFIGMAP_MAX_BYTES = 1_048_576;

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const CONFIGMAP_KEY = /^[-._a-zA-Z0-9]+$/;

function nameProblem(info: KindInfo, name: string): string | undefined {
  if (info.kind === "Namespace") {
    return name.length <= 63 && DNS1123_LABEL.test(name)
      ? undefined
      : "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start " +
        "and end with an alphanumeric character";
  }
  if (info.kind === "Service") {
    return name.length <= 63 && DNS1035_LABEL.test(name)
      ? undefined
      : "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic " +
        "character, and end with an alphanumeric character";
  }
  return name.length <= 253 && SUBDOMAIN.test(name)
    ? undefined
    : "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must " +
      "start and end with an alphanumeric character";
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function base64Length(text: string): number {
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  return Math.floor(text.length / 4) * 3 - padding;
}

function configMapProblems(object: JsonMap): Required<StatusCause>[] {
  const causes: Required<StatusCause>[] = [];
  let total = 0;
  for (const field of ["data", "binaryData"] as const) {
    const map = object[field];
    if (map === undefined || map === null) continue;
    if (!isJsonMap(map)) {
      causes.push({ reason: "FieldValueInvalid", message: "Invalid value: must be a map of strings", field });
      continue;
    }
    for (const [key, value] of Object.entries(map)) {
      if (!CONFIGMAP_KEY.test(key) || key.length > 253) {
        causes.push({
          reason: "FieldValueInvalid",
          message:
            `Invalid value: "${key}": a valid config key must consist of alphanumeric characters, '-', '_' or '.'`,
          field: `${field}[${key}]`,
        });
      }
      if (typeof value !== "string") {
        causes.push({
          reason: "FieldValueInvalid",
          message: "Invalid value: must be a string",
          field: `${field}[${key}]`,
        });
        continue;
      }
      total += utf8Length(key) + (field === "data" ? utf8Length(value) : base64Length(value));
    }
  }
  if (total > CONFIGMAP_MAX_BYTES) {
    causes.push({
      reason: "FieldValueTooLong",
      message: `Too long: must have at most ${CONFIGMAP_MAX_BYTES} bytes`,
      field: "[]",
    });
  }
  return causes;
}

/** What is wrong with `object` as a `info.kind` named `name`; empty when it is valid. */
export function validate(info: KindInfo, name: string, object: JsonMap): Required<StatusCause>[] {
  const causes: Required<StatusCause>[] = [];
  const problem = nameProblem(info, name);
  if (problem !== undefined) {
    causes.push({
      reason: "FieldValueInvalid",
      message: `Invalid value: "${name}": ${problem}`,
      field: "metadata.name",
    });
  }
  if (info.kind === "ConfigMap") causes.push(...configMapProblems(object));
  if (isLease(info)) causes.push(...leaseProblems(object));
  return causes;
}

function isLease(info: KindInfo): boolean {
  return info.group === "coordination.k8s.io" && info.kind === "Lease";
}

/**
 * A request body as the real server decodes it into its type, before anything else looks at
 * it: a Lease's fields typed and normalised (400 BadRequest when they cannot be); other kinds as
 * they come.
 */
export function decodeBody(info: KindInfo, body: JsonMap): JsonMap {
  return isLease(info) ? decodeLease(body) : body;
}
