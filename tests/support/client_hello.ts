/**
 * TLS ClientHello bytes built by hand (RFC 8446 §4.1.2, RFC 6066 §3), for tests of the proxy's
 * SNI reader and of routing: any extension list, any record fragmentation.
 *
 * @module
 */

export const ascii = (text: string): number[] => [...new TextEncoder().encode(text)];
export const u16 = (value: number): number[] => [value >> 8, value & 0xff];
export const vector8 = (bytes: readonly number[]): number[] => [bytes.length, ...bytes];
export const vector16 = (bytes: readonly number[]): number[] => [...u16(bytes.length), ...bytes];
export const extension = (
  type: number,
  data: readonly number[],
): number[] => [...u16(type), ...vector16(data)];

/** A server_name extension (RFC 6066 §3) holding `entries` of [name_type, name]. */
export function serverName(...entries: readonly [number, string][]): number[] {
  return extension(0, vector16(entries.flatMap(([type, name]) => [type, ...vector16(ascii(name))])));
}

/** A key_share extension with an X25519MLKEM768 share (1216 bytes) and an X25519 one, as Chrome sends. */
export const POST_QUANTUM_KEY_SHARE = extension(
  51,
  vector16([
    ...u16(0x11ec),
    ...vector16(new Array(1216).fill(0xab)),
    ...u16(0x1d),
    ...vector16(new Array(32).fill(1)),
  ]),
);

/** A ClientHello's body (RFC 8446 §4.1.2); no extensions block when `extensions` is undefined. */
export function helloBody(extensions: readonly (readonly number[])[] | undefined): number[] {
  return [
    ...u16(0x0303),
    ...new Array(32).fill(7),
    ...vector8(new Array(32).fill(9)),
    ...vector16([0x13, 0x01, 0x13, 0x02, 0xc0, 0x2f]),
    ...vector8([0]),
    ...(extensions === undefined ? [] : vector16(extensions.flat())),
  ];
}

/** A ClientHello handshake message around `body`. */
export function handshake(body: readonly number[]): Uint8Array {
  return new Uint8Array([1, 0, ...u16(body.length), ...body]);
}

export function clientHello(extensions: readonly (readonly number[])[] | undefined): Uint8Array {
  return handshake(helloBody(extensions));
}

/** `message` in handshake records whose fragment sizes cycle through `sizes`. */
export function records(message: Uint8Array, sizes: readonly number[] = [16384]): Uint8Array {
  const out: number[] = [];
  for (let at = 0, index = 0; at < message.length; index++) {
    const fragment = message.subarray(at, at + sizes[index % sizes.length]!);
    out.push(22, 3, 1, ...u16(fragment.length), ...fragment);
    at += fragment.length;
  }
  return new Uint8Array(out);
}
