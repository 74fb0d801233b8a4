/**
 * A strict reference parser for PROXY protocol headers (HAProxy's proxy-protocol.txt, v1 and
 * v2), written from the specification and independent of `lib/`, so tests can check what the
 * encoders produce against the grammar rather than against themselves.
 *
 * It is stricter than real receivers: it refuses anything the spec says a sender must not
 * emit (leading zeros, double spaces, a lone CR or LF, a v1 line longer than 107 bytes, a v2
 * length that does not match the address family, trailing bytes).
 *
 * IPv6 text is validated with the WHATWG URL parser, another implementation again.
 *
 * @module
 */

/** Why a header was refused. */
export class ProxyHeaderError extends Error {
  /** Creates an error naming the rule the header broke. */
  constructor(message: string) {
    super(message);
    this.name = "ProxyHeaderError";
  }
}

/** The address part shared by parsed v1 and v2 headers. */
export interface ParsedAddresses {
  readonly family: "TCP4" | "TCP6";
  readonly source: Uint8Array;
  readonly destination: Uint8Array;
  readonly sourcePort: number;
  readonly destinationPort: number;
}

/** A parsed v1 header. `sourceText`/`destinationText` are the addresses exactly as written. */
export type ParsedV1 =
  | { readonly family: "UNKNOWN"; readonly length: number }
  | (ParsedAddresses & {
    readonly length: number;
    readonly sourceText: string;
    readonly destinationText: string;
  });

/** A parsed v2 header. */
export type ParsedV2 =
  | { readonly command: "LOCAL" | "PROXY"; readonly family: "UNSPEC"; readonly length: number }
  | (ParsedAddresses & { readonly command: "LOCAL" | "PROXY"; readonly length: number });

/** Spec §2.1: "a 108-byte buffer is always enough" for the line including CRLF, so at most 107. */
export const V1_LIMIT = 107;

/** Spec §2.2: the 12-byte v2 signature. */
export const V2_SIGNATURE_BYTES: readonly number[] = [
  0x0d,
  0x0a,
  0x0d,
  0x0a,
  0x00,
  0x0d,
  0x0a,
  0x51,
  0x55,
  0x49,
  0x54,
  0x0a,
];

const DECIMAL_OCTET = /^(?:0|[1-9][0-9]{0,2})$/;
const PORT = /^(?:0|[1-9][0-9]{0,4})$/;

function fail(message: string): never {
  throw new ProxyHeaderError(message);
}

function ipv4Bytes(text: string): Uint8Array {
  const parts = text.split(".");
  if (parts.length !== 4) fail(`IPv4 address ${JSON.stringify(text)} does not have 4 parts`);
  return Uint8Array.from(parts, (part) => {
    if (!DECIMAL_OCTET.test(part) || Number(part) > 255) {
      fail(`IPv4 address ${JSON.stringify(text)} has a bad octet ${JSON.stringify(part)}`);
    }
    return Number(part);
  });
}

/** The 16 bytes of an IPv6 literal, validated by the URL parser (no zone, no brackets). */
export function ipv6Bytes(text: string): Uint8Array {
  if (!/^[0-9A-Fa-f:.]+$/.test(text)) fail(`IPv6 address ${JSON.stringify(text)} has a bad character`);
  let canonical: string;
  try {
    canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    fail(`IPv6 address ${JSON.stringify(text)} is not valid`);
  }
  // The serializer prints hex groups only, with at most one `::`.
  const [head = "", tail] = canonical.split("::");
  const headGroups = head === "" ? [] : head.split(":");
  const tailGroups = tail === undefined || tail === "" ? [] : tail.split(":");
  const zeros = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...new Array<string>(zeros).fill("0"), ...tailGroups];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  return bytes;
}

function port(text: string): number {
  if (!PORT.test(text) || Number(text) > 65535) {
    fail(`port ${JSON.stringify(text)} is not 0-65535 in decimal`);
  }
  return Number(text);
}

/**
 * Parses a v1 header at the start of `bytes` (payload may follow it). Throws
 * {@linkcode ProxyHeaderError} naming the broken rule.
 */
export function parseV1(bytes: Uint8Array): ParsedV1 {
  let end = -1;
  for (let i = 0; i < Math.min(bytes.length, V1_LIMIT); i++) {
    const byte = bytes[i];
    if (byte === 0x0d) {
      if (bytes[i + 1] !== 0x0a) fail(`lone CR at byte ${i}`);
      end = i;
      break;
    }
    if (byte === 0x0a) fail(`lone LF at byte ${i}`);
    if (byte === undefined || byte < 0x20 || byte > 0x7e) fail(`non-printable byte ${byte} at ${i}`);
  }
  if (end < 0) fail(`no CRLF within the first ${V1_LIMIT} bytes`);
  const length = end + 2;
  const line = new TextDecoder().decode(bytes.subarray(0, end));
  const fields = line.split(" ");
  if (fields.some((field) => field === "")) {
    fail(`empty field (double, leading or trailing space) in ${line}`);
  }
  if (fields[0] !== "PROXY") fail(`does not start with "PROXY ": ${line}`);
  const family = fields[1];
  if (family === "UNKNOWN") {
    if (fields.length !== 2 && fields.length !== 6) fail(`UNKNOWN with ${fields.length - 2} extra fields`);
    return { family: "UNKNOWN", length };
  }
  if (family !== "TCP4" && family !== "TCP6") fail(`unknown protocol ${JSON.stringify(family)}`);
  if (fields.length !== 6) fail(`${family} needs 4 fields after it, got ${fields.length - 2}`);
  const [, , sourceText = "", destinationText = "", sourcePort = "", destinationPort = ""] = fields;
  const address = family === "TCP4" ? ipv4Bytes : ipv6Bytes;
  return {
    family,
    length,
    sourceText,
    destinationText,
    source: address(sourceText),
    destination: address(destinationText),
    sourcePort: port(sourcePort),
    destinationPort: port(destinationPort),
  };
}

/**
 * Parses a complete v2 header: `bytes` must hold exactly the header (no TLVs, no payload,
 * because the proxy sends none). Throws {@linkcode ProxyHeaderError} naming the broken rule.
 */
export function parseV2(bytes: Uint8Array): ParsedV2 {
  if (bytes.length < 16) fail(`only ${bytes.length} bytes; the fixed part is 16`);
  V2_SIGNATURE_BYTES.forEach((expected, i) => {
    if (bytes[i] !== expected) fail(`signature byte ${i} is ${bytes[i]}, expected ${expected}`);
  });
  const versionCommand = bytes[12] ?? 0;
  if (versionCommand >> 4 !== 2) fail(`version ${versionCommand >> 4}, expected 2`);
  const commandBits = versionCommand & 0x0f;
  if (commandBits > 1) fail(`command ${commandBits} is neither LOCAL (0) nor PROXY (1)`);
  const command = commandBits === 0 ? "LOCAL" : "PROXY";
  const familyByte = bytes[13] ?? 0;
  const declared = ((bytes[14] ?? 0) << 8) | (bytes[15] ?? 0);
  if (bytes.length !== 16 + declared) {
    fail(`length field says ${declared} but ${bytes.length - 16} bytes follow`);
  }
  const length = bytes.length;
  if (familyByte === 0x00) {
    if (declared !== 0) fail(`UNSPEC with a ${declared}-byte address block`);
    return { command, family: "UNSPEC", length };
  }
  const size = familyByte === 0x11
    ? 4
    : familyByte === 0x21
    ? 16
    : fail(`family byte 0x${familyByte.toString(16)}`);
  if (declared !== 2 * size + 4) {
    fail(`family 0x${familyByte.toString(16)} needs ${2 * size + 4} bytes, got ${declared}`);
  }
  const ports = 16 + 2 * size;
  return {
    command,
    family: size === 4 ? "TCP4" : "TCP6",
    length,
    source: bytes.slice(16, 16 + size),
    destination: bytes.slice(16 + size, ports),
    sourcePort: ((bytes[ports] ?? 0) << 8) | (bytes[ports + 1] ?? 0),
    destinationPort: ((bytes[ports + 2] ?? 0) << 8) | (bytes[ports + 3] ?? 0),
  };
}

/** One end of a connection as a header names it, addresses in canonical text. */
export interface HeaderEndpoint {
  readonly hostname: string;
  readonly port: number;
}

/** A header read off a live stream. */
export interface ProxyHeader {
  readonly version: 1 | 2;
  /** `UNKNOWN` covers v1 `UNKNOWN` and v2 `UNSPEC` or `LOCAL`; there are no addresses then. */
  readonly family: "TCP4" | "TCP6" | "UNKNOWN";
  readonly source?: HeaderEndpoint;
  readonly destination?: HeaderEndpoint;
  /** How many bytes the header took on the wire. */
  readonly length: number;
}

/** What {@linkcode parseProxyHeader} found at the start of a byte string. */
export type HeaderParse =
  | { readonly kind: "complete"; readonly header: ProxyHeader }
  | { readonly kind: "incomplete" }
  | { readonly kind: "invalid"; readonly reason: string };

/** Canonical text for 4 or 16 address bytes (IPv6 in the URL serializer's RFC 5952 form). */
function addressText(bytes: Uint8Array): string {
  if (bytes.length === 4) return Array.from(bytes).join(".");
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return new URL(`http://[${groups.join(":")}]/`).hostname.slice(1, -1);
}

/** True when v1 address text is the canonical spelling (`::ffff:a.b.c.d` is allowed for mapped IPv4). */
function canonicalV1(text: string, bytes: Uint8Array): boolean {
  if (bytes.length === 4) return true; // parseV1 already refused leading zeros and bad octets
  if (/^::ffff:\d+\.\d+\.\d+\.\d+$/.test(text)) return `::ffff:${addressText(bytes.slice(12))}` === text;
  return addressText(bytes) === text;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  for (let i = 0; i < Math.min(bytes.length, prefix.length); i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

const V1_PREFIX = Array.from(new TextEncoder().encode("PROXY "));

/**
 * Reads a header (v1 or v2) at the start of a live stream: `incomplete` until enough bytes have
 * arrived, then `complete` with the header and its length (payload may follow), or `invalid`
 * with the rule that was broken. Stricter than real receivers: v1 addresses must be canonical.
 *
 * @example
 * ```ts
 * parseProxyHeader(new TextEncoder().encode("PROXY TCP4 10.0.0.7 10.0.0.2 51000 8080\r\nGET /"));
 * // { kind: "complete", header: { version: 1, family: "TCP4", source: { hostname: "10.0.0.7", port: 51000 }, … } }
 * ```
 */
export function parseProxyHeader(bytes: Uint8Array): HeaderParse {
  if (bytes.length === 0) return { kind: "incomplete" };
  try {
    if (startsWith(bytes, V2_SIGNATURE_BYTES)) {
      if (bytes.length < 16) return { kind: "incomplete" };
      const length = 16 + (((bytes[14] ?? 0) << 8) | (bytes[15] ?? 0));
      if (bytes.length < length) return { kind: "incomplete" };
      const parsed = parseV2(bytes.subarray(0, length));
      if (parsed.family === "UNSPEC" || parsed.command === "LOCAL") {
        return { kind: "complete", header: { version: 2, family: "UNKNOWN", length } };
      }
      return {
        kind: "complete",
        header: {
          version: 2,
          family: parsed.family,
          source: { hostname: addressText(parsed.source), port: parsed.sourcePort },
          destination: { hostname: addressText(parsed.destination), port: parsed.destinationPort },
          length,
        },
      };
    }
    if (startsWith(bytes, V1_PREFIX)) {
      const window = bytes.subarray(0, V1_LIMIT);
      if (!window.includes(0x0a) && bytes.length < V1_LIMIT) {
        // A lone CR or a control byte is already wrong; otherwise wait for the rest of the line.
        const bad = window.findIndex((byte, i) => byte < 0x20 && !(byte === 0x0d && i === window.length - 1));
        if (bad < 0) return { kind: "incomplete" };
      }
      const parsed = parseV1(bytes);
      if (parsed.family === "UNKNOWN") {
        return { kind: "complete", header: { version: 1, family: "UNKNOWN", length: parsed.length } };
      }
      if (
        !canonicalV1(parsed.sourceText, parsed.source) ||
        !canonicalV1(parsed.destinationText, parsed.destination)
      ) {
        return {
          kind: "invalid",
          reason: `addresses not in canonical form: ${parsed.sourceText} ${parsed.destinationText}`,
        };
      }
      return {
        kind: "complete",
        header: {
          version: 1,
          family: parsed.family,
          source: { hostname: parsed.sourceText, port: parsed.sourcePort },
          destination: { hostname: parsed.destinationText, port: parsed.destinationPort },
          length: parsed.length,
        },
      };
    }
    return {
      kind: "invalid",
      reason: `first bytes ${
        JSON.stringify(new TextDecoder().decode(bytes.subarray(0, 12)))
      } start no PROXY header`,
    };
  } catch (error) {
    if (error instanceof ProxyHeaderError) return { kind: "invalid", reason: error.message };
    throw error;
  }
}
