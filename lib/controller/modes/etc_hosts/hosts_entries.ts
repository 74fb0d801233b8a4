/**
 * The lines etc-hosts mode writes between its markers, `<ip> <host>` with one space, and the
 * checks that keep anything else out of them.
 *
 * Pure: no I/O.
 *
 * Last line of defence against injected entries: a host outside `[a-z0-9.-]` is refused, not
 * cleaned. The IP is written canonically, so octal-looking `10.0.0.010` never reaches a node.
 *
 * @module
 */

import { formatIp, parseIp } from "../../../util/ip.ts";
import { trimAsciiWhitespace } from "../text_lines.ts";
import { type HostsRefusal, hostsRefusal } from "./hosts_problems.ts";

/** The longest hostname written (RFC 1035, without the trailing dot). */
export const MAX_HOST_LENGTH = 253;

const HOST_CHARACTERS = /^[a-z0-9.-]+$/;
const FIELD_SEPARATOR = /[ \t\r\v\f]+/;

/** What the block should hold: a canonical IP and the hosts in the order they will be written. */
export interface EntryPlan {
  readonly kind: "entries";
  readonly ip: string;
  readonly hosts: readonly string[];
}

/**
 * Validates the address and the hosts for the block; hosts keep their order, repeats written once.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planEntries } from "./hosts_entries.ts";
 *
 * assert.deepEqual(planEntries("2001:DB8::0:1", ["b.example.com", "a.example.com"]), {
 *   kind: "entries",
 *   ip: "2001:db8::1",
 *   hosts: ["b.example.com", "a.example.com"],
 * });
 * assert.equal(planEntries("10.0.0", ["a.example.com"]).kind, "refused");
 * ```
 */
export function planEntries(ip: string, hosts: readonly string[]): EntryPlan | HostsRefusal {
  const address = ip === "" ? undefined : parseIp(ip);
  if (address === undefined || ip.includes("%") || ip.startsWith("[")) {
    return hostsRefusal(
      "invalid-ip",
      ip === ""
        ? "the proxy IP is empty: set --proxy-ip to the proxy Service's ClusterIP (IPv4 or IPv6)"
        : `the proxy IP ${JSON.stringify(ip)} is not an IPv4 or IPv6 address: set --proxy-ip to the ` +
          `proxy Service's ClusterIP, without brackets, port or zone`,
    );
  }
  const unique: string[] = [];
  const seen = new Set<string>();
  for (const host of hosts) {
    const problem = hostProblem(host);
    if (problem !== undefined) {
      return hostsRefusal(
        "invalid-host",
        `refusing to write hostname ${JSON.stringify(host)} to the hosts file: ${problem}. ` +
          "This is a bug in ouroboros's hostname checks; please report it with the source object.",
      );
    }
    if (seen.has(host)) continue;
    seen.add(host);
    unique.push(host);
  }
  return { kind: "entries", ip: formatIp(address), hosts: unique };
}

/** Why a host may not be written, or `undefined` when it may. */
export function hostProblem(host: string): string | undefined {
  if (host === "") return "it is empty";
  if (host.length > MAX_HOST_LENGTH) return `it is longer than ${MAX_HOST_LENGTH} characters`;
  if (!HOST_CHARACTERS.test(host)) return "only lower-case letters, digits, '.' and '-' may appear in it";
  return undefined;
}

/** One line of our block, without its terminator. */
export function renderEntry(ip: string, host: string): string {
  return `${ip} ${host}`;
}

/**
 * Reads a line between our markers as {@linkcode renderEntry} writes it, or `undefined`. Any valid
 * address spelling counts, so a changed `--proxy-ip` still reads as ours.
 */
export function parseOwnEntry(content: string): { readonly ip: string; readonly host: string } | undefined {
  const space = content.indexOf(" ");
  if (space <= 0) return undefined;
  const ip = content.slice(0, space);
  const host = content.slice(space + 1);
  if (parseIp(ip) === undefined || hostProblem(host) !== undefined) return undefined;
  return { ip, host };
}

/**
 * The names an ordinary hosts-file line gives an address, lower-cased as glibc compares them;
 * empty when the first field is not an address (glibc skips those lines too).
 */
export function entryNames(content: string): string[] {
  const hash = content.indexOf("#");
  const fields = trimAsciiWhitespace(hash < 0 ? content : content.slice(0, hash)).split(FIELD_SEPARATOR);
  const [address, ...names] = fields;
  if (address === undefined || address === "" || parseIp(address) === undefined) return [];
  return names.map((name) => name.toLowerCase());
}
