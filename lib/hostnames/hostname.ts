/**
 * One hostname from an Ingress, Gateway or route, checked before it may reach a Corefile, a hosts
 * file or a DNSEndpoint.
 *
 * The API server does not always validate these fields (TLS hosts, old objects, schemaless CRDs, a
 * hostile server), and every sink writes line-based text where a line break or a brace could inject
 * a line. So only plain RFC 1123 names of two or more labels are accepted; a value ends as
 * `accepted` (normalised), `wildcard` (`*.<domain>`, only with `wildcards`; matching is in
 * `wildcard.ts`), `dropped` (empty, or any `*`/`?` without `wildcards`: silently, as the original)
 * or `rejected` with a stable reason.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { parseIpv4, parseIpv6 } from "../util/ip.ts";

/** Why a hostname was refused; stable codes, usable as metric labels. */
export type RejectionReason =
  /** A line break, NUL, ESC, DEL or other control character anywhere in the value. */
  | "control-character"
  /** A space or tab between other characters. */
  | "whitespace"
  /** A character outside ASCII: a U-label, a full-width dot, an invisible joiner. */
  | "non-ascii"
  /** Punctuation with a meaning in Corefile, hosts-file or shell syntax. */
  | "forbidden-character"
  /** An IPv4 or IPv6 address, or a name whose last label is numeric. */
  | "ip-literal"
  /** More than 253 characters. */
  | "too-long"
  /** Two dots in a row, or a leading dot. */
  | "empty-label"
  /** A label of more than 63 characters. */
  | "label-too-long"
  /** A label starting or ending with `-`. */
  | "label-hyphen"
  /** Any other character outside `[a-z0-9-]` in a label, `_` included. */
  | "invalid-character"
  /** A name of a single label, such as `localhost`. */
  | "single-label"
  /** The cluster domain itself or a name under it. */
  | "cluster-domain"
  /** The proxy's own name, which would rewrite to itself (or a wildcard that matches it). */
  | "proxy-name"
  /** A `*` or `?` anywhere but one leading `*.` label (`a.*.com`, `*foo.com`, `**.a.com`, `*`). */
  | "invalid-wildcard";

/** The outcome of {@linkcode checkHostname}. */
export type HostnameCheck =
  | { readonly kind: "accepted"; readonly host: string }
  /** `host` is `*.<domain>`; `domain` is the accepted name after the `*.`. */
  | { readonly kind: "wildcard"; readonly host: string; readonly domain: string }
  | { readonly kind: "dropped"; readonly why: "empty" | "wildcard" }
  | { readonly kind: "rejected"; readonly reason: RejectionReason; readonly text: string };

/** What {@linkcode checkHostname} refuses besides malformed names. */
export interface HostnameCheckOptions {
  /** The cluster domain (`cluster.local`); names equal to or under it are refused; `""` skips this. */
  readonly clusterDomain: string;
  /** The proxy's own FQDN, refused; usually under the cluster domain anyway. */
  readonly proxyFqdn?: string;
  /** `--wildcards=rewrite`: `*.<domain>` is a `wildcard`; absent: any `*` or `?` is dropped. */
  readonly wildcards?: boolean;
}

/** The longest name DNS can carry in text form, without the trailing dot (RFC 1035 §2.3.4). */
export const MAX_NAME_LENGTH = 253;

/** The longest label (RFC 1035 §2.3.4). */
export const MAX_LABEL_LENGTH = 63;

const INNER_WHITESPACE = /[ \t]/;
/**
 * Syntax of CoreDNS, hosts files or shells, plus characters that mean a URL, an address list or an
 * e-mail address was pasted into the field.
 */
const FORBIDDEN = /[{}#;"\\$'()|<>`,/@]/;
const WILDCARD = /[*?]/;
const LABEL_CHARACTERS = /^[a-z0-9-]*$/;
const LABEL_BAD_CHARACTER = /[^a-z0-9-]/;
/** A last label that resolvers read as part of an IPv4 address (`127.1`, `10.0.0.010`, `1.0x7f`). */
const NUMERIC_LABEL = /^(?:[0-9]+|0x[0-9a-f]*)$/;

/**
 * Normalises and checks one hostname: characters first, then the name's shape, then what it
 * names. Notable:
 * - only spaces and tabs are trimmed; a line break is rejected, never repaired;
 * - non-ASCII is refused before lower-casing (the Kelvin sign lower-cases to `k`); IDNs must
 *   come as `xn--` A-labels, so homographs stay visible;
 * - a numeric last label is an IP literal (`127.1`, `0x7f.1`), as resolvers read it;
 * - with `wildcards`, the name after `*.` goes through every rule (`*.com` is `single-label`);
 * - names at or under `clusterDomain` (`""` skips it) would hijack in-cluster names.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkHostname } from "./hostname.ts";
 *
 * const options = { clusterDomain: "cluster.local" };
 * assert.deepEqual(checkHostname(" Shop.Example.COM. ", options), {
 *   kind: "accepted",
 *   host: "shop.example.com",
 * });
 * assert.deepEqual(checkHostname("*.example.com", options), { kind: "dropped", why: "wildcard" });
 * assert.deepEqual(checkHostname("web.svc.cluster.local", options), {
 *   kind: "rejected",
 *   reason: "cluster-domain",
 *   text: "is under the cluster domain 'cluster.local'; rewriting it would hijack in-cluster names",
 * });
 * ```
 */
export function checkHostname(raw: string, options: HostnameCheckOptions): HostnameCheck {
  const { clusterDomain, proxyFqdn } = options;
  const trimmed = withoutPadding(raw);
  if (trimmed === "") return { kind: "dropped", why: "empty" };

  const control = firstCodePoint(trimmed, isControl);
  if (control !== undefined) {
    return reject("control-character", `contains the control character ${formatCodePoint(control)}`);
  }
  if (INNER_WHITESPACE.test(trimmed)) return reject("whitespace", "contains whitespace");
  const nonAscii = firstCodePoint(trimmed, (code) => code > 0x7f);
  if (nonAscii !== undefined) {
    return reject(
      "non-ascii",
      `contains the non-ASCII character ${formatCodePoint(nonAscii)}; write internationalised names as ` +
        "xn-- A-labels",
    );
  }
  const forbidden = FORBIDDEN.exec(trimmed);
  if (forbidden !== null) {
    return reject(
      "forbidden-character",
      `contains '${forbidden[0]}', which has a meaning in DNS configuration`,
    );
  }
  if (WILDCARD.test(trimmed)) {
    return options.wildcards === true
      ? checkWildcard(trimmed, options)
      : { kind: "dropped", why: "wildcard" };
  }

  const name = normaliseHostname(trimmed);
  if (name === "") return reject("empty-label", "is only the root '.'");

  if ((name.includes(":") || name.startsWith("[")) && parseIpv6(name) !== undefined) {
    return reject("ip-literal", "is an IPv6 address, not a hostname");
  }
  const labels = name.split(".");
  const last = labels[labels.length - 1] ?? "";
  if (NUMERIC_LABEL.test(last)) {
    return reject(
      "ip-literal",
      parseIpv4(name) !== undefined
        ? "is an IPv4 address, not a hostname"
        : `ends in the numeric label '${last}', which resolvers read as an IPv4 address`,
    );
  }

  if (name.length > MAX_NAME_LENGTH) {
    return reject("too-long", `is ${name.length} characters long; a DNS name has at most ${MAX_NAME_LENGTH}`);
  }
  for (const label of labels) {
    const problem = labelProblem(label);
    if (problem !== undefined) return problem;
  }
  if (labels.length < 2) {
    return reject("single-label", "has a single label; only names with a dot can be public hostnames");
  }

  const domain = normaliseSuffix(clusterDomain);
  if (domain !== "" && (name === domain || name.endsWith(`.${domain}`))) {
    return reject(
      "cluster-domain",
      `is ${name === domain ? "the cluster domain" : "under the cluster domain"} '${domain}'; ` +
        "rewriting it would hijack in-cluster names",
    );
  }
  if (proxyFqdn !== undefined && normaliseSuffix(proxyFqdn) === name) {
    return reject("proxy-name", "is the proxy's own name; rewriting it would loop");
  }
  return { kind: "accepted", host: name };
}

/** The wildcard rule: `trimmed` holds a `*` or `?` and passed the character checks. */
function checkWildcard(trimmed: string, options: HostnameCheckOptions): HostnameCheck {
  const rest = trimmed.startsWith("*.") ? trimmed.slice(2) : "";
  if (rest === "" || WILDCARD.test(rest)) {
    return reject(
      "invalid-wildcard",
      "uses '*' or '?' other than as one whole leading label; only '*.<domain>' is a wildcard",
    );
  }
  const inner = checkHostname(rest, { ...options, wildcards: false });
  if (inner.kind === "rejected") return reject(inner.reason, `after its '*.' ${inner.text}`);
  if (inner.kind !== "accepted") return reject("invalid-wildcard", "has no domain after '*.'");
  const domain = inner.host;
  const host = `*.${domain}`;
  if (host.length > MAX_NAME_LENGTH) {
    return reject("too-long", `is ${host.length} characters long; a DNS name has at most ${MAX_NAME_LENGTH}`);
  }
  const proxy = options.proxyFqdn === undefined ? "" : normaliseSuffix(options.proxyFqdn);
  const dot = proxy.indexOf(".");
  if (dot > 0 && proxy.slice(dot + 1) === domain) {
    return reject("proxy-name", "matches the proxy's own name; rewriting it would loop");
  }
  return { kind: "wildcard", host, domain };
}

function labelProblem(label: string): HostnameCheck | undefined {
  if (label === "") return reject("empty-label", "has an empty label (two dots in a row, or a leading dot)");
  if (label.length > MAX_LABEL_LENGTH) {
    return reject(
      "label-too-long",
      `has a label of ${label.length} characters; a label has at most ${MAX_LABEL_LENGTH}`,
    );
  }
  if (!LABEL_CHARACTERS.test(label)) {
    const bad = LABEL_BAD_CHARACTER.exec(label)?.[0] ?? "?";
    return reject(
      "invalid-character",
      `contains '${bad}'; a hostname has only letters, digits, '-' and '.'`,
    );
  }
  if (label.startsWith("-") || label.endsWith("-")) {
    return reject("label-hyphen", `has the label '${label}', which starts or ends with '-'`);
  }
  return undefined;
}

/**
 * The case and root dot {@linkcode checkHostname} ignores: lower case, one trailing dot dropped
 * (`a.example.com.` written fully-qualified is the same name as `a.example.com`). Only that: it
 * checks nothing, so apply it to a name known to be a hostname, or to compare with one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { normaliseHostname } from "./hostname.ts";
 *
 * assert.equal(normaliseHostname("Shop.Example.COM."), "shop.example.com");
 * ```
 */
export function normaliseHostname(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

function normaliseSuffix(domain: string): string {
  return normaliseHostname(domain.trim());
}

/**
 * `text` without the spaces and tabs a person may type around a value (line breaks are not
 * padding, see checkHostname), in linear time: `/[ \t]+$/` is quadratic on a long inner run of
 * spaces, and the proxy checks names clients send.
 */
function withoutPadding(text: string): string {
  let start = 0;
  let end = text.length;
  while (text[start] === " " || text[start] === "\t") start++;
  while (end > start && (text[end - 1] === " " || text[end - 1] === "\t")) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** C0 controls except tab (tab counts as whitespace), DEL, and the C1 controls. */
function isControl(code: number): boolean {
  return (code < 0x20 && code !== 0x09) || (code >= 0x7f && code <= 0x9f);
}

function firstCodePoint(text: string, matches: (code: number) => boolean): number | undefined {
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    if (matches(code)) return code;
  }
  return undefined;
}

function formatCodePoint(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

function reject(reason: RejectionReason, text: string): HostnameCheck {
  return { kind: "rejected", reason, text };
}
