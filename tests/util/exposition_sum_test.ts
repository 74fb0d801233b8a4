import assert from "node:assert/strict";
import {
  monotonicFamilies,
  parseExposition,
  renderExposition,
  sumExpositions,
  withoutFamilies,
} from "../../lib/util/exposition_sum.ts";
import { MetricsRegistry } from "../../lib/util/metrics.ts";

const WORKER = [
  "# HELP accepted_total Accepted.",
  "# TYPE accepted_total counter",
  'accepted_total{listener="http"} 3',
  'accepted_total{listener="https"} 1',
  "# HELP active Open now.",
  "# TYPE active gauge",
  'active{listener="http"} 2',
  "# HELP duration_seconds Durations.",
  "# TYPE duration_seconds histogram",
  'duration_seconds_bucket{le="1"} 1',
  'duration_seconds_bucket{le="+Inf"} 2',
  "duration_seconds_sum 2.5",
  "duration_seconds_count 2",
  "",
].join("\n");

Deno.test("exposition sum: series add up, families stay grouped with their HELP and TYPE", () => {
  const other =
    '# TYPE accepted_total counter\naccepted_total{listener="http"} 4\n# TYPE extra_total counter\nextra_total 1\n';
  const sum = renderExposition(sumExpositions([parseExposition(WORKER), parseExposition(other)]));
  const expected = WORKER.replace('accepted_total{listener="http"} 3', 'accepted_total{listener="http"} 7') +
    "# TYPE extra_total counter\nextra_total 1\n";
  assert.equal(sum, expected);
});

Deno.test("exposition sum: one part renders back as it was; gauges and named families can be left out", () => {
  assert.equal(renderExposition(parseExposition(WORKER)), WORKER);
  const kept = monotonicFamilies(parseExposition(WORKER));
  assert.deepEqual([...kept.keys()], ["accepted_total", "duration_seconds"]);
  assert.deepEqual([...withoutFamilies(kept, new Set(["accepted_total"])).keys()], ["duration_seconds"]);
  assert.equal(renderExposition(new Map()), "");
});

Deno.test("exposition sum (property): N copies of a registry's exposition sum to N times every value", () => {
  for (let round = 0; round < 50; round++) {
    const registry = new MetricsRegistry();
    const counter = registry.counter("c_total", "A counter.", ["k"]);
    const histogram = registry.histogram("h_seconds", "A histogram.", ["k"], [0.1, 1, 10]);
    for (let i = 0; i < 20; i++) {
      const k = String(Math.floor(Math.random() * 3));
      counter.labels({ k }).value += Math.floor(Math.random() * 100);
      histogram.labels({ k }).observe(Math.floor(Math.random() * 2000) / 100);
    }
    const text = registry.render();
    const copies = 1 + Math.floor(Math.random() * 5);
    const summed = sumExpositions(Array.from({ length: copies }, () => parseExposition(text)));
    const one = parseExposition(text);
    assert.deepEqual([...summed.keys()], [...one.keys()]);
    for (const [name, family] of one) {
      for (const [key, value] of family.samples) {
        const got = summed.get(name)?.samples.get(key) ?? NaN;
        assert.ok(Math.abs(got - value * copies) < 1e-9 * Math.max(1, value * copies), `${key}: ${got}`);
      }
    }
  }
});
