/**
 * Keeps the flag tables of the subcommands' pages in `docs/` equal to the option tables, the
 * kuberture config reference equal to the config key table, and chart/README.md's values reference
 * equal to chart/values.yaml. The tables live between `<!-- BEGIN GENERATED: <name> -->` and
 * `<!-- END GENERATED: <name> -->` markers, each in the file {@linkcode generatedBlocks} names;
 * `deno task docs` rewrites them and `tests/readme_test.ts` fails when they differ.
 *
 * @module
 */

import { renderMarkdownTable } from "../../lib/cli/help.ts";
import { CONTROLLER_OPTIONS } from "../../lib/controller/controller_options.ts";
import { DNS_OPTIONS } from "../../lib/dns/dns_options.ts";
import { DOCTOR_OPTIONS } from "../../lib/doctor/doctor_options.ts";
import { KUBERTURE_OPTIONS } from "../../lib/kuberture/kuberture_options.ts";
import { PROXY_OPTIONS } from "../../lib/proxy/proxy_options.ts";
import { renderKubertureConfigReference } from "../../lib/kuberture/config/render_kuberture_config_reference.ts";
import { renderValuesTable, valuesReference } from "./values_reference.ts";

/** A generated block: the file it lives in (from the repository root) and its text. */
export interface GeneratedBlock {
  readonly file: string;
  readonly body: string;
}

/** The generated blocks of the docs by marker name, each with the page it lives in. */
export function generatedBlocks(): Record<string, GeneratedBlock> {
  return {
    "proxy flags": { file: "docs/proxy.md", body: renderMarkdownTable(PROXY_OPTIONS) },
    "controller flags": { file: "docs/controller.md", body: renderMarkdownTable(CONTROLLER_OPTIONS) },
    "kuberture flags": { file: "docs/kuberture.md", body: renderMarkdownTable(KUBERTURE_OPTIONS) },
    "kuberture config": { file: "docs/kuberture.md", body: renderKubertureConfigReference() },
    "dns flags": { file: "docs/dns.md", body: renderMarkdownTable(DNS_OPTIONS) },
    "doctor flags": { file: "docs/doctor.md", body: renderMarkdownTable(DOCTOR_OPTIONS) },
  };
}

/** The blocks grouped by the file they live in: `{ file: { name: body } }`. */
export function blocksByFile(blocks: Record<string, GeneratedBlock>): Record<string, Record<string, string>> {
  const files: Record<string, Record<string, string>> = {};
  for (const [name, { file, body }] of Object.entries(blocks)) (files[file] ??= {})[name] = body;
  return files;
}

/** The text between a block's markers, or `undefined` when the markers are missing. */
export function readBlock(readme: string, name: string): string | undefined {
  const begin = `<!-- BEGIN GENERATED: ${name} -->\n`;
  const end = `<!-- END GENERATED: ${name} -->`;
  const start = readme.indexOf(begin);
  const stop = readme.indexOf(end);
  if (start < 0 || stop < start) return undefined;
  return readme.slice(start + begin.length, stop);
}

/**
 * A table in a canonical shape, so the comparison ignores the column padding `deno fmt` adds:
 * cells trimmed, separator rows reduced to `---`.
 */
export function normaliseTable(text: string): string {
  return text.split("\n").map((line) => {
    if (!line.startsWith("|")) return line.trim();
    const cells = line.slice(1, line.endsWith("|") ? -1 : undefined).split(/(?<!\\)\|/).map((cell) =>
      cell.trim()
    );
    return `|${cells.map((cell) => (/^:?-+:?$/.test(cell) ? "---" : cell)).join("|")}|`;
  }).join("\n").trim();
}

/** Replaces every generated block; throws when a block's markers are missing. */
export function replaceBlocks(readme: string, blocks: Record<string, string>): string {
  let out = readme;
  for (const [name, body] of Object.entries(blocks)) {
    const current = readBlock(out, name);
    if (current === undefined) throw new Error(`no markers for the generated block "${name}"`);
    const begin = `<!-- BEGIN GENERATED: ${name} -->\n`;
    out = out.replace(`${begin}${current}`, `${begin}${body}`);
  }
  return out;
}

/** The chart README's generated block: the values reference from chart/values.yaml. */
export function chartGeneratedBlocks(valuesYaml: string): Record<string, string> {
  return { values: renderValuesTable(valuesReference(valuesYaml)) };
}

/** Rewrites the blocks of one file (from the repository root) when they changed. */
async function rewrite(file: string, blocks: Record<string, string>): Promise<void> {
  const path = new URL(`../../${file}`, import.meta.url).pathname;
  const text = await Deno.readTextFile(path);
  const updated = replaceBlocks(text, blocks);
  if (updated !== text) await Deno.writeTextFile(path, updated);
}

if (import.meta.main) {
  for (const [file, blocks] of Object.entries(blocksByFile(generatedBlocks()))) await rewrite(file, blocks);
  const values = await Deno.readTextFile(new URL("../../chart/values.yaml", import.meta.url));
  await rewrite("chart/README.md", chartGeneratedBlocks(values));
}
