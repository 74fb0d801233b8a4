/**
 * A Caddyfile tokenizer that sees a Corefile the way CoreDNS does, so we can find server blocks,
 * braces and our markers without being fooled by text that only looks like structure.
 *
 * CoreDNS reads its Corefile with the Caddy v1 lexer. The rules this module follows, and why:
 *
 * - Tokens are separated by whitespace as Go's `unicode.IsSpace` defines it (ASCII space, tab,
 *   LF, CR, VT, FF, plus U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F,
 *   U+3000). A byte-order mark at the very start is skipped.
 * - `#` outside a quoted string starts a comment that runs to the end of the line, wherever it
 *   appears, even in the middle of a word (`foo#bar` is the word `foo` and a comment). This is
 *   the Caddy v1 rule CoreDNS uses; newer Caddy only starts comments at a token boundary.
 * - A token that starts with `"` is a quoted string: it ends at the next unescaped `"`, may
 *   span lines, and `\"` inside it stands for `"` (any other backslash is kept as written).
 *   A `"` in the middle of a word is an ordinary character.
 * - `{` and `}` are structure only when they are a whole unquoted token. `regex{2}`, `"{"` and a
 *   `{` inside a comment are not braces, exactly as for CoreDNS's parser.
 *
 * Where CoreDNS is lenient we are strict, because we only edit files we fully understand: an
 * unterminated quoted string (CoreDNS silently ends it at end of file), a `}` with no open block,
 * or a block left open at the end are reported as problems instead of tokens.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** `word` and `quoted` carry text; `open` and `close` are the structural braces. */
export type CorefileTokenKind = "word" | "quoted" | "open" | "close";

/** One token with its position in the source text. */
export interface CorefileToken {
  /** What the token is. */
  readonly kind: CorefileTokenKind;
  /** The token's value: quotes removed and `\"` unescaped for `quoted`; `{` or `}` for braces. */
  readonly text: string;
  /** Offset of the first character (the opening quote for `quoted`). */
  readonly start: number;
  /** Offset just past the last character (past the closing quote for `quoted`). */
  readonly end: number;
  /** 0-based line of `start`. */
  readonly line: number;
  /** 0-based line of the last character; differs from `line` only for multi-line quoted strings. */
  readonly endLine: number;
  /**
   * Nesting depth the token belongs to: 0 for server keys and top-level `import`, 1 for the
   * directives of a server block, and so on. An `open` brace has the depth of the line that
   * opens it; a `close` brace the depth it returns to, so a block's braces share one depth.
   */
  readonly depth: number;
  /** For braces: index of the matching brace in the token list. `-1` for other tokens. */
  readonly partner: number;
}

/** A `#` comment: from the `#` up to, not including, the line's terminator. */
export interface CorefileComment {
  /** Offset of the `#`. */
  readonly start: number;
  /** Offset where the line's terminator (`\n` or `\r\n`) or the text ends. */
  readonly end: number;
  /** 0-based line. */
  readonly line: number;
  /** The comment text including the `#`. */
  readonly text: string;
}

/** Why a text could not be tokenized into a well-formed Corefile. */
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
    /** 0-based line the problem points at. */
    readonly line: number;
    /** A sentence for a person, with a 1-based line number. */
    readonly message: string;
  };

/**
 * A run of whole lines the tokenizer passes over without making tokens: the caller has checked
 * they hold only plain words (see `find_own_block.ts`), so no token outside them changes.
 */
export interface TokenizeSkip {
  /** Offset of the first skipped line's start. */
  readonly start: number;
  /** Offset of the first line after the run. */
  readonly end: number;
  /** Line breaks in the run. */
  readonly lines: number;
}

/**
 * Tokenizes a Corefile and checks that its braces balance. With `skip`, the lines of that run
 * are passed over when the scan reaches its start (not when it is inside a quoted string).
 *
 * @example
 * ```ts
 * import { tokenizeCorefile } from "./tokenize_corefile.ts";
 *
 * const result = tokenizeCorefile(".:53 { # a { comment\n    errors\n}\n");
 * if (result.ok) result.tokens.map((t) => t.text); // [".:53", "{", "errors", "}"]
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
    // A word: everything up to whitespace or a comment. A quote inside a word is literal.
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

/**
 * Go's `unicode.IsSpace`, the separator of CoreDNS's lexer, minus `\n`, which the tokenizer
 * handles itself to count lines. JavaScript's `\s` differs (it lacks U+0085 and adds U+FEFF),
 * so the set is spelled out.
 */
function isGoSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0x85) return false;
  return code === 0x85 || code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000;
}
