/**
 * The chart's values reference: one row per value documented with a `# --` comment in
 * chart/values.yaml (its dotted path, type, default and the comment's text), rendered as the
 * Markdown table between the `values` markers of chart/README.md. `deno task docs` writes it and
 * tests/chart/values_reference_test.ts fails when the README and values.yaml disagree.
 *
 * Decisions: a documented map whose keys are documented too gets a row of its own (its default
 * shown as `{…}`) and rows for its keys; an undocumented map is looked into without a row; lists
 * and maps without documented keys show their default as compact JSON. The comment's own line
 * breaks are joined with spaces.
 *
 * Pure: text in, rows and text out.
 *
 * @module
 */

import { isMap, isPair, isScalar, isSeq, type Node, parseDocument, type YAMLMap } from "yaml";

/** One documented value. */
export interface ValueRow {
  /** Dotted path, such as `controller.coredns.namespace`. */
  readonly key: string;
  readonly type: "string" | "int" | "float" | "bool" | "list" | "object" | "null";
  /** The default as shown: a scalar's JSON, compact JSON of a small list or map, `{…}` for a documented map. */
  readonly defaultText: string;
  readonly description: string;
}

const MARK = /^\s*--\s?/;

function documented(comment: string | null | undefined): string | undefined {
  if (comment === null || comment === undefined) return undefined;
  // The `# --` paragraph is the last one before the key; earlier lines may be section notes.
  const lines = comment.split("\n");
  const start = lines.findLastIndex((line) => MARK.test(line));
  if (start < 0) return undefined;
  return lines.slice(start).map((line, index) => (index === 0 ? line.replace(MARK, "") : line).trim())
    .filter((line) => line !== "").join(" ");
}

function typeOf(node: Node | null): ValueRow["type"] {
  if (isMap(node)) return "object";
  if (isSeq(node)) return "list";
  if (!isScalar(node) || node.value === null) return "null";
  const value = node.value;
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  return "string";
}

/**
 * The comment above a map's key: the parser keeps the one above a map's first key on the map
 * itself, so that one is looked up there.
 */
function commentOf(map: YAMLMap, index: number): string | null | undefined {
  const pair = map.items[index];
  const own = isPair(pair) ? (pair.key as Node).commentBefore : undefined;
  return own ?? (index === 0 ? map.commentBefore : undefined);
}

function hasDocumentedKeys(node: Node | null): boolean {
  return isMap(node) && node.items.some((_, index) => documented(commentOf(node, index)) !== undefined);
}

function walk(map: YAMLMap, prefix: string, rows: ValueRow[]): void {
  for (const [index, pair] of map.items.entries()) {
    if (!isPair(pair)) continue;
    const keyNode = pair.key as Node;
    const key = `${prefix}${String(isScalar(keyNode) ? keyNode.value : keyNode)}`;
    const value = pair.value as Node | null;
    const description = documented(commentOf(map, index));
    const nested = hasDocumentedKeys(value);
    if (description !== undefined) {
      rows.push({
        key,
        type: typeOf(value),
        defaultText: nested ? "{…}" : JSON.stringify(value === null ? null : value.toJSON()),
        description,
      });
    }
    if (isMap(value) && (nested || description === undefined)) walk(value, `${key}.`, rows);
  }
}

/**
 * The documented values of a values.yaml text, in file order.
 *
 * @example
 * ```ts
 * import { valuesReference } from "./values_reference.ts";
 *
 * valuesReference("image:\n  # -- Where the image is.\n  repository: example/ouroboros\n");
 * // [{ key: "image.repository", type: "string", defaultText: '"example/ouroboros"', description: "Where the image is." }]
 * ```
 */
export function valuesReference(text: string): ValueRow[] {
  const document = parseDocument(text);
  if (document.errors.length > 0) {
    throw new Error(`values.yaml does not parse: ${document.errors[0]?.message}`);
  }
  const rows: ValueRow[] = [];
  const root = document.contents;
  if (isMap(root)) walk(root, "", rows);
  return rows;
}

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** The reference as a Markdown table. */
export function renderValuesTable(rows: readonly ValueRow[]): string {
  const lines = ["| Key | Type | Default | Description |", "| --- | --- | --- | --- |"];
  for (const row of rows) {
    lines.push(`| \`${row.key}\` | ${row.type} | \`${cell(row.defaultText)}\` | ${cell(row.description)} |`);
  }
  return `\n${lines.join("\n")}\n\n`;
}
