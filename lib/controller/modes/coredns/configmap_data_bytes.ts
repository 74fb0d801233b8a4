/**
 * The ConfigMap size budget: tells the CoreDNS sinks, before they send anything, whether new data
 * would exceed what the API server stores in one ConfigMap, so they can keep the previous content
 * and say why instead of collecting a 422.
 *
 * The API server rejects a ConfigMap whose data exceeds 1 MiB (1,048,576 bytes): its validation
 * adds up the UTF-8 byte length of every `data` value and the decoded length of every
 * `binaryData` value, and refuses a total above the limit (exactly 1 MiB is accepted). This
 * module counts the same and also adds every key's UTF-8 length: a margin of a few dozen bytes,
 * so a count right at the limit can never turn into a rejected write.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** The most data bytes one ConfigMap may hold. */
export const CONFIGMAP_DATA_LIMIT = 1_048_576;

/**
 * UTF-8 byte length of a string, without encoding it. A lone surrogate counts 3 bytes, as it
 * becomes U+FFFD when encoded.
 *
 * @example
 * ```ts
 * import { utf8Length } from "./configmap_data_bytes.ts";
 *
 * utf8Length("a"); // 1
 * utf8Length("é"); // 2
 * utf8Length("😀"); // 4
 * ```
 */
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

/**
 * Decoded length of a base64 value as it appears in `binaryData` (standard alphabet, `=`
 * padding).
 *
 * @example
 * ```ts
 * import { base64DecodedLength } from "./configmap_data_bytes.ts";
 *
 * base64DecodedLength("aGk="); // 2 ("hi")
 * ```
 */
export function base64DecodedLength(encoded: string): number {
  const trimmed = encoded.replace(/=+$/, "");
  return Math.floor((trimmed.length * 3) / 4);
}

/**
 * Bytes a ConfigMap's data counts against the limit: UTF-8 lengths of the `data` keys and values
 * plus the `binaryData` keys and decoded values.
 *
 * @example
 * ```ts
 * import { configMapDataBytes } from "./configmap_data_bytes.ts";
 *
 * configMapDataBytes({ Corefile: ".:53 {\n}\n" }); // 8 + 9 = 17
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

/**
 * Whether the data would be too large to store: more than {@linkcode CONFIGMAP_DATA_LIMIT} bytes
 * as {@linkcode configMapDataBytes} counts them.
 *
 * @example
 * ```ts
 * import { exceedsConfigMapLimit } from "./configmap_data_bytes.ts";
 *
 * exceedsConfigMapLimit({ Corefile: "x".repeat(2_000_000) }); // true
 * ```
 */
export function exceedsConfigMapLimit(
  data: Readonly<Record<string, string>>,
  binaryData: Readonly<Record<string, string>> = {},
): boolean {
  return configMapDataBytes(data, binaryData) > CONFIGMAP_DATA_LIMIT;
}
