/**
 * House rules of `lib/` that a reader relies on, checked on every file:
 * - no module over 400 lines, unless its module doc says why the length is earned, in a sentence
 *   starting "Long because";
 * - an exported function takes at most two positional parameters; a third, if any, is its
 *   options object, named `options` (the Deno style guide's rule).
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "./support/ouroboros_process.ts";

const MAX_LINES = 400;

async function* libFiles(dir = join(ROOT, "lib")): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* libFiles(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

/** The parameters of every exported function declared in `source`, by name. */
export function exportedParameters(source: string): { name: string; parameters: string[] }[] {
  const found: { name: string; parameters: string[] }[] = [];
  for (const match of source.matchAll(/export (?:async )?function\*? (\w+)\s*(?:<[^(]*>)?\(/g)) {
    let depth = 1;
    let index = match.index + match[0].length;
    let current = "";
    const parameters: string[] = [];
    for (; depth > 0 && index < source.length; index++) {
      const char = source[index]!;
      if ("([{<".includes(char)) depth++;
      else if (")]}>".includes(char) && !(char === ">" && source[index - 1] === "=")) depth--;
      if (depth === 1 && char === ",") {
        parameters.push(current.trim());
        current = "";
      } else if (depth > 0) current += char;
    }
    if (current.trim() !== "") parameters.push(current.trim());
    found.push({ name: match[1]!, parameters });
  }
  return found;
}

Deno.test("house rules: no lib/ module is over 400 lines without saying why", async () => {
  const long: string[] = [];
  for await (const path of libFiles()) {
    const text = await Deno.readTextFile(path);
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    const moduleDoc = text.slice(0, text.indexOf("@module"));
    if (lines > MAX_LINES && !/Long because/.test(moduleDoc)) {
      long.push(`${path.slice(ROOT.length)}: ${lines}`);
    }
  }
  assert.deepEqual(long, []);
});

Deno.test("house rules: exported functions take at most two positional parameters, then `options`", async () => {
  const wrong: string[] = [];
  for await (const path of [...await Array.fromAsync(libFiles()), join(ROOT, "main.ts")]) {
    for (const { name, parameters } of exportedParameters(await Deno.readTextFile(path))) {
      const third = parameters[2];
      if (parameters.length > 3 || (third !== undefined && !/^options\??\s*:/.test(third))) {
        wrong.push(`${path.slice(ROOT.length)}: ${name}(${parameters.length} parameters)`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});

Deno.test("house rules: the parameter reader sees through types, defaults and destructuring", () => {
  const source = `
export function a(x: number, y: Map<string, (v: number) => void>, options: { z?: number } = {}): void {}
export async function b(): Promise<void> {}
export function c<T extends Record<string, unknown>>({ p, q }: T, r = [1, 2], s?: string): void {}
`;
  assert.deepEqual(exportedParameters(source).map(({ name, parameters }) => [name, parameters.length]), [
    ["a", 3],
    ["b", 0],
    ["c", 3],
  ]);
  assert.match(exportedParameters(source)[0]!.parameters[2]!, /^options/);
});
