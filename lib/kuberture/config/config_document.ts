/**
 * A YAML config file read node by node, so every problem says where it is (file, line, column, key
 * path) and all are collected, not only the first: plain `parse()` objects forget positions and
 * quietly coerce (a duplicate key, a string where a list belongs).
 *
 * As kuberture's Go decoder: `key:` or `~` counts as left out, and text fields take any scalar by
 * its written text (`name: 2024` is `"2024"`). `yaml` is imported statically: every subcommand
 * already loads it, so a lazy import would save nothing.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument, type YAMLError } from "yaml";
import type { Document } from "yaml";

/** One `key: value` of a mapping: the key's node (for "unknown key") and the value's. */
export interface ConfigEntry {
  /** The key's node; problems about the key itself point here. */
  readonly keyNode: Node;
  /** The value's node with aliases followed, or `undefined` for `key:` with nothing after it. */
  readonly value: Node | undefined;
  readonly keyPath: string;
  /** True when the value is an alias to no anchor (reported already; `value` is `undefined`). */
  readonly unresolved?: boolean;
}

/** One item of a list of text, with where it is. */
export interface ConfigListItem {
  readonly text: string;
  readonly node: Node;
  readonly keyPath: string;
}

/** What {@linkcode ConfigDocument.mapping} checks a mapping against. */
export interface MappingSpec {
  /** The keys accepted, in the order the message lists them. */
  readonly keys: readonly string[];
  /** What the mapping is, for "expected …" messages: `"an output"`. */
  readonly what: string;
  /** Extra advice for keys people write by mistake, by key. */
  readonly hints?: Readonly<Record<string, string>>;
  /** When true, a left-out value (a `- ` list item with nothing) is refused too. */
  readonly required?: boolean;
}

/**
 * The parsed document and the problems found so far. Readers return `undefined` for a value absent
 * or wrong (recording a problem for the wrong ones), so callers go on to the next problem.
 */
export class ConfigDocument {
  readonly #problems: { readonly offset: number; readonly text: string }[] = [];
  /** The document's top node, or `undefined` for an empty file (or one that is not YAML). */
  readonly root: Node | undefined;
  readonly #path: string;
  readonly #lines = new LineCounter();
  readonly #document: Document.Parsed;

  /** Parses `source`; YAML syntax errors become problems (and `root` is then `undefined`). */
  constructor(source: string, options: { readonly path: string }) {
    this.#path = options.path;
    this.#document = parseDocument(source, {
      lineCounter: this.#lines,
      prettyErrors: false,
      uniqueKeys: true,
    });
    for (const error of this.#document.errors) {
      const text = `${this.#where(error.pos[0])}: not valid YAML: ${yamlErrorText(error, source)}`;
      this.#problems.push({ offset: error.pos[0], text });
    }
    const contents = this.#document.contents ?? undefined;
    this.root = this.#document.errors.length > 0 ? undefined : this.#follow(contents, "");
    if (isScalar(this.root) && this.root.value === null) this.root = undefined;
  }

  /**
   * Every problem, prefixed `file:line:col: keyPath: ` (`file: keyPath: ` with no place), in file
   * order, those without a place first.
   */
  get problems(): readonly string[] {
    return this.#problems.toSorted((a, b) => a.offset - b.offset).map((problem) => problem.text);
  }

  /** Records a problem at `node` (or at the file when there is no node) under `keyPath`. */
  problem(node: Node | undefined, keyPath: string, message: string): void {
    const offset = node?.range?.[0] ?? -1;
    const where = offset < 0 ? this.#path : this.#where(offset);
    this.#problems.push({
      offset,
      text: keyPath === "" ? `${where}: ${message}` : `${where}: ${keyPath}: ${message}`,
    });
  }

  /**
   * The entries of a mapping, by key. Refuses a non-mapping, non-text keys and unknown keys (with
   * the nearest known one). Left out gives an empty map unless `spec.required`.
   */
  mapping(node: Node | undefined, keyPath: string, spec: MappingSpec): Map<string, ConfigEntry> | undefined {
    const entries = new Map<string, ConfigEntry>();
    if (isAbsent(node) && spec.required !== true) return entries;
    if (!isMap(node)) {
      this.problem(
        node,
        keyPath,
        `expected a mapping (${spec.what}: ${spec.keys.join(", ")}), got ${describe(node)}`,
      );
      return undefined;
    }
    for (const pair of node.items) {
      const keyNode = pair.key as Node;
      const key = isScalar(keyNode) ? keyNode.value : undefined;
      if (typeof key !== "string") {
        this.problem(keyNode, keyPath, `a key must be text, got ${describe(keyNode)}`);
        continue;
      }
      const childPath = keyPath === "" ? key : `${keyPath}.${key}`;
      if (!spec.keys.includes(key)) {
        const hint = spec.hints?.[key] ?? nearestKey(key, spec.keys);
        this.problem(
          keyNode,
          childPath,
          `unknown key${hint === undefined ? "" : ` (${hint})`}; ${spec.what} accepts ${
            spec.keys.join(", ")
          }`,
        );
        continue;
      }
      const written = (pair.value ?? undefined) as Node | undefined;
      const value = this.#follow(written, childPath);
      const unresolved = value === undefined && isAlias(written);
      entries.set(key, { keyNode, value, keyPath: childPath, ...(unresolved ? { unresolved } : {}) });
    }
    return entries;
  }

  /** A scalar's written text; `undefined` when left out; lists and mappings are refused. */
  text(entry: ConfigEntry | undefined): string | undefined {
    if (entry === undefined || isAbsent(entry.value)) return undefined;
    const node = entry.value!;
    if (isScalar(node)) return scalarText(node);
    this.problem(node, entry.keyPath, `expected text, got ${describe(node)}`);
    return undefined;
  }

  /** A whole number: `undefined` when absent; anything else (text, 60.5, a list) is refused. */
  integer(entry: ConfigEntry | undefined, accepted: string): number | undefined {
    if (entry === undefined || isAbsent(entry.value)) return undefined;
    const node = entry.value!;
    if (isScalar(node) && typeof node.value === "number" && Number.isInteger(node.value)) return node.value;
    this.problem(node, entry.keyPath, `expected ${accepted}, got ${describe(node)}`);
    return undefined;
  }

  /** The nodes of a list (`undefined`: left out or refused); text gets a hint to write a list. */
  list(entry: ConfigEntry | undefined, what: string): (Node | undefined)[] | undefined {
    if (entry === undefined || isAbsent(entry.value)) return undefined;
    const node = entry.value!;
    if (isSeq(node)) {
      // An item is `undefined` only for an alias to no anchor, which #follow has reported.
      return node.items.map((item, index) =>
        this.#follow(item as Node | undefined, `${entry.keyPath}[${index}]`)
      );
    }
    const hint = isScalar(node) && typeof node.value === "string"
      ? `; write it as a list: [${scalarText(node)}]`
      : "";
    this.problem(node, entry.keyPath, `expected ${what}, got ${describe(node)}${hint}`);
    return undefined;
  }

  /** The text items of a list, each with its key path; other items are refused. */
  textItems(nodes: readonly (Node | undefined)[], keyPath: string): ConfigListItem[] {
    const items: ConfigListItem[] = [];
    nodes.forEach((node, index) => {
      if (node === undefined) return;
      const itemPath = `${keyPath}[${index}]`;
      if (isScalar(node) && node.value !== null) {
        items.push({ text: scalarText(node), node, keyPath: itemPath });
      } else this.problem(node, itemPath, `expected text, got ${describe(node)}`);
    });
    return items;
  }

  /** `file:line:col` of a character offset. */
  #where(offset: number): string {
    const { line, col } = this.#lines.linePos(offset);
    return line === 0 ? `${this.#path}:1:${offset + 1}` : `${this.#path}:${line}:${col}`;
  }

  /** The node an alias stands for (recording a problem for an unknown anchor), or the node itself. */
  #follow(node: Node | undefined, keyPath: string): Node | undefined {
    if (!isAlias(node)) return node;
    const target = node.resolve(this.#document);
    if (target === undefined) this.problem(node, keyPath, `the alias *${node.source} names no anchor`);
    return target;
  }
}

/** True for a key left out or without value (`key:`, `~`, `null`), not an unresolved alias. */
export function isLeftOut(entry: ConfigEntry | undefined): boolean {
  return entry === undefined || (entry.unresolved !== true && isAbsent(entry.value));
}

/** The first line of a YAML error, in our words for the errors people make most. */
function yamlErrorText(error: YAMLError, source: string): string {
  if (error.code === "MULTIPLE_DOCS") {
    return "the file holds more than one YAML document (a second ---); it must hold one";
  }
  if (error.code === "DUPLICATE_KEY") {
    const key = /^[^:\n]*/.exec(source.slice(error.pos[0]))![0].trim();
    return `the key ${key} appears twice in one mapping`;
  }
  return error.message.split("\n")[0]!;
}

/** True for a left-out value: no node, or a null scalar (`key:`, `~`, `null`). */
function isAbsent(node: Node | undefined): boolean {
  return node === undefined || (isScalar(node) && node.value === null);
}

/** A scalar as the text written: strings as they are, numbers and booleans as typed. */
function scalarText(node: { readonly value: unknown; readonly source?: string }): string {
  if (typeof node.value === "string") return node.value;
  return node.source ?? String(node.value);
}

/** How a value reads in "got …": `a list`, `the text "x"`, `the number 60.5`. */
function describe(node: Node | undefined): string {
  if (node === undefined) return "nothing";
  if (isMap(node)) return "a mapping";
  if (isSeq(node)) return "a list";
  if (isScalar(node)) {
    const value = node.value;
    if (value === null) return "nothing";
    if (typeof value === "string") return `the text ${JSON.stringify(value)}`;
    if (typeof value === "number") return `the number ${scalarText(node)}`;
    if (typeof value === "boolean") return `the boolean ${scalarText(node)}`;
    return `the value ${scalarText(node)}`;
  }
  return "an alias";
}

/** A "did you mean" hint for a key that differs from a known key only in case or by two edits. */
function nearestKey(key: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = name.toLowerCase() === key.toLowerCase() ? 0 : editDistance(name, key);
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best === undefined ? undefined : `did you mean ${best.name}?`;
}

/** Levenshtein distance (short keys only, so the quadratic table is fine). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}
