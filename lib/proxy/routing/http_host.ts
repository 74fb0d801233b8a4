/**
 * The host an HTTP/1.x request names, read from the head the proxy has received so far, so the
 * HTTP listener can pick the backend before it dials.
 *
 * Decisions a reader could not guess:
 * - The head ends at the first empty line; a bare LF ends a line as CRLF does (RFC 9112 §2.2
 *   allows it, nginx accepts it), a CR not before an LF is `invalid`, and empty lines before the
 *   request line are skipped (RFC 9112 §2.2). Before the end, a first line that cannot start an
 *   HTTP/1.x request (a TLS hello, binary) is `invalid` at once rather than waited on.
 * - An absolute-form target (`GET http://h/ HTTP/1.1`) wins over `Host` (RFC 9112 §3.2.2); two
 *   `Host` lines, an obs-fold line or whitespace before a colon are `invalid` (RFC 9112 §3.2,
 *   §5.1, §5.2), as the backend would answer 400 to them anyway.
 * - The port is dropped; an IP literal (`10.0.0.5:80`, `[::1]:80`) or an empty host names no host
 *   (`no-host`). Any other name the hostname check refuses (`routes/route_host.ts`: a single label
 *   such as `localhost`, `_`, a space) is `unroutable`: no route can match it, so the request can
 *   only go to the default target, whose server answers it as it would have.
 * - The name is returned normalised (lower case, no trailing dot).
 *
 * Pure: no I/O; never throws.
 *
 * @module
 */

import { parseIpv4, parseIpv6 } from "../../util/ip.ts";
import { checkRequestedName } from "../../routes/route_host.ts";

/** The outcome of {@linkcode readRequestHost}. */
export type RequestHost =
  | { readonly kind: "host"; readonly name: string }
  /** The head has not ended yet. */
  | { readonly kind: "need-more" }
  | { readonly kind: "no-host" }
  /** The name is quoted and cut in `reason`, with why no route can match it. */
  | { readonly kind: "unroutable"; readonly reason: string }
  | { readonly kind: "invalid"; readonly reason: string };

const LF = 0x0a;
const CR = 0x0d;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const METHOD_PREFIX = /^[!#$%&'*+.^_`|~0-9A-Za-z-]*(?: |$)/;
const REQUEST_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ ([\x21-\x7e]+) HTTP\/1\.[0-9]$/;
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/;
const IP_LITERAL = /^\[([^\]]*)\](?::[0-9]*)?$/;
const NEED_MORE: RequestHost = { kind: "need-more" };
const NO_HOST: RequestHost = { kind: "no-host" };
const latin1 = new TextDecoder("latin1");

/**
 * Reads the host of the request head at the start of `bytes`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readRequestHost } from "./http_host.ts";
 *
 * const head = new TextEncoder().encode("GET / HTTP/1.1\r\nHost: App.Example.com:8080\r\n\r\n");
 * assert.deepEqual(readRequestHost(head), { kind: "host", name: "app.example.com" });
 * assert.deepEqual(readRequestHost(head.subarray(0, 20)), { kind: "need-more" });
 * ```
 */
export function readRequestHost(bytes: Uint8Array): RequestHost {
  let start = 0;
  while (bytes[start] === CR || bytes[start] === LF) start++;
  const end = headEnd(bytes, start);
  if (end < 0) return earlyProblem(bytes, start) ?? NEED_MORE;
  const head = latin1.decode(bytes.subarray(start, end));
  if (/\r(?!\n)/.test(head)) return invalid("a CR not followed by LF");
  const lines = head.split(/\r?\n/);
  const target = REQUEST_LINE.exec(lines[0] ?? "")?.[1];
  if (target === undefined) return invalid("not an HTTP/1.x request line");
  let host: string | undefined;
  for (const line of lines.slice(1, -2)) {
    if (line.startsWith(" ") || line.startsWith("\t")) return invalid("an obs-fold line (RFC 9112 §5.2)");
    const colon = line.indexOf(":");
    const name = line.slice(0, colon);
    if (colon < 0 || !TOKEN.test(name)) {
      return invalid("a field line without a name and colon (RFC 9112 §5.1)");
    }
    if (name.length !== 4 || name.toLowerCase() !== "host") continue;
    if (host !== undefined) return invalid("two Host field lines (RFC 9112 §3.2)");
    host = withoutOws(line.slice(colon + 1));
  }
  const absolute = ABSOLUTE_FORM.exec(target);
  if (absolute !== null) return authorityHost(absolute[1]!);
  return host === undefined ? NO_HOST : authorityHost(host);
}

/** `value` without the spaces and tabs around it, in linear time (a regex would be quadratic). */
function withoutOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (value[start] === " " || value[start] === "\t") start++;
  while (end > start && (value[end - 1] === " " || value[end - 1] === "\t")) end--;
  return value.slice(start, end);
}

/** Just past the first empty line at or after `start`, or -1 when the head has not ended. */
function headEnd(bytes: Uint8Array, start: number): number {
  for (let at = bytes.indexOf(LF, start); at >= 0; at = bytes.indexOf(LF, at + 1)) {
    if (bytes[at + 1] === LF) return at + 2;
    if (bytes[at + 1] === CR && bytes[at + 2] === LF) return at + 3;
  }
  return -1;
}

/** Why an unfinished head can never be an HTTP/1.x request, or `undefined` to wait for more. */
function earlyProblem(bytes: Uint8Array, start: number): RequestHost | undefined {
  const lineEnd = bytes.indexOf(LF, start);
  if (lineEnd >= 0) {
    const line = latin1.decode(bytes.subarray(start, lineEnd)).replace(/\r$/, "");
    return REQUEST_LINE.test(line) ? undefined : invalid("not an HTTP/1.x request line");
  }
  const prefix = latin1.decode(bytes.subarray(start, start + 32));
  return METHOD_PREFIX.test(prefix) ? undefined : invalid("not an HTTP/1.x request line");
}

/** The route name of `authority` (`host[:port]`, from `Host` or an absolute-form target). */
function authorityHost(authority: string): RequestHost {
  if (authority === "") return NO_HOST;
  const literal = IP_LITERAL.exec(authority);
  if (literal !== null) {
    return parseIpv6(literal[1]!) === undefined ? invalid("a malformed IP literal") : NO_HOST;
  }
  const colon = authority.indexOf(":");
  const name = colon < 0 ? authority : authority.slice(0, colon);
  if (colon >= 0 && !/^[0-9]*$/.test(authority.slice(colon + 1))) return invalid("a host with a bad port");
  if (name === "" || parseIpv4(name) !== undefined) return NO_HOST;
  const checked = checkRequestedName(name);
  return checked.kind === "routable"
    ? { kind: "host", name: checked.name }
    : { kind: "unroutable", reason: `the host ${checked.reason}` };
}

function invalid(reason: string): RequestHost {
  return { kind: "invalid", reason };
}
