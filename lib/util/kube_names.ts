/**
 * The API server's name rules, checked before a name is sent: RFC 1123 labels and subdomains,
 * and RFC 1035 labels (Service names).
 *
 * Pure: no I/O.
 *
 * @module
 */

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_1035_LABEL = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** True for an RFC 1123 label: lower case, digits and `-`, 1–63 characters, no `-` at either end. */
export function isDnsLabel(name: string): boolean {
  return DNS_LABEL.test(name);
}

/** True for an RFC 1035 label (a Service name): an RFC 1123 label that starts with a letter. */
export function isDns1035Label(name: string): boolean {
  return DNS_1035_LABEL.test(name);
}

/** True when every dot-separated label is an RFC 1123 label and the whole name fits 253 bytes. */
export function isDnsSubdomain(name: string): boolean {
  return name.length <= 253 && name.split(".").every(isDnsLabel);
}
