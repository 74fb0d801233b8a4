/**
 * The README's reference of kuberture's config file, rendered from the key table
 * (`kuberture_config_keys.ts`) so the documentation cannot drift from the parser's defaults and
 * messages. `tests/support/readme_tables.ts` keeps the README's "kuberture config" block equal to
 * it (`deno task docs` rewrites it).
 *
 * Pure: returns a string.
 *
 * @module
 */

import { KUBERTURE_CONFIG_KEYS } from "./kuberture_config_keys.ts";

/**
 * A Markdown table with one row per key: its path, default, what it accepts, and what it does
 * (with "needs a restart" for keys the hot reload cannot apply).
 *
 * @example
 * ```ts
 * import { renderKubertureConfigReference } from "./render_kuberture_config_reference.ts";
 *
 * renderKubertureConfigReference(); // "| Key | Default | Accepts | Notes |\n|---|---|---|---|\n| `source.namespace` | …"
 * ```
 */
export function renderKubertureConfigReference(): string {
  const rows = ["| Key | Default | Accepts | Notes |", "|---|---|---|---|"];
  for (const doc of KUBERTURE_CONFIG_KEYS) {
    const notes = doc.restart ? `${doc.notes} A change needs a restart (the hot reload logs it).` : doc.notes;
    rows.push(`| \`${doc.key}\` | ${doc.default} | ${cell(doc.accepts)} | ${cell(notes)} |`);
  }
  return `${rows.join("\n")}\n`;
}

/**
 * Escapes table-cell text: `|` would end the cell, `<name>` would vanish as an HTML tag and `*`
 * could start emphasis.
 */
function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll("*", "\\*");
}
