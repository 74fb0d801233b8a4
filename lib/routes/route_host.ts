/**
 * The hostnames of routing, judged by the one hostname check, `checkHostname` of
 * `hostnames/hostname.ts`, so the route table and the names clients send (TLS SNI, HTTP `Host`)
 * meet the rules every other sink of the controller meets: RFC 1123 labels, two labels or more,
 * no IP literal, a wildcard only as one whole leading `*.` label (matched as `hostnames/wildcard.ts`
 * says). The cluster domain is not refused here: which names get a route is the controller's call.
 *
 * What routing adds: a table host is written in the form the check gives back (lower case, no
 * trailing dot, no spaces around it), so one host has one spelling and a duplicate is seen; a
 * name a client sends is normalised instead, and one the check refuses (`localhost`, an IP
 * literal, `a_b.example.com`) simply matches no route.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { checkHostname, type HostnameCheck, type HostnameCheckOptions } from "../hostnames/hostname.ts";
import { formatLoggedValue } from "../hostnames/rejection_log.ts";

/** Table hosts and client names alike: wildcards are read as such, the cluster domain is allowed. */
const ROUTING: HostnameCheckOptions = { clusterDomain: "", wildcards: true };

/**
 * Why `host` cannot be a route table host, or `undefined`: a hostname or a `*.<domain>` wildcard
 * that `checkHostname` accepts, written as it gives it back.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { routeHostProblem } from "./route_host.ts";
 *
 * assert.equal(routeHostProblem("*.apps.example.com"), undefined);
 * assert.equal(
 *   routeHostProblem("App.example.com."),
 *   'is not in normal form (lower case, no trailing dot, no padding); write "app.example.com"',
 * );
 * ```
 */
export function routeHostProblem(host: string): string | undefined {
  return spellingProblem(host, checkHostname(host, ROUTING));
}

/** Why `name` cannot be a backend's DNS address, or `undefined`: as a table host, but not a wildcard. */
export function backendNameProblem(name: string): string | undefined {
  const check = checkHostname(name, ROUTING);
  return check.kind === "wildcard" ? "is a wildcard; a backend is one host" : spellingProblem(name, check);
}

/** The outcome of {@linkcode checkRequestedName}. */
export type RequestedName =
  | { readonly kind: "routable"; readonly name: string }
  /** No route can match the name: `reason` is the name, quoted and cut, and why (printable ASCII). */
  | { readonly kind: "unroutable"; readonly reason: string };

/** How much of a refused client name a reason shows: enough to recognise, not a 16 KiB echo. */
const SHOWN_LENGTH = 40;

/**
 * The name a client sent, normalised as `checkHostname` normalises (case, one trailing dot,
 * spaces and tabs around it) so it can be looked up, or why no route can ever match it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkRequestedName } from "./route_host.ts";
 *
 * assert.deepEqual(checkRequestedName("Shop.Example.com."), { kind: "routable", name: "shop.example.com" });
 * assert.deepEqual(checkRequestedName("localhost"), {
 *   kind: "unroutable",
 *   reason: '"localhost" has a single label; only names with a dot can be public hostnames',
 * });
 * ```
 */
export function checkRequestedName(raw: string): RequestedName {
  const check = checkHostname(raw, ROUTING);
  if (check.kind === "accepted") return { kind: "routable", name: check.host };
  const why = check.kind === "rejected"
    ? check.text
    : check.kind === "wildcard"
    ? "is a wildcard; a client names one host"
    : blank(raw);
  return { kind: "unroutable", reason: `${formatLoggedValue(raw, SHOWN_LENGTH)} ${why}` };
}

/** The check's refusal, else whether `raw` is spelt as the check gives it back. */
function spellingProblem(raw: string, check: HostnameCheck): string | undefined {
  switch (check.kind) {
    case "rejected":
      return check.text;
    case "dropped":
      return blank(raw);
    default: {
      if (check.host === raw) return undefined;
      const written = JSON.stringify(check.host);
      return `is not in normal form (lower case, no trailing dot, no padding); write ${written}`;
    }
  }
}

/** What is wrong with a name `checkHostname` dropped as empty (with `wildcards`, the only drop). */
function blank(raw: string): string {
  return raw === "" ? "is empty" : "is only spaces and tabs";
}
