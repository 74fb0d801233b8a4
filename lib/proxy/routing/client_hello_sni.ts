/**
 * The server name (SNI, RFC 6066 §3) of the TLS ClientHello a client opens with, read from the
 * bytes the proxy has received so far, so the HTTPS listener can pick the backend before it dials.
 *
 * Decisions a reader could not guess:
 * - The handshake message is gathered across as many TLS records as it spans (a ClientHello may
 *   be fragmented; a post-quantum key share makes it larger than one TCP segment), and parsed as
 *   soon as its last byte is here. `need-more` says how long the buffer must at least grow; the
 *   caller enforces its cap (16 KiB) and may give up at once when `atLeast` is beyond it.
 * - The first `host_name` entry (type 0) of the server_name list is taken; other name types are
 *   skipped, read as length-prefixed as Go's crypto/tls does. Two server_name extensions are
 *   `invalid` (RFC 8446 §4.2): routing by one while the backend read the other is not worth it.
 * - With Encrypted Client Hello, this is the outer hello's public name, which is what routes.
 * - The name is returned normalised (lower case, no trailing dot). One the hostname check refuses
 *   (`routes/route_host.ts`: a single label such as `localhost`, an IP literal, `_`, a control
 *   byte) is `unroutable`: the hello is sound, but no route can match its name, so it can only go
 *   to the default target. An empty name breaks RFC 6066 §3 and is `invalid`.
 * - A first byte other than 22 (handshake), or a record version other than 3.x, is `not-tls`:
 *   an SSLv2-style hello (first byte ≥ 0x80) and plain HTTP among them.
 *
 * Pure: no I/O; never reads past `bytes` and never throws.
 *
 * @module
 */

import { checkRequestedName } from "../../routes/route_host.ts";

/** The outcome of {@linkcode readClientHelloSni}. */
export type ClientHelloSni =
  | { readonly kind: "sni"; readonly name: string }
  /** The hello is not complete: it needs a buffer of at least `atLeast` bytes. */
  | { readonly kind: "need-more"; readonly atLeast: number }
  | { readonly kind: "no-sni" }
  | { readonly kind: "not-tls" }
  /** The name is quoted and cut in `reason`, with why no route can match it. */
  | { readonly kind: "unroutable"; readonly reason: string }
  | { readonly kind: "invalid"; readonly reason: string };

const HANDSHAKE_RECORD = 22;
const CLIENT_HELLO = 1;
const SERVER_NAME_EXTENSION = 0;
const HOST_NAME = 0;
const RECORD_HEADER = 5;
const HANDSHAKE_HEADER = 4;
/** The largest plaintext record (RFC 8446 §5.1). */
const MAX_RECORD = 16384;
const NO_SNI: ClientHelloSni = { kind: "no-sni" };
const NOT_TLS: ClientHelloSni = { kind: "not-tls" };
const latin1 = new TextDecoder("latin1");

/**
 * Reads the SNI of the ClientHello at the start of `bytes`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readClientHelloSni } from "./client_hello_sni.ts";
 *
 * assert.deepEqual(readClientHelloSni(new Uint8Array([22, 3, 1])), { kind: "need-more", atLeast: 9 });
 * assert.deepEqual(readClientHelloSni(new TextEncoder().encode("GET / HTTP/1.1\r\n")), { kind: "not-tls" });
 * ```
 */
export function readClientHelloSni(bytes: Uint8Array): ClientHelloSni {
  if (bytes.length >= 1 && bytes[0] !== HANDSHAKE_RECORD) return NOT_TLS;
  if (bytes.length >= 2 && bytes[1] !== 3) return NOT_TLS;
  const hello = gatherHandshake(bytes);
  return hello instanceof Uint8Array ? parseClientHello(hello) : hello;
}

/** The first handshake message (header included), whole, from as many records as it spans. */
function gatherHandshake(bytes: Uint8Array): Uint8Array | ClientHelloSni {
  const fragments: Uint8Array[] = [];
  let gathered = 0;
  let needed = HANDSHAKE_HEADER;
  for (let at = 0;;) {
    if (bytes.length < at + RECORD_HEADER) {
      return { kind: "need-more", atLeast: at + RECORD_HEADER + needed - gathered };
    }
    if (at > 0 && (bytes[at] !== HANDSHAKE_RECORD || bytes[at + 1] !== 3)) {
      return invalid(`a record of type ${bytes[at]} came before the ClientHello was complete`);
    }
    const length = (bytes[at + 3]! << 8) | bytes[at + 4]!;
    if (length === 0) return invalid("an empty handshake record (RFC 8446 §5.1)");
    if (length > MAX_RECORD) {
      return invalid(`a record of ${length} bytes; at most ${MAX_RECORD} (RFC 8446 §5.1)`);
    }
    const start = at + RECORD_HEADER;
    const available = Math.min(length, bytes.length - start);
    fragments.push(bytes.subarray(start, start + available));
    gathered += available;
    if (needed === HANDSHAKE_HEADER && gathered >= HANDSHAKE_HEADER) {
      const head = joined(fragments, HANDSHAKE_HEADER);
      if (head[0] !== CLIENT_HELLO) {
        return invalid(`the first handshake message is of type ${head[0]}, not ClientHello`);
      }
      needed += (head[1]! << 16) | (head[2]! << 8) | head[3]!;
    }
    if (gathered >= needed) return joined(fragments, needed);
    if (available < length) {
      return { kind: "need-more", atLeast: start + Math.min(length, available + needed - gathered) };
    }
    at = start + length;
  }
}

/** The first `length` bytes of the fragments, copied only when they span more than one. */
function joined(fragments: readonly Uint8Array[], length: number): Uint8Array {
  const first = fragments[0]!;
  if (first.length >= length) return first.subarray(0, length);
  const out = new Uint8Array(length);
  let at = 0;
  for (const fragment of fragments) {
    const part = fragment.subarray(0, length - at);
    out.set(part, at);
    at += part.length;
    if (at === length) break;
  }
  return out;
}

/** A bounds-checked reader over `bytes[at, end)`: every read answers `undefined` past the end. */
class Reader {
  readonly #bytes: Uint8Array;
  readonly #end: number;
  #at: number;

  constructor(bytes: Uint8Array, at: number, end: number) {
    this.#bytes = bytes;
    this.#at = at;
    this.#end = end;
  }

  get done(): boolean {
    return this.#at === this.#end;
  }

  get length(): number {
    return this.#end - this.#at;
  }

  uint(size: 1 | 2): number | undefined {
    const at = this.#at;
    if (at + size > this.#end) return undefined;
    this.#at += size;
    return size === 1 ? this.#bytes[at]! : (this.#bytes[at]! << 8) | this.#bytes[at + 1]!;
  }

  /** A vector with a `size`-byte length prefix (RFC 8446 §3.4), as a reader over its contents. */
  vector(size: 1 | 2): Reader | undefined {
    const length = this.uint(size);
    if (length === undefined || this.#at + length > this.#end) return undefined;
    this.#at += length;
    return new Reader(this.#bytes, this.#at - length, this.#at);
  }

  skip(length: number): boolean {
    if (this.#at + length > this.#end) return false;
    this.#at += length;
    return true;
  }

  text(): string {
    return latin1.decode(this.#bytes.subarray(this.#at, this.#end));
  }
}

/** The SNI of a whole ClientHello message (RFC 8446 §4.1.2; TLS 1.0–1.2 hellos share the shape). */
function parseClientHello(hello: Uint8Array): ClientHelloSni {
  const reader = new Reader(hello, HANDSHAKE_HEADER, hello.length);
  if (!reader.skip(2 + 32)) return invalid("the ClientHello ends inside its version and random");
  const session = reader.vector(1);
  if (session === undefined || session.length > 32) return invalid("a bad legacy_session_id");
  const suites = reader.vector(2);
  if (suites === undefined || suites.length < 2 || suites.length % 2 !== 0) {
    return invalid("bad cipher_suites");
  }
  const compression = reader.vector(1);
  if (compression === undefined || compression.length < 1) return invalid("bad legacy_compression_methods");
  if (reader.done) return NO_SNI; // no extensions at all (SSL 3.0, or TLS 1.0 without any)
  const extensions = reader.vector(2);
  if (extensions === undefined || !reader.done) {
    return invalid("the extensions do not end with the ClientHello");
  }
  let found: ClientHelloSni | undefined;
  while (!extensions.done) {
    const type = extensions.uint(2);
    const data = extensions.vector(2);
    if (type === undefined || data === undefined) return invalid("an extension runs past the extensions");
    if (type !== SERVER_NAME_EXTENSION) continue;
    if (found !== undefined) return invalid("two server_name extensions (RFC 8446 §4.2)");
    found = readServerName(data);
  }
  return found ?? NO_SNI;
}

/** The first host_name of a server_name extension's data (RFC 6066 §3). */
function readServerName(data: Reader): ClientHelloSni {
  const list = data.vector(2);
  if (list === undefined || !data.done || list.done) return invalid("a bad server_name list");
  while (!list.done) {
    const type = list.uint(1);
    const name = list.vector(2);
    if (type === undefined || name === undefined) return invalid("a server_name entry runs past its list");
    if (type !== HOST_NAME) continue;
    if (name.done) return invalid("an empty host_name (RFC 6066 §3)");
    const checked = checkRequestedName(name.text());
    return checked.kind === "routable"
      ? { kind: "sni", name: checked.name }
      : { kind: "unroutable", reason: `the server name ${checked.reason}` };
  }
  return NO_SNI;
}

function invalid(reason: string): ClientHelloSni {
  return { kind: "invalid", reason };
}
