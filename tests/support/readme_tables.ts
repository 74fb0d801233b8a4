/**
 * Keeps the README's flag tables equal to the option tables, its kuberture config reference
 * equal to the config key table, and chart/README.md's values reference equal to chart/values.yaml. The tables live between
 * `<!-- BEGIN GENERATED: <name> -->` and `<!-- END GENERATED: <name> -->` markers; `deno task docs`
 * rewrites them and `tests/readme_test.ts` fails when they differ.
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

/** Generated README blocks by marker name. */
export function generatedBlocks(): Record<string, string> {
  return {
    "proxy flags": renderMarkdownTable(PROXY_OPTIONS),
    "controller flags": renderMarkdownTable(CONTROLLER_OPTIONS),
    "kuberture flags": renderMarkdownTable(KUBERTURE_OPTIONS),
    "dns flags": renderMarkdownTable(DNS_OPTIONS),
    "doctor flags": renderMarkdownTable(DOCTOR_OPTIONS),
    "kuberture config": renderKubertureConfigReference(),
  };
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
    if (current === undefined) throw new Error(`README has no markers for the generated block "${name}"`);
    const begin = `<!-- BEGIN GENERATED: ${name} -->\n`;
    out = out.replace(`${begin}${current}`, `${begin}${body}`);
  }
  return out;
}

/** The chart README's generated block: the values reference from chart/values.yaml. */
export function chartGeneratedBlocks(valuesYaml: string): Record<string, string> {
  return { values: renderValuesTable(valuesReference(valuesYaml)) };
}

if (import.meta.main) {
  const path = new URL("../../README.md", import.meta.url).pathname;
  const readme = await Deno.readTextFile(path);
  const updated = replaceBlocks(readme, generatedBlocks());
  if (updated !== readme) await Deno.writeTextFile(path, updated);
  const chartPath = new URL("../../chart/README.md", import.meta.url).pathname;
  const values = await Deno.readTextFile(new URL("../../chart/values.yaml", import.meta.url));
  const chartReadme = await Deno.readTextFile(chartPath);
  const chartUpdated = replaceBlocks(chartReadme, chartGeneratedBlocks(values));
  if (chartUpdated !== chartReadme) await Deno.writeTextFile(chartPath, chartUpdated);
}
