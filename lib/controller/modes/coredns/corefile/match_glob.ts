/**
 * Shell-style matching of one file name against one glob component with Go's `path.Match`
 * semantics (what CoreDNS's `import` uses), so "does this import pick up our key?" gets CoreDNS's
 * answer. A malformed pattern matches nothing, as Go returns `ErrBadPattern`.
 *
 * Pure: no I/O.
 *
 * @module
 */

type Element =
  | { readonly kind: "star" }
  | { readonly kind: "one" }
  | { readonly kind: "literal"; readonly char: string }
  | {
    readonly kind: "class";
    readonly negated: boolean;
    readonly ranges: readonly (readonly [number, number])[];
  };

/**
 * Whether `name` matches the glob `pattern` in full.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { matchGlob } from "./match_glob.ts";
 *
 * assert.equal(matchGlob("*.override", "ouroboros.override"), true);
 * assert.equal(matchGlob("*.server", "ouroboros.override"), false);
 * assert.equal(matchGlob("[a-o]*.override", "ouroboros.override"), true);
 * assert.equal(matchGlob("[", "x"), false); // malformed
 * ```
 */
export function matchGlob(pattern: string, name: string): boolean {
  const elements = parsePattern(pattern);
  if (elements === undefined) return false;
  const chars = Array.from(name);
  // reachable[j]: the elements consumed so far can match exactly the first j characters.
  let reachable: boolean[] = chars.map(() => false).concat(false);
  reachable[0] = true;
  for (const element of elements) {
    const next: boolean[] = reachable.map(() => false);
    if (element.kind === "star") {
      let carried = false;
      for (let j = 0; j <= chars.length; j++) {
        if (reachable[j]) carried = true;
        next[j] = carried;
        if (chars[j] === "/") carried = false;
      }
    } else {
      for (let j = 0; j < chars.length; j++) {
        if (reachable[j] && matchesOne(element, chars[j] as string)) next[j + 1] = true;
      }
    }
    reachable = next;
  }
  return reachable[chars.length] === true;
}

function matchesOne(element: Exclude<Element, { kind: "star" }>, char: string): boolean {
  switch (element.kind) {
    case "one":
      return char !== "/";
    case "literal":
      return char === element.char;
    case "class": {
      const code = char.codePointAt(0) ?? -1;
      const inside = element.ranges.some(([low, high]) => low <= code && code <= high);
      return inside !== element.negated;
    }
  }
}

function parsePattern(pattern: string): Element[] | undefined {
  const chars = Array.from(pattern);
  const elements: Element[] = [];
  let index = 0;
  const escaped = (): string | undefined => {
    // One class member: a plain character, or `\` and the character it escapes.
    const char = chars[index];
    if (char === undefined || char === "-" || char === "]") return undefined;
    index++;
    if (char !== "\\") return char;
    const literal = chars[index];
    if (literal === undefined) return undefined;
    index++;
    return literal;
  };
  while (index < chars.length) {
    const char = chars[index] as string;
    index++;
    if (char === "*") {
      elements.push({ kind: "star" });
    } else if (char === "?") {
      elements.push({ kind: "one" });
    } else if (char === "\\") {
      const literal = chars[index];
      if (literal === undefined) return undefined;
      index++;
      elements.push({ kind: "literal", char: literal });
    } else if (char === "[") {
      const negated = chars[index] === "^";
      if (negated) index++;
      const ranges: [number, number][] = [];
      for (;;) {
        if (chars[index] === "]" && ranges.length > 0) {
          index++;
          break;
        }
        const low = escaped();
        if (low === undefined) return undefined;
        let high = low;
        if (chars[index] === "-") {
          index++;
          const upper = escaped();
          if (upper === undefined) return undefined;
          high = upper;
        }
        ranges.push([low.codePointAt(0) ?? 0, high.codePointAt(0) ?? 0]);
      }
      elements.push({ kind: "class", negated, ranges });
    } else {
      elements.push({ kind: "literal", char });
    }
  }
  return elements;
}
