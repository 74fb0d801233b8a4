/**
 * Label selectors (`labelSelector=`) and field selectors (`fieldSelector=`) as the API server
 * parses and applies them.
 *
 * Label selectors: comma-separated requirements `k=v`, `k==v`, `k!=v`, `k in (a,b)`,
 * `k notin (a,b)`, `k` (exists), `!k` (does not exist), `k>n`, `k<n`. `!=` and `notin` also match
 * objects without the label. An empty selector matches everything.
 *
 * Field selectors: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=`; a backslash
 * escapes `,`, `=` and `\` in values. Other fields are refused, as the server does for kinds
 * without extra field labels.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** One parsed label requirement. */
export type LabelRequirement =
  | { readonly op: "in"; readonly key: string; readonly values: readonly string[] }
  | { readonly op: "notin"; readonly key: string; readonly values: readonly string[] }
  | { readonly op: "exists"; readonly key: string }
  | { readonly op: "doesnotexist"; readonly key: string }
  | { readonly op: "gt" | "lt"; readonly key: string; readonly value: number };

/** A parsed selector, or why the text is not one. */
export type Parsed<T> = { readonly ok: true; readonly value: T } | {
  readonly ok: false;
  readonly reason: string;
};

const LABEL_NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Whether `key` is a valid label key: an optional DNS-subdomain prefix and a name of at most 63 characters. */
export function validLabelKey(key: string): boolean {
  const slash = key.indexOf("/");
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    return false;
  }
  return LABEL_NAME.test(name);
}

/** Whether `value` is a valid label value (at most 63 characters, may be empty). */
export function validLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE.test(value);
}

type Token =
  | { kind: "word"; text: string }
  | { kind: "op"; text: "=" | "==" | "!=" | "!" | ">" | "<" | "(" | ")" | "," };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === " " || c === "\t" || c === "\n") {
      i++;
    } else if (c === "=" && text[i + 1] === "=") {
      tokens.push({ kind: "op", text: "==" });
      i += 2;
    } else if (c === "!" && text[i + 1] === "=") {
      tokens.push({ kind: "op", text: "!=" });
      i += 2;
    } else if (c === "=" || c === "!" || c === ">" || c === "<" || c === "(" || c === ")" || c === ",") {
      tokens.push({ kind: "op", text: c });
      i++;
    } else {
      let end = i;
      while (end < text.length && !" \t\n=!><(),".includes(text[end]!)) end++;
      tokens.push({ kind: "word", text: text.slice(i, end) });
      i = end;
    }
  }
  return tokens;
}

/** Parses a label selector. */
export function parseLabelSelector(text: string): Parsed<readonly LabelRequirement[]> {
  const tokens = tokenize(text);
  const requirements: LabelRequirement[] = [];
  let i = 0;
  const fail = (why: string): Parsed<readonly LabelRequirement[]> => ({
    ok: false,
    reason: `unable to parse requirement: ${why}`,
  });
  const word = (): string | undefined => {
    const token = tokens[i];
    if (token?.kind !== "word") return undefined;
    i++;
    return token.text;
  };
  const checkKey = (key: string): string | undefined =>
    validLabelKey(key) ? undefined : `invalid label key "${key}": must be a qualified name`;
  const checkValue = (value: string): string | undefined =>
    validLabelValue(value) ? undefined : `invalid label value: "${value}": must be a valid label value`;
  while (i < tokens.length) {
    const first = tokens[i]!;
    if (first.kind === "op" && first.text === "!") {
      i++;
      const key = word();
      if (key === undefined) return fail("expected a label key after '!'");
      const bad = checkKey(key);
      if (bad !== undefined) return fail(bad);
      requirements.push({ op: "doesnotexist", key });
    } else {
      const key = word();
      if (key === undefined) return fail(`found '${first.text}', expected a label key`);
      const bad = checkKey(key);
      if (bad !== undefined) return fail(bad);
      const next = tokens[i];
      if (next === undefined || (next.kind === "op" && next.text === ",")) {
        requirements.push({ op: "exists", key });
      } else if (next.kind === "op" && (next.text === "=" || next.text === "==" || next.text === "!=")) {
        i++;
        const valueToken = tokens[i];
        let value = "";
        if (valueToken?.kind === "word") {
          value = valueToken.text;
          i++;
        }
        const badValue = checkValue(value);
        if (badValue !== undefined) return fail(badValue);
        requirements.push({ op: next.text === "!=" ? "notin" : "in", key, values: [value] });
      } else if (next.kind === "op" && (next.text === ">" || next.text === "<")) {
        i++;
        const value = word();
        if (value === undefined || !/^-?\d+$/.test(value)) {
          return fail(`for '${next.text}', the value must be an integer`);
        }
        requirements.push({ op: next.text === ">" ? "gt" : "lt", key, value: Number(value) });
      } else if (next.kind === "word" && (next.text === "in" || next.text === "notin")) {
        i++;
        const open = tokens[i];
        if (open?.kind !== "op" || open.text !== "(") {
          return fail(`found '${open?.text ?? ""}', expected: '('`);
        }
        i++;
        const values: string[] = [];
        while (true) {
          const token = tokens[i];
          if (token === undefined) return fail("found '', expected: ')'");
          if (token.kind === "word") {
            const badValue = checkValue(token.text);
            if (badValue !== undefined) return fail(badValue);
            values.push(token.text);
            i++;
          } else if (token.text === ",") {
            i++;
          } else if (token.text === ")") {
            i++;
            break;
          } else {
            return fail(`found '${token.text}', expected: ',', ')' or a value`);
          }
        }
        if (values.length === 0) return fail(`for '${next.text}', set must have at least one value`);
        requirements.push({ op: next.text, key, values });
      } else {
        return fail(`found '${next.text}', expected: '=', '!=', '==', 'in', 'notin'`);
      }
    }
    const separator = tokens[i];
    if (separator === undefined) break;
    if (separator.kind !== "op" || separator.text !== ",") {
      return fail(`found '${separator.text}', expected: ','`);
    }
    i++;
    if (i === tokens.length) return fail("found '', expected: a requirement after ','");
  }
  return { ok: true, value: requirements };
}

/** Whether `labels` satisfy every requirement. */
export function matchesLabels(
  requirements: readonly LabelRequirement[],
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  for (const requirement of requirements) {
    const value = labels === undefined || !Object.hasOwn(labels, requirement.key)
      ? undefined
      : labels[requirement.key];
    switch (requirement.op) {
      case "in":
        if (value === undefined || !requirement.values.includes(value)) return false;
        break;
      case "notin":
        if (value !== undefined && requirement.values.includes(value)) return false;
        break;
      case "exists":
        if (value === undefined) return false;
        break;
      case "doesnotexist":
        if (value !== undefined) return false;
        break;
      case "gt":
      case "lt": {
        if (value === undefined || !/^-?\d+$/.test(value)) return false;
        const number = Number(value);
        if (requirement.op === "gt" ? !(number > requirement.value) : !(number < requirement.value)) {
          return false;
        }
        break;
      }
    }
  }
  return true;
}

/** One parsed field requirement. */
export interface FieldRequirement {
  readonly field: "metadata.name" | "metadata.namespace";
  readonly op: "=" | "!=";
  readonly value: string;
}

function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\" && i + 1 < text.length) {
      current += c + text[i + 1];
      i++;
    } else if (c === separator) {
      parts.push(current);
      current = "";
    } else {
      current += c;
    }
  }
  parts.push(current);
  return parts;
}

function unescape(text: string): string {
  return text.replace(/\\(.)/g, "$1");
}

/** Parses a field selector over `metadata.name` and `metadata.namespace`. */
export function parseFieldSelector(text: string): Parsed<readonly FieldRequirement[]> {
  if (text.trim() === "") return { ok: true, value: [] };
  const requirements: FieldRequirement[] = [];
  for (const part of splitUnescaped(text, ",")) {
    const match = /^([^=!\\]+?)\s*(==|!=|=)(.*)$/s.exec(part.trim());
    if (match === null) {
      return { ok: false, reason: `invalid selector: '${text}'; can't understand '${part}'` };
    }
    const field = match[1]!.trim();
    if (field !== "metadata.name" && field !== "metadata.namespace") {
      return { ok: false, reason: `field label not supported: ${field}` };
    }
    requirements.push({ field, op: match[2] === "!=" ? "!=" : "=", value: unescape(match[3]!) });
  }
  return { ok: true, value: requirements };
}

/** Whether an object with this name and namespace satisfies every field requirement. */
export function matchesFields(
  requirements: readonly FieldRequirement[],
  name: string,
  namespace: string,
): boolean {
  for (const requirement of requirements) {
    const actual = requirement.field === "metadata.name" ? name : namespace;
    if ((actual === requirement.value) !== (requirement.op === "=")) return false;
  }
  return true;
}
