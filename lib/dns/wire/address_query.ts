/**
 * A query of our own, as a stub resolver sends it: one A or AAAA question, recursion desired, with
 * EDNS. The name is absolute (no search list), and only plain host names are accepted: refusing a
 * name that needs escapes beats asking for another name than the caller meant.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { MAX_NAME_OCTETS, TYPE_OPT } from "./read_message.ts";
import { TYPE_A, TYPE_AAAA } from "./record_type_name.ts";

/** The address record types a query may ask for. */
export type AddressType = "A" | "AAAA";

/** Options for {@linkcode addressQuery}. */
export interface AddressQueryOptions {
  readonly type: AddressType;
  /** @default 0 (the forwarder sets its own) */
  readonly id?: number;
  /** The UDP payload size the OPT record advertises, at least 512. @default 1232 */
  readonly maxUdpPayload?: number;
}

const OPT_OCTETS = 11;

/** The wire form of `name`; throws a `TypeError` on a non-host name. */
function wireName(name: string): Uint8Array {
  const text = name.endsWith(".") ? name.slice(0, -1) : name;
  if (text === "") throw new TypeError("an empty name is not a host name");
  const labels = text.split(".");
  const out = new Uint8Array(text.length + 2);
  let offset = 0;
  for (const label of labels) {
    if (label.length === 0 || label.length > 63) {
      throw new TypeError(`${JSON.stringify(name)} has a label of ${label.length} octets (1 to 63 allowed)`);
    }
    out[offset++] = label.length;
    for (let i = 0; i < label.length; i++) {
      const code = label.charCodeAt(i);
      if (code <= 0x20 || code >= 0x7f || code === 0x5c) {
        throw new TypeError(`${JSON.stringify(name)} holds a character a host name cannot hold`);
      }
      out[offset++] = code;
    }
  }
  out[offset++] = 0;
  if (offset > MAX_NAME_OCTETS) throw new TypeError(`${JSON.stringify(name)} is longer than 255 octets`);
  return out.subarray(0, offset);
}

/**
 * A query for the `options.type` records of `name`; throws a `TypeError` on a non-host name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { addressQuery } from "./address_query.ts";
 *
 * assert.equal(addressQuery("shop.example.com", { type: "AAAA" }).length, 12 + 18 + 4 + 11);
 * ```
 */
export function addressQuery(name: string, options: AddressQueryOptions): Uint8Array {
  const encoded = wireName(name);
  const id = options.id ?? 0;
  const size = Math.min(0xffff, Math.max(512, options.maxUdpPayload ?? 1232));
  const type = options.type === "A" ? TYPE_A : TYPE_AAAA;
  const out = new Uint8Array(12 + encoded.length + 4 + OPT_OCTETS);
  out.set([id >> 8, id & 0xff, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 1]);
  out.set(encoded, 12);
  let offset = 12 + encoded.length;
  out.set([type >> 8, type & 0xff, 0, 1], offset);
  offset += 4;
  out.set([0, TYPE_OPT >> 8, TYPE_OPT & 0xff, size >> 8, size & 0xff, 0, 0, 0, 0, 0, 0], offset);
  return out;
}
