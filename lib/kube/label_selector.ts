/**
 * A syntax check of label selectors (the API server's grammar), so a typo in `--client-selector`
 * fails the start instead of every list with a 400.
 *
 * Pure: no I/O.
 *
 * @module
 */

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function keyProblem(key: string): string | undefined {
  const slash = key.indexOf("/");
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  const name = slash === -1 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length > 253 || !PREFIX.test(prefix))) {
    return `"${key}": the prefix before "/" must be a DNS subdomain`;
  }
  if (!NAME.test(name)) {
    return `"${key}": a key is up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit`;
  }
  return undefined;
}

function valueProblem(value: string): string | undefined {
  return value === "" || NAME.test(value)
    ? undefined
    : `"${value}": a value is empty or up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit`;
}

/** Splits on commas outside parentheses. */
function requirements(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      parts.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(selector.slice(start));
  return parts.map((part) => part.trim());
}

function requirementProblem(requirement: string): string | undefined {
  if (requirement === "") return "an empty requirement (two commas in a row, or a trailing comma)";
  const set = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(requirement);
  if (set !== null) {
    const values = (set[3] ?? "").split(",").map((value) => value.trim());
    return keyProblem(set[1] ?? "") ?? values.map(valueProblem).find((problem) => problem !== undefined);
  }
  const equality = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(requirement);
  if (equality !== null) return keyProblem(equality[1] ?? "") ?? valueProblem(equality[3] ?? "");
  const exists = /^(!?)\s*(\S+)$/.exec(requirement);
  if (exists !== null) return keyProblem(exists[2] ?? "");
  return `"${requirement}" is none of key, !key, key=value, key!=value, key in (…), key notin (…)`;
}

/**
 * The first problem of a label selector, or `undefined` when well formed (the empty one is).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { labelSelectorProblem } from "./label_selector.ts";
 *
 * assert.equal(labelSelectorProblem("app in (cert-manager,web),tier!=batch"), undefined);
 * assert.equal(
 *   labelSelectorProblem("app=cert manager"),
 *   '"app=cert manager" is none of key, !key, key=value, key!=value, key in (…), key notin (…)',
 * );
 * ```
 */
export function labelSelectorProblem(selector: string): string | undefined {
  if (selector.trim() === "") return undefined;
  for (const requirement of requirements(selector)) {
    const problem = requirementProblem(requirement);
    if (problem !== undefined) return problem;
  }
  return undefined;
}
