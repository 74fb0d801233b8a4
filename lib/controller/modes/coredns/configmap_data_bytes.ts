/**
 * The ConfigMap size budget: tells the CoreDNS sinks before they write whether the data would
 * exceed the API server's 1 MiB limit, so they keep the old content and say why instead of a 422.
 *
 * Pure: no I/O.
 *
 * Counts as the API server does (UTF-8 `data` values, decoded `binaryData`) plus the keys, a small
 * margin so a count right at the limit never turns into a rejected write.
 *
 * @module
 */

/** The most data bytes one ConfigMap may hold. */
export const CONFIGMAP_DATA_LIMIT = 1_048_576;

/** UTF-8 byte length without encoding; a lone surrogate counts 3 (it encodes as U+FFFD). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Decoded length of a `binaryData` value (standard base64, `=` padding). */
export function base64DecodedLength(encoded: string): number {
  const trimmed = encoded.replace(/=+$/, "");
  return Math.floor((trimmed.length * 3) / 4);
}

/**
 * Bytes a ConfigMap's data counts against the limit, keys included.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { configMapDataBytes } from "./configmap_data_bytes.ts";
 *
 * assert.equal(configMapDataBytes({ Corefile: ".:53 {\n}\n" }), 8 + 9);
 * ```
 */
export function configMapDataBytes(
  data: Readonly<Record<string, string>>,
  binaryData: Readonly<Record<string, string>> = {},
): number {
  let total = 0;
  for (const [key, value] of Object.entries(data)) total += utf8Length(key) + utf8Length(value);
  for (const [key, value] of Object.entries(binaryData)) {
    total += utf8Length(key) + base64DecodedLength(value);
  }
  return total;
}

/** Whether the data is over {@linkcode CONFIGMAP_DATA_LIMIT} as counted here. */
export function exceedsConfigMapLimit(
  data: Readonly<Record<string, string>>,
  binaryData: Readonly<Record<string, string>> = {},
): boolean {
  return configMapDataBytes(data, binaryData) > CONFIGMAP_DATA_LIMIT;
}
