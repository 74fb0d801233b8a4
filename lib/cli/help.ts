/**
 * Help text and the docs' flag tables, rendered from option tables so neither drifts from the parser.
 *
 * Pure: returns strings.
 *
 * @module
 */

import { envName, type HelpGroup, type OptionSpec, type OptionTable } from "./options.ts";

/** The widest line `--help` prints, so a 100-column terminal shows it unbroken. */
export const HELP_WIDTH = 100;

/** The default as shown to people: `defaultText` when given, else the raw text or `(empty)`. */
export function shownDefault(spec: OptionSpec<unknown>): string {
  if (spec.defaultText !== undefined) return spec.defaultText;
  return spec.default === "" ? "(empty)" : spec.default;
}

/** Renders `ouroboros <command> --help`, every line at most {@linkcode HELP_WIDTH} columns. */
export function renderHelp<T extends Record<string, OptionSpec<unknown>>>(table: OptionTable<T>): string {
  const lines = [
    `Usage: ouroboros ${table.command} [flags]`,
    "",
    ...wrapText(table.summary, HELP_WIDTH),
    "",
    "Flags (flags win over environment variables, which win over defaults; an empty",
    "environment value counts as unset):",
    "",
  ];
  const detail = (text: string) => wrapText(text, HELP_WIDTH - 8).map((line) => `        ${line}`);
  const envOnly: OptionSpec<unknown>[] = [];
  const row = (spec: OptionSpec<unknown>) => {
    const value = spec.kind.isSwitch ? "" : `=${spec.kind.placeholder}`;
    lines.push(`  --${spec.flag}${value}${spec.repeatable ? " (repeatable)" : ""}`);
    lines.push(...wrapText(spec.help, 72).map((line) => `        ${line}`));
    const variable = envName(table.command, spec);
    const env = variable === null ? "no environment variable" : `env ${variable}`;
    lines.push(
      ...detail(`${env}; default ${shownDefault(spec)}`),
      ...detail(`accepts ${spec.kind.accepted}`),
    );
  };
  const options: Record<string, OptionSpec<unknown>> = table.options;
  const groups: readonly HelpGroup<string>[] = table.groups ?? [{ title: "", options: Object.keys(options) }];
  groups.forEach((group, index) => {
    const specs = group.options.map((key) => options[key]!);
    if (group.title !== "") lines.push(...(index === 0 ? [] : [""]), `${group.title}:`, "");
    if (group.collapsed !== undefined) {
      const names = specs.flatMap((spec) => spec.flag === null ? [] : [`--${spec.flag}`]).join(", ");
      const texts = [group.collapsed, `Flags: ${names}`];
      lines.push(...texts.flatMap((text) => wrapText(text, HELP_WIDTH - 2)).map((line) => `  ${line}`));
      envOnly.push(...specs.filter((spec) => spec.flag === null));
      return;
    }
    for (const spec of specs) {
      if (spec.flag === null) envOnly.push(spec);
      else row(spec);
    }
  });
  lines.push(
    ...(table.groups === undefined ? [] : ["", "Help:", ""]),
    "  -h, --help",
    "        Print this help and exit.",
  );
  if (envOnly.length > 0) {
    lines.push("", "Environment variables without a flag:", "");
    for (const spec of envOnly) {
      lines.push(`  ${envName(table.command, spec)}=${spec.kind.placeholder}`);
      lines.push(...wrapText(spec.help, 72).map((line) => `        ${line}`));
      lines.push(...detail(`default ${shownDefault(spec)}`), ...detail(`accepts ${spec.kind.accepted}`));
    }
  }
  return `${lines.join("\n")}\n`;
}

/** Renders the Markdown flag table of a command's docs page: flag, env var, default and notes. */
export function renderMarkdownTable<T extends Record<string, OptionSpec<unknown>>>(
  table: OptionTable<T>,
): string {
  const rows = ["| Flag | Env var | Default | Notes |", "|---|---|---|---|"];
  for (const spec of Object.values(table.options)) {
    const variable = envName(table.command, spec);
    const env = variable === null ? "(none)" : `\`${variable}\``;
    const notes = markdownText(`${spec.help} Accepts ${spec.kind.accepted}.`);
    const flag = spec.flag === null
      ? "(none)"
      : `\`--${spec.flag}\`${spec.repeatable ? " (repeatable)" : ""}`;
    rows.push(`| ${flag} | ${env} | ${markdownDefault(spec)} | ${notes} |`);
  }
  return `${rows.join("\n")}\n`;
}

function markdownDefault(spec: OptionSpec<unknown>): string {
  if (spec.defaultText !== undefined) return markdownText(spec.defaultText);
  // A `|` ends a table cell even inside a code span, so it is escaped there too.
  return spec.default === "" ? "(empty)" : `\`${spec.default.replaceAll("|", "\\|")}\``;
}

/** Escapes table-cell text: `|` would end the cell and `<name>` would vanish as an HTML tag. */
function markdownText(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** Greedy word wrap to `width` columns; a longer word stays whole on a line of its own. */
export function wrapText(text: string, width: number): string[] {
  const out: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (word === "") continue;
    if (line !== "" && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  if (line !== "") out.push(line);
  return out;
}
