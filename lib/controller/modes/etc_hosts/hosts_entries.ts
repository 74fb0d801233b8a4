/**
 * The lines etc-hosts mode writes between its markers, `<ip> <host>` with one space, and the
 * checks that keep anything else out of them.
 *
 * The hostname core already accepts only plain RFC 1123 names, so these checks are the last line
 * of defence against a value that would add an entry of its own choosing (a line break, a second
 * name after a space, a `#`): a host with any character outside `[a-z0-9.-]` is refused, not
 * cleaned. The IP is printed canonically (dotted quad; RFC 5952 for IPv6), so `10.0.0.010`
 * (which some resolvers read as octal) or `2001:DB8::0:1` never reach a node.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { formatIp, parseIp } from "../../../util/ip.ts";
import { trimAsciiWhitespace } from "../text_lines.ts";
import { type HostsRefusal, hostsRefusal } from "./hosts_problems.ts";

/** The longest hostname written (RFC 1035 text form without the trailing dot). */
export const MAX_HOST_LENGTH = 253;

const HOST_CHARACTERS = /^[a-z0-9.-]+$/;
const FIELD_SEPARATOR = /[ \t\r\v\f]+/;

/** What the block should hold: a canonical IP and the hosts in the order they will be written. */
export interface EntryPlan {
  readonly kind: "entries";
  /** The canonical spelling of the address. */
  readonly ip: string;
  /** The hosts as given, first occurrence kept when one is repeated. */
  readonly hosts: readonly string[];
}

/**
 * Validates the address and the hosts for the block. The hosts keep the order given (the
 * controller passes them sorted); a repeated host is written once.
 *
 * @example
 * ```ts
 * import { planEntries } from "./hosts_entries.ts";
 *
 * planEntries("2001:DB8::0:1", ["b.example.com", "a.example.com"]);
 * // { kind: "entries", ip: "2001:db8::1", hosts: ["b.example.com", "a.example.com"] }
 * planEntries("10.0.0", ["a.example.com"]).kind; // "refused"
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

/**
 * One line of our block, without its terminator.
 *
 * @example
 * ```ts
 * import { renderEntry } from "./hosts_entries.ts";
 *
 * renderEntry("10.96.0.10", "app.example.com"); // "10.96.0.10 app.example.com"
 * ```
 */
export function renderEntry(ip: string, host: string): string {
  return `${ip} ${host}`;
}

/**
 * Reads a line found between our markers: `<ip> <host>` exactly as {@linkcode renderEntry}
 * writes it (any valid spelling of the address, so a changed `--proxy-ip` still reads as ours),
 * or `undefined` for anything else.
 *
 * @example
 * ```ts
 * import { parseOwnEntry } from "./hosts_entries.ts";
 *
 * parseOwnEntry("10.96.0.10 app.example.com"); // { ip: "10.96.0.10", host: "app.example.com" }
 * parseOwnEntry("10.96.0.10\tapp.example.com"); // undefined (we never write a tab)
 * ```
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
 * The names an ordinary hosts-file line gives an address, lower-cased (glibc compares names
 * case-insensitively): every field after the first, up to a `#` comment. Empty for comments,
 * blank lines and lines whose first field is not an address (glibc skips those too).
 *
 * @example
 * ```ts
 * import { entryNames } from "./hosts_entries.ts";
 *
 * entryNames("10.0.0.1\tApp.example.com app # pinned"); // ["app.example.com", "app"]
 * ```
 */
export function entryNames(content: string): string[] {
  const hash = content.indexOf("#");
  const fields = trimAsciiWhitespace(hash < 0 ? content : content.slice(0, hash)).split(FIELD_SEPARATOR);
  const [address, ...names] = fields;
  if (address === undefined || address === "" || parseIp(address) === undefined) return [];
  return names.map((name) => name.toLowerCase());
}
