/**
 * What is wrong with an output's hostname or annotation prefix, in words. Beyond kuberture's rules
 * we refuse a hostname whose last label is all digits (an IPv4 address, which external-dns would
 * publish as a name) and a prefix that is not a DNS subdomain plus `/` (else every write is a 422).
 *
 * Pure: no I/O.
 *
 * @module
 */

import { isDnsSubdomain } from "../../util/kube_names.ts";

const MAX_NAME = 253;
const MAX_LABEL = 63;
const LABEL_CHARACTER = /[A-Za-z0-9-]/;

/**
 * Why `host` cannot be an output's hostname (RFC 1123, `*.` first and one trailing dot allowed),
 * or `undefined`. The reason quotes the hostname and says what is accepted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hostnameProblem } from "./name_problems.ts";
 *
 * assert.equal(hostnameProblem("*.example.com."), undefined);
 * assert.equal(
 *   hostnameProblem("localhost"),
 *   '"localhost" is a single label; give a name of at least two labels, such as api.example.com',
 * );
 * ```
 */
export function hostnameProblem(host: string): string | undefined {
  const quoted = JSON.stringify(host);
  if (host === "") return "is empty; give a DNS name such as api.example.com";
  const bad = [...host].find((char) => char !== "." && char !== "*" && !LABEL_CHARACTER.test(char));
  if (bad !== undefined) {
    return `${quoted} contains ${JSON.stringify(bad)}; a hostname holds only letters, digits, '-' and '.' ` +
      "(internationalised names as xn-- A-labels)";
  }
  const name = host.endsWith(".") ? host.slice(0, -1) : host;
  if (name.length > MAX_NAME) {
    return `${quoted} is ${name.length} characters long; a hostname has at most ${MAX_NAME} (without the trailing dot)`;
  }
  const wildcard = name.startsWith("*.");
  const labels = (wildcard ? name.slice(2) : name).split(".");
  if (labels.some((label) => label.includes("*"))) {
    return `${quoted} has '*' outside a leading "*." label; only a whole first label may be a wildcard, ` +
      "such as *.example.com";
  }
  if (labels.some((label) => label === "")) {
    return `${quoted} has an empty label (a leading dot or two dots in a row)`;
  }
  const long = labels.find((label) => label.length > MAX_LABEL);
  if (long !== undefined) {
    return `${quoted} has a label of ${long.length} characters; a label has at most ${MAX_LABEL}`;
  }
  const hyphen = labels.find((label) => label.startsWith("-") || label.endsWith("-"));
  if (hyphen !== undefined) {
    return `${quoted} has the label ${JSON.stringify(hyphen)}, which starts or ends with '-'`;
  }
  if (labels.length < 2) {
    return `${quoted} is a single label; give a name of at least two labels, such as ` +
      `${wildcard ? "*.example.com" : "api.example.com"}`;
  }
  if (/^[0-9]+$/.test(labels.at(-1)!)) {
    return `${quoted} is an IP address or ends in a numeric label; give a DNS name (the addresses come ` +
      "from addressSource)";
  }
  return undefined;
}

/** Why `prefix` cannot be an annotation prefix (a DNS subdomain plus `/`), or `undefined`. */
export function annotationPrefixProblem(prefix: string): string | undefined {
  const quoted = JSON.stringify(prefix);
  if (!prefix.endsWith("/")) {
    return `${quoted} does not end with '/'; external-dns reads <prefix>hostname, <prefix>target and ` +
      "<prefix>ttl, so the prefix must end with '/', such as internal-dns.example.com/";
  }
  const domain = prefix.slice(0, -1);
  if (domain === "" || !isDnsSubdomain(domain)) {
    return `${quoted} is not a DNS subdomain followed by '/' (lower-case letters, digits, '-' and '.'), ` +
      "which the API server requires of an annotation key's prefix; such as internal-dns.example.com/";
  }
  return undefined;
}
