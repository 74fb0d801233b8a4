/**
 * Every reason the Corefile editor refuses to produce a new Corefile, as one closed set of codes,
 * so the sink can report, emit an Event and count a metric per reason without reading prose.
 *
 * A refusal always means "write nothing": the ConfigMap keeps its current content, and the
 * message tells a person what is wrong and how to fix it (1-based line numbers, as an editor
 * shows them).
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

/** A marker problem code. */
export type MarkerProblem = typeof MARKER_PROBLEMS[number];

/** Every refusal reason of the editor. */
export type CorefileProblem =
  /** A host handed to the editor could break the Corefile (an upstream validation bug). */
  | "invalid-host"
  /** The rewrite target is empty, lacks the trailing dot, or has unsafe characters. */
  | "invalid-fqdn"
  /** The key holds nothing but whitespace. */
  | "empty-corefile"
  /** The file does not tokenize: an unterminated quote or unbalanced braces. */
  | TokenizeProblemCode
  /** No `.`/`.:53` server block with braces. */
  | "no-root-block"
  /** The root block's `}` follows other text on its line (CoreDNS rejects that form too). */
  | "closing-brace-shares-line"
  | MarkerProblem
  /** node-local-dns: no server block serves the cluster domain (there is no upstream to copy). */
  | "no-cluster-dns-block"
  /** node-local-dns: the cluster-domain block has no plain `forward . <address>` line. */
  | "no-cluster-forward"
  /** The edit did not pass the before/after comparison; a bug in the editor, never written. */
  | "self-check-failed";

/** The editor's "no": nothing may be written. */
export interface CorefileRefusal {
  /** Discriminant. */
  readonly kind: "refused";
  /** Machine-readable reason. */
  readonly problem: CorefileProblem;
  /** What is wrong and how to fix it, for logs and Kubernetes Events. */
  readonly message: string;
  /** The editor refuses the whole edit: nothing is written. */
  readonly scope: "nothing-written";
}

/**
 * Whether a refusal is marker damage (a person's edit to our block), the case the reliability
 * matrix counts separately (`marker_damage`).
 *
 * @example
 * ```ts
 * import { isMarkerProblem } from "./corefile_refusal.ts";
 *
 * isMarkerProblem("end-before-begin"); // true
 * isMarkerProblem("no-root-block"); // false
 * ```
 */
export function isMarkerProblem(problem: CorefileProblem): problem is MarkerProblem {
  return (MARKER_PROBLEMS as readonly string[]).includes(problem);
}

/**
 * Builds a refusal.
 *
 * @example
 * ```ts
 * import { refusal } from "./corefile_refusal.ts";
 *
 * refusal("no-root-block", "no .:53 server block found");
 * // { kind: "refused", problem: "no-root-block", message: "no .:53 server block found",
 * //   scope: "nothing-written" }
 * ```
 */
export function refusal(problem: CorefileProblem, message: string): CorefileRefusal {
  return { kind: "refused", problem, message, scope: "nothing-written" };
}

/**
 * The refusal for a Corefile the tokenizer rejected, worded once for both editors.
 *
 * @example
 * ```ts
 * import { unparsable } from "./corefile_refusal.ts";
 *
 * unparsable({ problem: "unclosed-brace", message: "line 1: '{' is never closed" }).message;
 * // "the Corefile does not parse: line 1: '{' is never closed; fix its syntax first"
 * ```
 */
export function unparsable(
  failure: { readonly problem: TokenizeProblemCode; readonly message: string },
): CorefileRefusal {
  return refusal(failure.problem, `the Corefile does not parse: ${failure.message}; fix its syntax first`);
}
