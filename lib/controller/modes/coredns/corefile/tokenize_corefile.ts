/**
 * A Caddyfile tokenizer that sees a Corefile the way CoreDNS does, so we can find server blocks,
 * braces and our markers without being fooled by text that only looks like structure.
 *
 * Pure: no I/O.
 *
 * Follows the Caddy v1 lexer CoreDNS uses: Go's `unicode.IsSpace` separates tokens; `#` starts a
 * comment even mid-word (`foo#bar`); only a token starting with `"` is quoted, and only `\"` is an
 * escape; `{`/`}` are braces only as whole unquoted tokens. Stricter than CoreDNS: an unterminated
 * quote or unbalanced brace is a problem, not tokens, since we only edit files we fully understand.
 *
 * @module
 */

/** `word` and `quoted` carry text; `open` and `close` are the structural braces. */
export type CorefileTokenKind = "word" | "quoted" | "open" | "close";

/** One token with its position in the source text. */
export interface CorefileToken {
  readonly kind: CorefileTokenKind;
  /** Quotes removed and `\"` unescaped for `quoted`. */
  readonly text: string;
  /** Offsets; a `quoted` token's include its quotes. */
  readonly start: number;
  readonly end: number;
  /** 0-based lines of `start` and of the last character (they differ for multi-line strings). */
  readonly line: number;
  readonly endLine: number;
  /** 0 for server keys, 1 for a server block's directives, …; a block's two braces share one. */
  readonly depth: number;
  /** For braces: index of the matching brace. `-1` for other tokens. */
  readonly partner: number;
}

/** A `#` comment: from the `#` up to, not including, the line's terminator. */
export interface CorefileComment {
  readonly start: number;
  readonly end: number;
  /** 0-based line. */
  readonly line: number;
  readonly text: string;
}

/** Why a text is not a well-formed Corefile. */
export type TokenizeProblemCode = "unterminated-quote" | "unclosed-brace" | "unexpected-close-brace";

/** The tokenizer's answer: all tokens and comments, or the first structural problem found. */
export type TokenizeResult =
  | {
    readonly ok: true;
    readonly tokens: readonly CorefileToken[];
    readonly comments: readonly CorefileComment[];
  }
  | {
    readonly ok: false;
    readonly problem: TokenizeProblemCode;
    /** 0-based; the message says it 1-based. */
    readonly line: number;
    readonly message: string;
  };

/**
 * A run of whole lines the tokenizer passes over without making tokens: the caller has checked
 * they hold only plain words (see `find_own_block.ts`), so no token outside them changes.
 */
export interface TokenizeSkip {
  readonly start: number;
  readonly end: number;
  /** Line breaks in the run. */
  readonly lines: number;
}

/**
 * Tokenizes a Corefile and checks that its braces balance, passing over the `skip` run if given.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenizeCorefile } from "./tokenize_corefile.ts";
 *
 * const result = tokenizeCorefile(".:53 { # a { comment\n    errors\n}\n");
 * assert.ok(result.ok);
 * assert.deepEqual(result.tokens.map((t) => t.text), [".:53", "{", "errors", "}"]);
 * ```
 */
export function tokenizeCorefile(text: string, skip?: TokenizeSkip): TokenizeResult {
  const tokens: MutableToken[] = [];
  const comments: CorefileComment[] = [];
  const openStack: number[] = [];
  let line = 0;
  let index = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const skipAt = skip === undefined || skip.end <= skip.start ? -1 : skip.start;

  while (index < text.length) {
    if (index === skipAt && skip !== undefined) {
      index = skip.end;
      line += skip.lines;
      continue;
    }
    const code = text.charCodeAt(index);
    if (code === 0x0a) {
      line++;
      index++;
      continue;
    }
    if (isGoSpace(code)) {
      index++;
      continue;
    }
    if (code === 0x23 /* # */) {
      const newline = text.indexOf("\n", index);
      let end = newline === -1 ? text.length : newline;
      if (end > index && text.charCodeAt(end - 1) === 0x0d) end--;
      comments.push({ start: index, end, line, text: text.slice(index, end) });
      index = newline === -1 ? text.length : newline;
      continue;
    }
    if (code === 0x22 /* " */) {
      const start = index;
      const startLine = line;
      let value = "";
      let escaped = false;
      let closed = false;
      index++;
      while (index < text.length) {
        const ch = text[index] as string;
        index++;
        if (!escaped && ch === "\\") {
          escaped = true;
          continue;
        }
        if (!escaped && ch === '"') {
          closed = true;
          break;
        }
        if (ch === "\n") line++;
        // Only a quote can be escaped; any other backslash stays part of the value.
        if (escaped && ch !== '"') value += "\\";
        value += ch;
        escaped = false;
      }
      if (!closed) {
        return problem(
          "unterminated-quote",
          startLine,
          `the quoted string that starts on line ${startLine + 1} is never closed`,
        );
      }
      tokens.push({
        kind: "quoted",
        text: value,
        start,
        end: index,
        line: startLine,
        endLine: line,
        depth: openStack.length,
        partner: -1,
      });
      continue;
    }
    // A quote inside a word is literal.
    const start = index;
    while (index < text.length) {
      const c = text.charCodeAt(index);
      if (c === 0x0a || c === 0x23 || isGoSpace(c)) break;
      index++;
    }
    const word = text.slice(start, index);
    if (word === "{") {
      openStack.push(tokens.length);
      tokens.push({
        kind: "open",
        text: word,
        start,
        end: index,
        line,
        endLine: line,
        depth: openStack.length - 1,
        partner: -1,
      });
    } else if (word === "}") {
      const opener = openStack.pop();
      if (opener === undefined) {
        return problem(
          "unexpected-close-brace",
          line,
          `the "}" on line ${line + 1} closes nothing: there is no "{" open at that point`,
        );
      }
      const self = tokens.length;
      tokens.push({
        kind: "close",
        text: word,
        start,
        end: index,
        line,
        endLine: line,
        depth: openStack.length,
        partner: opener,
      });
      const openToken = tokens[opener];
      if (openToken !== undefined) openToken.partner = self;
    } else {
      tokens.push({
        kind: "word",
        text: word,
        start,
        end: index,
        line,
        endLine: line,
        depth: openStack.length,
        partner: -1,
      });
    }
  }

  const unclosed = openStack.at(-1);
  if (unclosed !== undefined) {
    const openLine = tokens[unclosed]?.line ?? 0;
    return problem(
      "unclosed-brace",
      openLine,
      `the "{" on line ${openLine + 1} is never closed: the file ends inside its block`,
    );
  }
  return { ok: true, tokens, comments };
}

type MutableToken = { -readonly [K in keyof CorefileToken]: CorefileToken[K] };

function problem(code: TokenizeProblemCode, line: number, message: string): TokenizeResult {
  return { ok: false, problem: code, line, message };
}

/** Go's `unicode.IsSpace` minus `\n`, spelled out: JavaScript's `\s` differs (U+0085, U+FEFF). */
function isGoSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0x85) return false;
  return code === 0x85 || code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000;
}
