/**
 * Parses `--upstream`. Addresses only: a name would need a resolver to find the resolver, and the
 * cluster DNS is always known by its ClusterIP.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { formatIp, parseIp } from "../util/ip.ts";

/** One upstream DNS server. */
export interface Upstream {
  /** As `formatIp` writes it. */
  readonly host: string;
  readonly port: number;
}

/** What the list accepts, for messages. */
export const UPSTREAM_ACCEPTED =
  "IP addresses with an optional port: 10.96.0.10, 10.96.0.10:5353, fd00::a, " +
  "[fd00::a]:53 (comma-separated)";

function parseOne(raw: string): Upstream | string {
  const text = raw.trim();
  let hostText = text;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed !== null) {
    hostText = bracketed[1] ?? "";
    portText = bracketed[2];
  } else if ((text.match(/:/g) ?? []).length === 1) {
    [hostText, portText] = text.split(":") as [string, string];
  }
  const ip = parseIp(hostText);
  if (ip === undefined) return `"${text}" is not an IP address (names are not accepted)`;
  const port = portText === undefined ? 53 : Number(portText);
  if (!/^\d+$/.test(portText ?? "53") || port < 1 || port > 65535) {
    return `"${text}": the port must be 1-65535`;
  }
  return { host: formatIp(ip), port };
}

/**
 * Parses a comma-separated upstream list; every problem at once.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseUpstreams } from "./upstream_list.ts";
 *
 * assert.deepEqual(parseUpstreams("10.96.0.10, [fd00::a]:5353"), {
 *   ok: true,
 *   upstreams: [{ host: "10.96.0.10", port: 53 }, { host: "fd00::a", port: 5353 }],
 * });
 * ```
 */
export function parseUpstreams(
  text: string,
): { ok: true; upstreams: readonly Upstream[] } | { ok: false; problems: readonly string[] } {
  const parsed = text.split(",").filter((part) => part.trim() !== "").map(parseOne);
  const problems = parsed.filter((item): item is string => typeof item === "string");
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, upstreams: parsed as Upstream[] };
}
