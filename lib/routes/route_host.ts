/**
 * The hostname rules of routing, one set for the route table (written by the controller, read by
 * the proxy) and for the names clients send (TLS SNI, HTTP `Host`), so a name is judged the same
 * way on both sides.
 *
 * The shape rules are those of `hostnames/hostname.ts` (RFC 1123 labels of 1–63 characters, at
 * most 253 characters, a numeric last label is an IP literal, a wildcard is one whole leading `*.`
 * label), written again here because `hostnames/` is a sibling on this floor. A table host must
 * have two labels or more, as the controller's check demands; a name a client sends may be a
 * single label (`localhost`): well-formed, it simply matches no route. Underscores are refused on
 * both sides, so a client name holding one can never be mistaken for a table entry.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** The longest name in text form, without the trailing dot (RFC 1035 §2.3.4). */
export const MAX_HOSTNAME_LENGTH = 253;

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** A last label resolvers read as part of an IPv4 address (`10.1`, `0x7f`). */
const NUMERIC_LABEL = /^(?:[0-9]+|0x[0-9a-f]*)$/;
const PRINTABLE = /^[\x21-\x7e]*$/;

/** Lower case and one trailing dot dropped: `App.Example.COM.` is `app.example.com`. */
export function normaliseHostname(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

/**
 * Why the normalised `name` is not a hostname, in words that follow the quoted name
 * (`"a_b.com" has the label …`), or `undefined` when it is one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hostnameProblem } from "./route_host.ts";
 *
 * assert.equal(hostnameProblem("app.example.com"), undefined);
 * assert.equal(hostnameProblem("10.0.0.1"), "ends in a numeric label: an IP address is not a hostname");
 * ```
 */
export function hostnameProblem(name: string): string | undefined {
  if (name === "") return "is empty";
  if (name.length > MAX_HOSTNAME_LENGTH) {
    return `is ${name.length} characters long; a hostname has at most ${MAX_HOSTNAME_LENGTH}`;
  }
  if (!PRINTABLE.test(name)) return "holds a space, a control or a non-ASCII character";
  const labels = name.split(".");
  for (const label of labels) {
    if (LABEL.test(label)) continue;
    if (label === "") return "has an empty label (a leading dot or two dots in a row)";
    if (label.length > 63) return `has a label of ${label.length} characters; a label has at most 63`;
    return `has the label ${JSON.stringify(label)}; a label holds only a-z, 0-9 and '-' (not at either end)`;
  }
  if (NUMERIC_LABEL.test(labels[labels.length - 1] ?? "")) {
    return "ends in a numeric label: an IP address is not a hostname";
  }
  return undefined;
}

/**
 * Why `host` cannot be a route table host, or `undefined`: a normalised name of two labels or
 * more, or `*.` and such a name (the `*` matches exactly one label, see `route_lookup.ts`).
 */
export function routeHostProblem(host: string): string | undefined {
  const wildcard = host.startsWith("*.");
  const domain = wildcard ? host.slice(2) : host;
  if (domain.includes("*")) {
    return "has '*' other than as a whole first label; a wildcard is written *.example.com";
  }
  if (host !== normaliseHostname(host)) {
    return `is not lower case without a trailing dot; write ${JSON.stringify(normaliseHostname(host))}`;
  }
  if (host.length > MAX_HOSTNAME_LENGTH) {
    return `is ${host.length} characters long; a hostname has at most ${MAX_HOSTNAME_LENGTH}`;
  }
  const problem = hostnameProblem(domain);
  if (problem !== undefined) return wildcard ? `after its '*.' ${problem}` : problem;
  if (!domain.includes(".")) {
    return `has a single label${wildcard ? " after its '*.'" : ""}; a routed name has two or more`;
  }
  return undefined;
}
