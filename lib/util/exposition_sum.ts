/**
 * Sums Prometheus text expositions series by series, so several workers answer one `/metrics`
 * as if one process had counted it all. Right for counters, histograms and gauges that count
 * things; drop per-process gauges (build info, memory) first with {@linkcode withoutFamilies}.
 *
 * Pure: text in, text out.
 *
 * @module
 */

/** One metric family: its HELP and TYPE, and its samples by `name{labels}`. */
export interface ExpositionFamily {
  readonly help: string | undefined;
  readonly type: string;
  readonly samples: ReadonlyMap<string, number>;
}

/** Families by name, in the order they appear. */
export type Exposition = ReadonlyMap<string, ExpositionFamily>;

function parseValue(text: string): number {
  if (text === "+Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  return Number(text);
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

interface MutableFamily {
  help: string | undefined;
  type: string;
  readonly samples: Map<string, number>;
}

function familyOf(families: Map<string, MutableFamily>, name: string): MutableFamily {
  let family = families.get(name);
  if (family === undefined) {
    family = { help: undefined, type: "untyped", samples: new Map() };
    families.set(name, family);
  }
  return family;
}

/**
 * Parses an exposition; a sample belongs to the family of the last HELP or TYPE line before it
 * (or is its own untyped family).
 */
export function parseExposition(text: string): Exposition {
  const families = new Map<string, MutableFamily>();
  let current: MutableFamily | undefined;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const comment = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line);
    if (comment !== null) {
      current = familyOf(families, comment[2] ?? "");
      if (comment[1] === "HELP") current.help = comment[3] ?? "";
      else current.type = comment[3] ?? "untyped";
      continue;
    }
    if (line.startsWith("#")) continue;
    const space = line.lastIndexOf(" ");
    const key = line.slice(0, space);
    const value = parseValue(line.slice(space + 1));
    const family = current ?? familyOf(families, key.split("{")[0] ?? key);
    family.samples.set(key, (family.samples.get(key) ?? 0) + value);
  }
  return families;
}

/**
 * Adds the expositions up, series by series (HELP and TYPE from a family's first appearance).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseExposition, renderExposition, sumExpositions } from "./exposition_sum.ts";
 *
 * const worker = "# TYPE accepted_total counter\naccepted_total{listener=\"http\"} 3\n";
 * assert.equal(
 *   renderExposition(sumExpositions([parseExposition(worker), parseExposition(worker)])),
 *   '# TYPE accepted_total counter\naccepted_total{listener="http"} 6\n',
 * );
 * ```
 */
export function sumExpositions(parts: readonly Exposition[]): Exposition {
  const families = new Map<string, MutableFamily>();
  for (const part of parts) {
    for (const [name, family] of part) {
      let into = families.get(name);
      if (into === undefined) {
        into = { help: family.help, type: family.type, samples: new Map() };
        families.set(name, into);
      }
      for (const [key, value] of family.samples) into.samples.set(key, (into.samples.get(key) ?? 0) + value);
    }
  }
  return families;
}

/** The exposition without the named families. */
export function withoutFamilies(exposition: Exposition, names: ReadonlySet<string>): Exposition {
  return new Map([...exposition].filter(([name]) => !names.has(name)));
}

/** Only the families that never go down: what a stopped worker leaves, so totals do not fall. */
export function monotonicFamilies(exposition: Exposition): Exposition {
  const kept = new Set(["counter", "histogram", "summary"]);
  return new Map([...exposition].filter(([, family]) => kept.has(family.type)));
}

/** Renders the text format, ending with a newline (empty text for no families). */
export function renderExposition(exposition: Exposition): string {
  const lines: string[] = [];
  for (const [name, family] of exposition) {
    if (family.help !== undefined) lines.push(`# HELP ${name} ${family.help}`);
    lines.push(`# TYPE ${name} ${family.type}`);
    for (const [key, value] of family.samples) lines.push(`${key} ${formatValue(value)}`);
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}
