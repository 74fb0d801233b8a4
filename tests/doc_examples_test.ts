/**
 * The `@example` blocks of `main.ts` and every module in `lib/` are type-checked
 * (`deno check --doc`), so the docs a newcomer copies from cannot drift from the API.
 *
 * Each example is self-contained the way denoland/std writes them: it imports what it uses from
 * the module it documents, with a relative path (`import { x } from "./file.ts";`). Deno adds a
 * hidden import of the documented module's exports to each block before checking it, so a
 * block that forgot its import would still pass the type check: the second test holds that rule,
 * and that every example is a plain `ts` block (an `ignore` block would not be checked at all).
 *
 * An example that shows what a call returns asserts it (`node:assert/strict`), and every example
 * that asserts is run: each becomes a module of a temporary folder, its relative imports made
 * absolute, and one `deno test` imports them all, so a shown value cannot be wrong. An example
 * that needs what a reader already has (a live client, a signal) stands in for it with
 * `declare const`, is only type-checked, and says what happens in prose, not as a result.
 *
 * @module
 */

import assert from "node:assert/strict";
import { basename, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./support/ouroboros_process.ts";

const DOCUMENTED = ["main.ts", "lib/"];

/** One `@example` of a source file: the line of its tag, its code fence, and the code. */
interface ExampleBlock {
  /** 1-based line of the `@example` tag. */
  readonly line: number;
  /** The fence's info string (`ts`), or `undefined` when the tag has no code block. */
  readonly fence: string | undefined;
  /** The code, without the leading ` * `. */
  readonly code: string;
}

/** The `@example` blocks of a source file's JSDoc comments. */
export function exampleBlocks(source: string): ExampleBlock[] {
  const lines = source.split("\n");
  const blocks: ExampleBlock[] = [];
  lines.forEach((text, index) => {
    if (!/^\s*\*\s*@example\b/.test(text)) return;
    let at = index + 1;
    while (at < lines.length && /^\s*\*\s*$/.test(lines[at]!)) at++;
    const opening = /^\s*\*\s*```(.*)$/.exec(lines[at] ?? "");
    if (opening === null) {
      blocks.push({ line: index + 1, fence: undefined, code: "" });
      return;
    }
    const code: string[] = [];
    for (at++; at < lines.length && !/^\s*\*\s*```\s*$/.test(lines[at]!); at++) {
      code.push(lines[at]!.replace(/^\s*\*( |$)/, ""));
    }
    blocks.push({ line: index + 1, fence: opening[1]!.trim(), code: code.join("\n") });
  });
  return blocks;
}

/** A call followed by a comment, on its line or the next: how an example shows what it returns. */
const SHOWN_RESULT = /\);?\s*\/\//;

/** Why `block` of the file named `file` breaks the rules above, or `undefined`. */
export function exampleProblem(file: string, block: ExampleBlock): string | undefined {
  if (block.fence === undefined) {
    return "has no code block: write the example as code, or as prose without the tag";
  }
  if (block.fence !== "ts") return `is a \`\`\`${block.fence} block, which is not type-checked as written`;
  if (!block.code.includes(`from "./${file}"`)) return `does not import from "./${file}"`;
  if (SHOWN_RESULT.test(block.code) && !block.code.includes("assert")) {
    return "shows a result in a comment: assert it";
  }
  return undefined;
}

async function* sourceFiles(path: string): AsyncGenerator<string> {
  if (path.endsWith(".ts")) {
    yield path;
    return;
  }
  for await (const entry of Deno.readDir(path)) {
    const child = join(path, entry.name);
    if (entry.isDirectory) yield* sourceFiles(child);
    else if (entry.isFile && entry.name.endsWith(".ts")) yield child;
  }
}

/** Runs this Deno with `args` in the repository, returning its exit code and its output. */
async function deno(args: readonly string[]): Promise<{ code: number; text: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [...args],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: output.code, text: decoder.decode(output.stdout) + decoder.decode(output.stderr) };
}

Deno.test("the @example blocks of main.ts and lib/ type-check", async () => {
  const output = await deno(["check", "--quiet", "--doc", ...DOCUMENTED]);
  assert.equal(output.code, 0, output.text);
});

Deno.test("every @example of main.ts and lib/ is a ts block that imports from the module it documents", async () => {
  const problems: string[] = [];
  let examples = 0;
  for (const documented of DOCUMENTED) {
    for await (const path of sourceFiles(join(ROOT, documented))) {
      for (const block of exampleBlocks(await Deno.readTextFile(path))) {
        examples++;
        const problem = exampleProblem(basename(path), block);
        if (problem !== undefined) {
          problems.push(`${path.slice(ROOT.length)}:${block.line}: the @example ${problem}`);
        }
      }
    }
  }
  assert.deepEqual(problems, []);
  // About 90 after the words were cut to one example per pure module: far below means a broken scan.
  assert.ok(examples > 60, `only ${examples} @example blocks found: is the scan still finding them?`);
});

/** The code of an example of the module at `path`, its relative imports made absolute. */
export function runnableExample(path: string, code: string): string {
  const base = pathToFileURL(path);
  return code.replace(
    /(from\s+|import\s+)"(\.\.?\/[^"]+)"/g,
    (_, before: string, specifier: string) => `${before}"${new URL(specifier, base).href}"`,
  );
}

Deno.test("the @example blocks that assert run and pass", async () => {
  const folder = await Deno.makeTempDir({ prefix: "ouroboros-examples-" });
  try {
    const tests: string[] = [];
    for (const documented of DOCUMENTED) {
      for await (const path of sourceFiles(join(ROOT, documented))) {
        for (const block of exampleBlocks(await Deno.readTextFile(path))) {
          if (!block.code.includes("assert")) continue;
          const where = `${relative(ROOT, path)}:${block.line}`;
          const module = `example_${tests.length}.ts`;
          await Deno.writeTextFile(join(folder, module), runnableExample(path, block.code) + "\n");
          tests.push(
            `Deno.test(${JSON.stringify(where)}, async () => {\n  await import("./${module}");\n});\n`,
          );
        }
      }
    }
    // 93 when this was written: far below means a broken scan.
    assert.ok(
      tests.length > 75,
      `only ${tests.length} asserting @example blocks found: is the scan still finding them?`,
    );
    await Deno.writeTextFile(join(folder, "examples_test.ts"), tests.join(""));
    const output = await deno([
      "test",
      "--no-prompt",
      "--no-check",
      "-P=test",
      `--config=${join(ROOT, "deno.json")}`,
      folder,
    ]);
    const text = output.text;
    const failed = [...text.matchAll(/^(\S+:\d+) \.\.\. FAILED/gm)].map((match) => match[1]!);
    assert.equal(output.code, 0, `these @example blocks failed: ${failed.join(", ")}\n${text}`);
    assert.match(text, new RegExp(`ok \\| ${tests.length} passed \\| 0 failed`));
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("exampleProblem() catches a missing import, an ignored block, a tag without code and a result unasserted", () => {
  const source = [
    "/**",
    " * @example",
    " * ```ts",
    ' * import assert from "node:assert/strict";',
    ' * import { double } from "./double.ts";',
    " *",
    " * assert.equal(double(2), 4);",
    " * ```",
    " *",
    " * @example Without the import",
    " * ```ts",
    " * double(2); // 4",
    " * ```",
    " *",
    " * @example",
    " * ```ts ignore",
    ' * import { double } from "./double.ts";',
    " * ```",
    " *",
    " * @example",
    " * double(2) is 4",
    " *",
    " * @example A result shown, not asserted",
    " * ```ts",
    ' * import { double } from "./double.ts";',
    " *",
    " * double(2); // 4",
    " * ```",
    " *",
    " * @example A result on the next line, not asserted",
    " * ```ts",
    ' * import { double } from "./double.ts";',
    " *",
    " * double(3)",
    " * // 6",
    " * ```",
    " *",
    " * @example Prose about what happens is fine",
    " * ```ts",
    ' * import { double } from "./double.ts";',
    " *",
    " * // double doubles what it is given",
    " * const four = double(2);",
    " * ```",
    " */",
  ].join("\n");
  const found = exampleBlocks(source).map((block) => [block.line, exampleProblem("double.ts", block)]);
  assert.deepEqual(found, [
    [2, undefined],
    [10, 'does not import from "./double.ts"'],
    [15, "is a ```ts ignore block, which is not type-checked as written"],
    [20, "has no code block: write the example as code, or as prose without the tag"],
    [23, "shows a result in a comment: assert it"],
    [30, "shows a result in a comment: assert it"],
    [38, undefined],
  ]);
});

Deno.test("runnableExample() makes the relative imports of an example absolute, and keeps the others", () => {
  const code = [
    'import assert from "node:assert/strict";',
    'import type { V1ConfigMap } from "@kubernetes/client-node";',
    'import { splitLines } from "../text_lines.ts";',
    'import { planWrite } from "./hosts_layout.ts";',
  ].join("\n");
  assert.equal(
    runnableExample("/repo/lib/controller/modes/etc_hosts/hosts_layout.ts", code),
    [
      'import assert from "node:assert/strict";',
      'import type { V1ConfigMap } from "@kubernetes/client-node";',
      'import { splitLines } from "file:///repo/lib/controller/modes/text_lines.ts";',
      'import { planWrite } from "file:///repo/lib/controller/modes/etc_hosts/hosts_layout.ts";',
    ].join("\n"),
  );
});
