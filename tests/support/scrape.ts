/**
 * Reads the proxy's own `/metrics` in tests: a parser for the Prometheus text lines we emit and
 * a look-up of one series.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { ProxyProcess } from "./ouroboros_process.ts";

/** One sample line. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A series to look up: metric name and its exact label set. */
export type Series = readonly [string, Readonly<Record<string, string>>];

/** Parses the Prometheus text format (enough of it for our own /metrics). */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match, `unparsable metrics line ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1] ?? ""] = pair[2] ?? "";
    }
    samples.push({ name: match[1] ?? "", labels, value: Number(match[3]) });
  }
  return samples;
}

/** Fetches /metrics and returns the value of one series; fails if the series is absent. */
export async function metric(proxy: ProxyProcess, series: Series): Promise<number> {
  const { status, body } = await proxy.healthGet("/metrics");
  assert.equal(status, 200);
  const [name, labels] = series;
  const found = parseMetrics(body).find((sample) =>
    sample.name === name && Object.keys(labels).length === Object.keys(sample.labels).length &&
    Object.entries(labels).every(([key, value]) => sample.labels[key] === value)
  );
  assert.ok(found, `no series ${name}${JSON.stringify(labels)} in /metrics`);
  return found.value;
}
