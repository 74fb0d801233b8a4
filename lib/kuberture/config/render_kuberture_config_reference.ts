/**
 * The kuberture config reference (docs/kuberture.md, Config file), rendered from the key table so
 * it cannot drift from the parser (`deno task docs` rewrites the block; a test keeps the two equal).
 *
 * Pure: returns a string.
 *
 * @module
 */

import { KUBERTURE_CONFIG_KEYS } from "./kuberture_config_keys.ts";

/** A Markdown table, one row per key; keys the hot reload cannot apply say they need a restart. */
export function renderKubertureConfigReference(): string {
  const rows = ["| Key | Default | Accepts | Notes |", "|---|---|---|---|"];
  for (const doc of KUBERTURE_CONFIG_KEYS) {
    const notes = doc.restart ? `${doc.notes} A change needs a restart (the hot reload logs it).` : doc.notes;
    rows.push(`| \`${doc.key}\` | ${doc.default} | ${cell(doc.accepts)} | ${cell(notes)} |`);
  }
  return `${rows.join("\n")}\n`;
}

/** Escapes `|`, `<`, `>` and `*` so cell text renders as written. */
function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll("*", "\\*");
}
