/**
 * Every reason the Corefile editor refuses to produce a new Corefile, as one closed set of codes
 * for Events and metrics. A refusal writes nothing; its message says how to fix it (1-based lines).
 *
 * Pure: no I/O.
 *
 * @module
 */

import { MARKER_PAIR_PROBLEMS } from "../../markers.ts";
import type { TokenizeProblemCode } from "./tokenize_corefile.ts";

/** Problems with our own markers: someone edited, copied or moved them by hand. */
export const MARKER_PROBLEMS = [
  ...MARKER_PAIR_PROBLEMS,
  "marker-outside-root-block",
  "marker-in-nested-block",
  "marker-in-quoted-string",
  "altered-marker",
  "foreign-content-in-block",
] as const;

export type MarkerProblem = typeof MARKER_PROBLEMS[number];

/** Every refusal reason of the editor. */
export type CorefileProblem =
  /** A host could break the Corefile (an upstream validation bug). */
  | "invalid-host"
  | "invalid-fqdn"
  | "empty-corefile"
  | TokenizeProblemCode
  | "no-root-block"
  | "closing-brace-shares-line"
  | MarkerProblem
  /** node-local-dns: no server block serves the cluster domain (no upstream to copy). */
  | "no-cluster-dns-block"
  | "no-cluster-forward"
  /** The edit failed the before/after comparison: an editor bug, never written. */
  | "self-check-failed";

/** The editor's "no": nothing may be written. */
export interface CorefileRefusal {
  readonly kind: "refused";
  readonly problem: CorefileProblem;
  /** What is wrong and how to fix it, for logs and Kubernetes Events. */
  readonly message: string;
  readonly scope: "nothing-written";
}

/** Whether a refusal is marker damage (a person's edit to our block), counted apart. */
export function isMarkerProblem(problem: CorefileProblem): problem is MarkerProblem {
  return (MARKER_PROBLEMS as readonly string[]).includes(problem);
}

/** Builds a refusal. */
export function refusal(problem: CorefileProblem, message: string): CorefileRefusal {
  return { kind: "refused", problem, message, scope: "nothing-written" };
}

/** The refusal for a Corefile the tokenizer rejected, worded once for both editors. */
export function unparsable(
  failure: { readonly problem: TokenizeProblemCode; readonly message: string },
): CorefileRefusal {
  return refusal(failure.problem, `the Corefile does not parse: ${failure.message}; fix its syntax first`);
}
