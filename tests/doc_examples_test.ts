/**
 * The `@example` blocks of `main.ts` and every module in `lib/` are type-checked
 * (`deno check --doc`), so the docs a newcomer copies from cannot drift from the API.
 *
 * Each example is self-contained the way denoland/std writes them: it imports what it uses from
 * the module it documents, with a relative path (`import { x } from "./file.ts";`), and stands in
 * for values a reader already has with `declare const` (type-only, nothing runs). Deno adds a
 * hidden import of the documented module's exports to each block before checking it, so a
 * block that forgot its import would still pass the type check: the second test holds that rule,
 * and that every example is a plain `ts` block (an `ignore` block would not be checked at all).
 *
 * @module
 */

import assert from "node:assert/strict";
import { basename, join } from "node:path";
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

/** Why `block` of the file named `file` breaks the rules above, or `undefined`. */
export function exampleProblem(file: string, block: ExampleBlock): string | undefined {
  if (block.fence === undefined) {
    return "has no code block: write the example as code, or as prose without the tag";
  }
  if (block.fence !== "ts") return `is a \`\`\`${block.fence} block, which is not type-checked as written`;
  if (!block.code.includes(`from "./${file}"`)) return `does not import from "./${file}"`;
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

Deno.test("the @example blocks of main.ts and lib/ type-check", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--quiet", "--doc", ...DOCUMENTED],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
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

Deno.test("exampleProblem() catches a missing import, an ignored block and a tag without code", () => {
  const source = [
    "/**",
    " * @example",
    " * ```ts",
    ' * import { double } from "./double.ts";',
    " *",
    " * double(2); // 4",
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
    " */",
  ].join("\n");
  const found = exampleBlocks(source).map((block) => [block.line, exampleProblem("double.ts", block)]);
  assert.deepEqual(found, [
    [2, undefined],
    [9, 'does not import from "./double.ts"'],
    [14, "is a ```ts ignore block, which is not type-checked as written"],
    [19, "has no code block: write the example as code, or as prose without the tag"],
  ]);
});
