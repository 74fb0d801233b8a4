/**
 * What is wrong with a hostname or an annotation prefix of a kuberture output, in words.
 *
 * Hostnames follow kuberture's rules (RFC 1123 labels of letters, digits and `-`, upper case
 * allowed, at least two labels, at most 253 characters without the trailing dot, labels of 1–63
 * characters not starting or ending with `-`, an optional `*.` first label and one optional
 * trailing dot), plus one kuberture lacks: a name whose last label is all digits (an IPv4
 * address such as `10.0.0.1`) is refused, because external-dns would publish it as a name.
 *
 * Annotation prefixes must end with `/` (kuberture's only check); we also require the part before
 * it to be a DNS subdomain, as the API server does for annotation keys, so a bad prefix fails at
 * start-up instead of as a 422 on every write.
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
 * Why `host` cannot be an output's hostname, or `undefined` when it can. The reason starts with
 * the hostname in quotes and says what is accepted.
 *
 * @example
 * ```ts
 * import { hostnameProblem } from "./name_problems.ts";
 *
 * hostnameProblem("api.k8s.example.com"); // undefined
 * hostnameProblem("*.example.com."); // undefined
 * hostnameProblem("localhost"); // "\"localhost\" is a single label; give a name of at least two labels, …"
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

/**
 * Why `prefix` cannot be an output's annotation prefix, or `undefined` when it can: it must be a
 * DNS subdomain followed by `/`, such as `internal-dns.example.com/`.
 *
 * @example
 * ```ts
 * import { annotationPrefixProblem } from "./name_problems.ts";
 *
 * annotationPrefixProblem("external-dns.alpha.kubernetes.io/"); // undefined
 * annotationPrefixProblem("internal"); // "\"internal\" does not end with '/'; …"
 * ```
 */
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
