/**
 * What the DNS wiring checks' tests share: an Ingress to seed, and the one finding a test is about.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { Finding } from "../../../lib/doctor/doctor_check.ts";

/** An Ingress in namespace `shop` whose TLS section names `hosts`. */
export function ingress(name: string, hosts: readonly string[]): Record<string, unknown> {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { namespace: "shop", name },
    spec: { rules: [], tls: [{ hosts, secretName: `${name}-tls` }] },
  };
}

/** The one finding whose `saw` matches `pattern` (fails, printing them all, unless exactly one does). */
export function about(findings: readonly Finding[], pattern: RegExp): Finding {
  const found = findings.filter((finding) => pattern.test(finding.saw));
  assert.equal(found.length, 1, `one finding matching ${pattern}: ${JSON.stringify(findings, null, 2)}`);
  return found[0] as Finding;
}
