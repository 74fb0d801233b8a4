import assert from "node:assert/strict";
import {
  type CorefileToken,
  tokenizeCorefile,
} from "../../../../../lib/controller/modes/coredns/corefile/tokenize_corefile.ts";
import {
  newlineStyle,
  splitLines,
  trimAsciiWhitespace,
} from "../../../../../lib/controller/modes/text_lines.ts";

function tokens(text: string): readonly CorefileToken[] {
  const result = tokenizeCorefile(text);
  assert.ok(result.ok, result.ok ? "" : result.message);
  return result.ok ? result.tokens : [];
}

function summary(text: string): string[] {
  return tokens(text).map((token) =>
    token.kind === "word" ? token.text : token.kind === "quoted" ? `"${token.text}"` : token.kind
  );
}

Deno.test("tokens are split the way CoreDNS's lexer splits them", async (t) => {
  const cases: [string, string, string[]][] = [
    ["words and braces", ".:53 {\n    errors\n}\n", [".:53", "open", "errors", "close"]],
    ["braces count only as whole tokens", "{ a{ {b} x{2} }\n", ["open", "a{", "{b}", "x{2}", "close"]],
    ["comment at line start", "# { not a block }\nerrors\n", ["errors"]],
    ["comment after a word, braces ignored", "errors # } {\ncache\n", ["errors", "cache"]],
    ["# inside a word starts a comment", "errors#}\ncache\n", ["errors", "cache"]],
    ["quoted string keeps spaces and braces", 'answer "a { b } # c"\n', ["answer", '"a { b } # c"']],
    ["escaped quote inside a quoted string", 'x "say \\"hi\\""\n', ["x", '"say "hi""']],
    ["other backslashes are kept", 'x "a\\nb\\\\"\n', ["x", '"a\\nb\\\\"']],
    ["quote in the middle of a word is literal", 'ab"cd ef\n', ['ab"cd', "ef"]],
    ["quoted string ends at its closing quote", '"a"b\n', ['"a"', "b"]],
    ["empty quoted string is a token", 'x ""\n', ["x", '""']],
    ["CRLF is whitespace", ".:53 {\r\n    errors\r\n}\r\n", [".:53", "open", "errors", "close"]],
    ["lone CR is whitespace", "a\rb\n", ["a", "b"]],
    ["tabs, vertical tab, form feed", "a\tb\vc\fd\n", ["a", "b", "c", "d"]],
    ["next line and no-break space separate", "a\u0085b\u00a0c\u3000d\n", ["a", "b", "c", "d"]],
    ["zero-width no-break space does not", "a\ufeffb\n", ["a\ufeffb"]],
    ["leading byte-order mark is skipped", "\ufeff.:53 {\n}\n", [".:53", "open", "close"]],
    ["no final newline", ".:53 {\n}", [".:53", "open", "close"]],
  ];
  for (const [name, text, expected] of cases) {
    await t.step(name, () => assert.deepEqual(summary(text), expected));
  }
});

Deno.test("tokens carry their lines, offsets, depth and matching brace", () => {
  const text = '.:53 {\n  kubernetes {\n    x "multi\nline" y\n  }\n}\n';
  const all = tokens(text);
  const picked = all.map((token) => [token.text, token.line, token.endLine, token.depth, token.partner]);
  assert.deepEqual(picked, [
    [".:53", 0, 0, 0, -1],
    ["{", 0, 0, 0, 8],
    ["kubernetes", 1, 1, 1, -1],
    ["{", 1, 1, 1, 7],
    ["x", 2, 2, 2, -1],
    ["multi\nline", 2, 3, 2, -1],
    ["y", 3, 3, 2, -1],
    ["}", 4, 4, 1, 3],
    ["}", 5, 5, 0, 1],
  ]);
  for (const token of all) {
    const raw = text.slice(token.start, token.end);
    assert.equal(token.kind === "quoted" ? raw.slice(1, -1) : raw, token.text);
  }
});

Deno.test("comments are recorded with their text, without the line's CR", () => {
  const result = tokenizeCorefile(".:53 { # main {\r\n  errors#x\r\n}\r\n# end");
  assert.ok(result.ok);
  if (!result.ok) return;
  assert.deepEqual(result.comments.map((c) => [c.line, c.text]), [[0, "# main {"], [1, "#x"], [3, "# end"]]);
});

Deno.test("malformed structure is reported with the line to look at", async (t) => {
  const cases: [string, string, string, number][] = [
    ["unclosed block", ".:53 {\n  errors\n", "unclosed-brace", 0],
    ["unclosed nested block", ".:53 {\n  health {\n}\n", "unclosed-brace", 0],
    ["close without open", ".:53 {\n}\n}\n", "unexpected-close-brace", 2],
    ["close at the start", "}\n", "unexpected-close-brace", 0],
    ["unterminated quoted string", '.:53 {\n  x "abc\n}\n', "unterminated-quote", 1],
    ["escaped closing quote leaves it open", '.:53 {\n  x "abc\\"\n}\n', "unterminated-quote", 1],
  ];
  for (const [name, text, problem, line] of cases) {
    await t.step(name, () => {
      const result = tokenizeCorefile(text);
      assert.equal(result.ok, false);
      if (result.ok) return;
      assert.equal(result.problem, problem);
      assert.equal(result.line, line);
      assert.match(result.message, new RegExp(`line ${line + 1}`));
    });
  }
});

Deno.test("a brace inside a comment or quoted string never unbalances the file", () => {
  assert.ok(tokenizeCorefile('.:53 {\n  # }\n  x "}"\n  y "{\n}"\n}\n').ok);
});

Deno.test("splitLines keeps every byte and each line's own terminator", () => {
  const text = "a\r\nb\n\nc\rd\r\ne";
  const lines = splitLines(text);
  assert.deepEqual(lines.map((line) => line.terminator), ["\r\n", "\n", "\n", "\r\n", ""]);
  assert.deepEqual(lines.map((line) => text.slice(line.start, line.contentEnd)), ["a", "b", "", "c\rd", "e"]);
  assert.equal(lines.map((line) => text.slice(line.start, line.end)).join(""), text);
  assert.deepEqual(splitLines(""), []);
  assert.equal(splitLines("x\n").length, 1);
});

Deno.test("newlineStyle follows the first line break", () => {
  assert.equal(newlineStyle("a\r\nb\n"), "\r\n");
  assert.equal(newlineStyle("a\nb\r\n"), "\n");
  assert.equal(newlineStyle("a"), "\n");
  assert.equal(newlineStyle("\n"), "\n");
});

Deno.test("trimAsciiWhitespace leaves Unicode whitespace in place", () => {
  assert.equal(trimAsciiWhitespace(" \t# x\r\n\v\f"), "# x");
  assert.equal(trimAsciiWhitespace("\u00a0# x"), "\u00a0# x");
});
