/**
 * A small Prometheus metrics registry: counters, gauges and histograms with labels, rendered in
 * text exposition format 0.0.4. Hot paths keep a labelled child and bump its number field.
 *
 * Pure: no I/O. Values that must be sampled (RSS) are registered as callbacks.
 *
 * @module
 */

/** One labelled series of a counter or gauge. */
export interface NumberSeries {
  value: number;
}

/** The content type Prometheus expects for the text format. */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

function escapeLabel(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll("\n", "\\n").replaceAll('"', '\\"');
}

/** HELP text escapes only backslash and newline (exposition format 0.0.4). */
function escapeHelp(text: string): string {
  return text.replaceAll("\\", "\\\\").replaceAll("\n", "\\n");
}

function header(name: string, help: string, type: string): string[] {
  return [`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`];
}

function formatLabels(names: readonly string[], values: readonly string[], extra = ""): string {
  const parts = names.map((name, i) => `${name}="${escapeLabel(values[i] ?? "")}"`);
  if (extra !== "") parts.push(extra);
  return parts.length === 0 ? "" : `{${parts.join(",")}}`;
}

function formatNumber(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

interface Family {
  render(): string;
}

/** A family's series, keyed by their label values, in first-use order. */
class SeriesByLabels<L extends string, S> {
  readonly #labelNames: readonly L[];
  readonly #create: () => S;
  readonly #entries = new Map<string, { values: string[]; series: S }>();

  constructor(labelNames: readonly L[], create: () => S) {
    this.#labelNames = labelNames;
    this.#create = create;
  }

  get(labels: Readonly<Record<L, string>>): S {
    const values = this.#labelNames.map((name) => labels[name]);
    const key = values.join("\u0000");
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = { values, series: this.#create() };
      this.#entries.set(key, entry);
    }
    return entry.series;
  }

  all(): IterableIterator<{ readonly values: readonly string[]; readonly series: S }> {
    return this.#entries.values();
  }
}

/** A counter or gauge family keyed by label values. */
export class NumberFamily<L extends string> implements Family {
  readonly #name: string;
  readonly #help: string;
  readonly #type: "counter" | "gauge";
  readonly #labelNames: readonly L[];
  readonly #series: SeriesByLabels<L, NumberSeries>;

  /** Use {@linkcode MetricsRegistry.counter} or {@linkcode MetricsRegistry.gauge}. */
  constructor(name: string, help: string, type: "counter" | "gauge", labelNames: readonly L[]) {
    this.#name = name;
    this.#help = help;
    this.#type = type;
    this.#labelNames = labelNames;
    this.#series = new SeriesByLabels(labelNames, () => ({ value: 0 }));
  }

  /** The series for these label values, created at zero; keep it to record on a hot path. */
  labels(labels: Readonly<Record<L, string>>): NumberSeries {
    return this.#series.get(labels);
  }

  /** Renders HELP, TYPE and one line per series. */
  render(): string {
    const lines = header(this.#name, this.#help, this.#type);
    for (const { values, series } of this.#series.all()) {
      lines.push(`${this.#name}${formatLabels(this.#labelNames, values)} ${formatNumber(series.value)}`);
    }
    return lines.join("\n");
  }
}

/** One labelled series of a histogram. */
export class HistogramSeries {
  readonly bounds: readonly number[];
  readonly counts: number[];
  sum = 0;
  count = 0;

  /** Use {@linkcode HistogramFamily.labels}. */
  constructor(bounds: readonly number[]) {
    this.bounds = bounds;
    this.counts = new Array<number>(bounds.length).fill(0);
  }

  /** Records one observation. */
  observe(value: number): void {
    this.sum += value;
    this.count += 1;
    for (let i = 0; i < this.bounds.length; i++) {
      if (value <= (this.bounds[i] ?? Infinity)) {
        this.counts[i] = (this.counts[i] ?? 0) + 1;
        break;
      }
    }
  }
}

/** A histogram family keyed by label values. Buckets are rendered cumulatively. */
export class HistogramFamily<L extends string> implements Family {
  readonly #name: string;
  readonly #help: string;
  readonly #labelNames: readonly L[];
  readonly #series: SeriesByLabels<L, HistogramSeries>;

  /** Use {@linkcode MetricsRegistry.histogram}. */
  constructor(name: string, help: string, labelNames: readonly L[], bounds: readonly number[]) {
    this.#name = name;
    this.#help = help;
    this.#labelNames = labelNames;
    const sorted = [...bounds].sort((a, b) => a - b);
    this.#series = new SeriesByLabels(labelNames, () => new HistogramSeries(sorted));
  }

  /** The series for these label values, created empty on first use. */
  labels(labels: Readonly<Record<L, string>>): HistogramSeries {
    return this.#series.get(labels);
  }

  /** Renders HELP, TYPE, cumulative buckets, sum and count per series. */
  render(): string {
    const lines = header(this.#name, this.#help, "histogram");
    for (const { values, series } of this.#series.all()) {
      let cumulative = 0;
      series.bounds.forEach((bound, i) => {
        cumulative += series.counts[i] ?? 0;
        const le = `le="${formatNumber(bound)}"`;
        lines.push(`${this.#name}_bucket${formatLabels(this.#labelNames, values, le)} ${cumulative}`);
      });
      lines.push(
        `${this.#name}_bucket${formatLabels(this.#labelNames, values, 'le="+Inf"')} ${series.count}`,
      );
      lines.push(`${this.#name}_sum${formatLabels(this.#labelNames, values)} ${formatNumber(series.sum)}`);
      lines.push(`${this.#name}_count${formatLabels(this.#labelNames, values)} ${series.count}`);
    }
    return lines.join("\n");
  }
}

/** A series whose value is read when scraped, such as process memory or CPU time. */
class Sampled implements Family {
  readonly #name: string;
  readonly #help: string;
  readonly #type: "counter" | "gauge";
  readonly #sample: () => number;

  constructor(name: string, help: string, type: "counter" | "gauge", sample: () => number) {
    this.#name = name;
    this.#help = help;
    this.#type = type;
    this.#sample = sample;
  }

  render(): string {
    const value = formatNumber(this.#sample());
    return [...header(this.#name, this.#help, this.#type), `${this.#name} ${value}`].join("\n");
  }
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Refuses label names Prometheus would reject, so the mistake shows at declaration, not scrape. */
function checkLabelNames(metric: string, labelNames: readonly string[], histogram: boolean): void {
  const seen = new Set<string>();
  for (const label of labelNames) {
    const problem = !LABEL_NAME.test(label)
      ? "is not a valid label name"
      : label.startsWith("__")
      ? "uses the reserved '__' prefix"
      : seen.has(label)
      ? "is listed twice"
      : histogram && label === "le"
      ? "is reserved for histogram buckets"
      : undefined;
    if (problem !== undefined) {
      throw new TypeError(`Cannot register metric "${metric}": label "${label}" ${problem}`);
    }
    seen.add(label);
  }
}

/**
 * Holds metric families in registration order and renders them for `/metrics`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MetricsRegistry } from "./metrics.ts";
 *
 * const registry = new MetricsRegistry();
 * const accepted = registry.counter("connections_total", "Connections accepted.", ["listener"]);
 * accepted.labels({ listener: "http" }).value += 1;
 * assert.equal(
 *   registry.render(),
 *   "# HELP connections_total Connections accepted.\n# TYPE connections_total counter\n" +
 *     'connections_total{listener="http"} 1\n',
 * );
 * ```
 */
export class MetricsRegistry {
  readonly #families: Family[] = [];
  readonly #names = new Set<string>();

  #register<F extends Family>(name: string, family: () => F): F {
    if (!METRIC_NAME.test(name)) throw new TypeError(`Cannot register metric: "${name}" is not a valid name`);
    if (this.#names.has(name)) throw new TypeError(`Cannot register metric: "${name}" is already registered`);
    const created = family();
    this.#names.add(name);
    this.#families.push(created);
    return created;
  }

  /** Registers a monotonically increasing counter. */
  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): NumberFamily<L> {
    return this.#register(name, () => {
      checkLabelNames(name, labelNames, false);
      return new NumberFamily(name, help, "counter", labelNames);
    });
  }

  /** Registers a gauge that code sets or adjusts. */
  gauge<L extends string>(name: string, help: string, labelNames: readonly L[] = []): NumberFamily<L> {
    return this.#register(name, () => {
      checkLabelNames(name, labelNames, false);
      return new NumberFamily(name, help, "gauge", labelNames);
    });
  }

  /** Adds a family built elsewhere, one that must exist before the registry does. */
  include(name: string, family: { render(): string }): void {
    this.#register(name, () => family);
  }

  /** Registers a gauge sampled at scrape time. */
  sampledGauge(name: string, help: string, sample: () => number): void {
    this.#register(name, () => new Sampled(name, help, "gauge", sample));
  }

  /** Registers a counter sampled at scrape time; `sample` must never go down. */
  sampledCounter(name: string, help: string, sample: () => number): void {
    this.#register(name, () => new Sampled(name, help, "counter", sample));
  }

  /** Registers a histogram with the given upper bounds (the `+Inf` bucket is implicit). */
  histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    bounds: readonly number[],
  ): HistogramFamily<L> {
    return this.#register(name, () => {
      checkLabelNames(name, labelNames, true);
      // Prometheus rejects two buckets with the same `le` (+Inf is always rendered).
      const sorted = [...bounds].sort((a, b) => a - b);
      if (sorted.some((bound, i) => !Number.isFinite(bound) || bound === sorted[i - 1])) {
        throw new TypeError(`Cannot register metric "${name}": bucket bounds must be finite and distinct`);
      }
      return new HistogramFamily(name, help, labelNames, bounds);
    });
  }

  /** The whole exposition, ending with a newline. */
  render(): string {
    return `${this.#families.map((family) => family.render()).join("\n")}\n`;
  }
}
