/**
 * Every problem code the CoreDNS modes' sinks refuse with, so each
 * `ouroboros_controller_refusals_total{problem}` series starts at zero.
 *
 * Pure: constants.
 *
 * The editor's codes go through a record keyed by its type (the compiler keeps it complete); the
 * sinks' own literals are checked against their source by refusal_problems_test.ts.
 *
 * @module
 */

import type { CorefileProblem } from "./corefile/corefile_refusal.ts";

const COREFILE_PROBLEM_SET: Readonly<Record<CorefileProblem, true>> = {
  "invalid-host": true,
  "invalid-fqdn": true,
  "empty-corefile": true,
  "unterminated-quote": true,
  "unclosed-brace": true,
  "unexpected-close-brace": true,
  "no-root-block": true,
  "closing-brace-shares-line": true,
  "duplicate-begin": true,
  "duplicate-end": true,
  "begin-without-end": true,
  "end-without-begin": true,
  "end-before-begin": true,
  "marker-outside-root-block": true,
  "marker-in-nested-block": true,
  "marker-in-quoted-string": true,
  "altered-marker": true,
  "foreign-content-in-block": true,
  "no-cluster-dns-block": true,
  "no-cluster-forward": true,
  "self-check-failed": true,
};

/** The codes `CorednsSink` (coredns mode, and node-local-dns) refuses with. */
export const COREDNS_SINK_PROBLEMS: readonly string[] = [
  ...Object.keys(COREFILE_PROBLEM_SET),
  "key-missing",
  "rejected",
  "reverted",
  "immutable",
  "too-large",
  "configmap-missing",
];

/** The codes `CorednsImportSink` (coredns-import mode) refuses with. */
export const COREDNS_IMPORT_SINK_PROBLEMS: readonly string[] = [
  "invalid-host",
  "invalid-fqdn",
  "immutable",
  "too-large",
  "rejected",
  "import-configmap-missing",
];

/**
 * A mode's codes, plus the node-local-dns sink's prefixed `node-local-dns-` under `manage`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { COREDNS_IMPORT_SINK_PROBLEMS, modeRefusalProblems } from "./refusal_problems.ts";
 *
 * assert.ok(modeRefusalProblems(COREDNS_IMPORT_SINK_PROBLEMS, "warn").includes("too-large"));
 * assert.ok(modeRefusalProblems(COREDNS_IMPORT_SINK_PROBLEMS, "manage").includes("node-local-dns-too-large"));
 * ```
 */
export function modeRefusalProblems(
  own: readonly string[],
  nodeLocalDns: "warn" | "manage",
): readonly string[] {
  if (nodeLocalDns !== "manage") return own;
  return [...own, ...COREDNS_SINK_PROBLEMS.map((problem) => `node-local-dns-${problem}`)];
}
