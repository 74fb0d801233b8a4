import assert from "node:assert/strict";
import { METRICS_CONTENT_TYPE, MetricsRegistry } from "../../lib/util/metrics.ts";
import { createProxyMetrics } from "../../lib/proxy/proxy_metrics.ts";

// A strict reader of the Prometheus text exposition format 0.0.4, written from the format's
// description, so the renderer is checked against the grammar and not against itself.

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

interface MetricFamily {
  help?: string;
  type?: string;
  readonly samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const NUMBER = /^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]Inf|NaN)$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

function parseValue(text: string, line: string): number {
  if (!NUMBER.test(text)) throw new Error(`bad value ${JSON.stringify(text)} in: ${line}`);
  return text === "+Inf" ? Infinity : text === "-Inf" ? -Infinity : Number(text);
}

function unescapeHelp(text: string): string {
  return text.replace(/\\(.)/g, (all, c: string) => (c === "n" ? "\n" : c === "\\" ? "\\" : all));
}

function parseLabels(text: string, line: string): { labels: Record<string, string>; rest: string } {
  const labels: Record<string, string> = {};
  let rest = text.slice(1);
  while (!rest.startsWith("}")) {
    const name = LABEL.exec(rest)?.[0];
    if (name === undefined || rest[name.length] !== "=" || rest[name.length + 1] !== '"') {
      throw new Error(`bad label in: ${line}`);
    }
    if (name in labels) throw new Error(`label ${name} repeated in: ${line}`);
    rest = rest.slice(name.length + 2);
    let value = "";
    while (true) {
      const c = rest[0];
      if (c === undefined || c === "\n") throw new Error(`unterminated label value in: ${line}`);
      rest = rest.slice(1);
      if (c === '"') break;
      if (c === "\\") {
        const escaped = rest[0];
        rest = rest.slice(1);
        if (escaped === "n") value += "\n";
        else if (escaped === "\\" || escaped === '"') value += escaped;
        else throw new Error(`bad escape \\${escaped} in: ${line}`);
      } else {
        value += c;
      }
    }
    labels[name] = value;
    if (rest.startsWith(",")) {
      rest = rest.slice(1);
      if (rest.startsWith("}")) throw new Error(`trailing comma in: ${line}`);
    } else if (!rest.startsWith("}")) {
      throw new Error(`expected , or } in: ${line}`);
    }
  }
  return { labels, rest: rest.slice(1) };
}

/** Parses and checks an exposition; throws naming the first rule it breaks. */
function parseExposition(text: string): Map<string, MetricFamily> {
  if (!text.endsWith("\n")) throw new Error("exposition does not end with a newline");
  const families = new Map<string, MetricFamily>();
  const finished = new Set<string>();
  const seenSeries = new Set<string>();
  let current: string | undefined;
  const enter = (name: string) => {
    if (current !== name) {
      if (finished.has(name)) throw new Error(`family ${name} is split into two groups`);
      if (current !== undefined) finished.add(current);
      current = name;
    }
    let family = families.get(name);
    if (family === undefined) {
      family = { samples: [] };
      families.set(name, family);
    }
    return family;
  };
  for (const line of text.slice(0, -1).split("\n")) {
    if (line === "") throw new Error("empty line");
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, keyword, name = "", rest = ""] = meta;
      if (NAME.exec(name)?.[0] !== name) throw new Error(`bad metric name in: ${line}`);
      const family = enter(name);
      if (keyword === "HELP") {
        if (family.help !== undefined) throw new Error(`second HELP for ${name}`);
        family.help = unescapeHelp(rest);
      } else {
        if (family.type !== undefined) throw new Error(`second TYPE for ${name}`);
        if (family.samples.length > 0) throw new Error(`TYPE for ${name} after its samples`);
        if (!TYPES.has(rest)) throw new Error(`unknown type in: ${line}`);
        family.type = rest;
      }
      continue;
    }
    if (line.startsWith("#")) continue; // plain comment
    const name = NAME.exec(line)?.[0];
    if (name === undefined) throw new Error(`bad sample line: ${line}`);
    let rest = line.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith("{")) ({ labels, rest } = parseLabels(rest, line));
    const parts = rest.split(" ");
    if (parts[0] !== "" || parts.length < 2 || parts.length > 3) throw new Error(`bad sample line: ${line}`);
    const value = parseValue(parts[1] ?? "", line);
    const base = name.replace(/_(bucket|sum|count)$/, "");
    const familyName = base !== name && families.get(base)?.type === "histogram" ? base : name;
    const family = enter(familyName);
    if (family.type === undefined) throw new Error(`sample before TYPE: ${line}`);
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seenSeries.has(key)) throw new Error(`duplicate series: ${line}`);
    seenSeries.add(key);
    family.samples.push({ name, labels, value });
  }
  for (const [name, family] of families) {
    if (family.type === "histogram") checkHistogram(name, family);
  }
  return families;
}

/** Buckets per series ascend by `le`, counts never drop, end at +Inf equal to _count. */
function checkHistogram(name: string, family: MetricFamily): void {
  const groups = new Map<string, Sample[]>();
  const keyOf = (labels: Readonly<Record<string, string>>) =>
    JSON.stringify(Object.entries(labels).filter(([k]) => k !== "le").sort());
  for (const sample of family.samples) {
    const key = keyOf(sample.labels);
    groups.set(key, [...(groups.get(key) ?? []), sample]);
  }
  for (const [key, samples] of groups) {
    const buckets = samples.filter((s) => s.name === `${name}_bucket`);
    const count = samples.find((s) => s.name === `${name}_count`);
    const sum = samples.find((s) => s.name === `${name}_sum`);
    if (count === undefined || sum === undefined) throw new Error(`${name}${key}: missing _sum or _count`);
    let previous = { le: -Infinity, value: 0 };
    for (const bucket of buckets) {
      const le = bucket.labels.le;
      if (le === undefined) throw new Error(`${name}${key}: bucket without le`);
      const bound = parseValue(le, le);
      if (bound <= previous.le) throw new Error(`${name}${key}: le ${le} out of order`);
      if (bucket.value < previous.value) throw new Error(`${name}${key}: bucket le=${le} is not cumulative`);
      previous = { le: bound, value: bucket.value };
    }
    if (previous.le !== Infinity) throw new Error(`${name}${key}: no +Inf bucket`);
    if (previous.value !== count.value) throw new Error(`${name}${key}: +Inf bucket differs from _count`);
  }
}

function sampleValue(
  families: Map<string, MetricFamily>,
  name: string,
  labels: Record<string, string>,
): number {
  const base = name.replace(/_(bucket|sum|count)$/, "");
  const family = families.get(name) ?? families.get(base);
  const found = family?.samples.find((s) =>
    s.name === name &&
    JSON.stringify(Object.entries(s.labels).sort()) === JSON.stringify(Object.entries(labels).sort())
  );
  if (found === undefined) throw new Error(`no sample ${name}${JSON.stringify(labels)}`);
  return found.value;
}

Deno.test("the checker refuses malformed expositions", async (t) => {
  // Guards the oracle: if it accepted these, the tests below could not catch the same mistakes.
  const bad: readonly [string, string][] = [
    ["no final newline", "# TYPE a counter\na 1"],
    ["sample before TYPE", "a 1\n"],
    ["bad escape", '# TYPE a counter\na{x="\\t"} 1\n'],
    ["raw quote in value", '# TYPE a counter\na{x="say "hi""} 1\n'],
    ["duplicate series", '# TYPE a counter\na{x="1"} 1\na{x="1"} 2\n'],
    ["split family", "# TYPE a counter\na 1\n# TYPE b counter\nb 1\na 2\n"],
    [
      "non-cumulative buckets",
      '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n',
    ],
    ["+Inf differs from count", '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 1\n'],
    ["bad value", "# TYPE a gauge\na one\n"],
  ];
  for (const [name, text] of bad) {
    await t.step(name, () => {
      assert.throws(() => parseExposition(text));
    });
  }
});

Deno.test("counters and gauges render HELP, TYPE and one line per series", () => {
  const registry = new MetricsRegistry();
  const requests = registry.counter("requests_total", "Requests handled.", ["method", "code"]);
  requests.labels({ method: "get", code: "200" }).value += 3;
  requests.labels({ method: "post", code: "503" }).value += 1;
  const temperature = registry.gauge("temperature_celsius", "Current temperature.");
  temperature.labels({}).value = -4.5;
  let rss = 1_000;
  registry.sampledGauge("process_resident_memory_bytes", "Resident memory.", () => rss);
  const expected = [
    "# HELP requests_total Requests handled.",
    "# TYPE requests_total counter",
    'requests_total{method="get",code="200"} 3',
    'requests_total{method="post",code="503"} 1',
    "# HELP temperature_celsius Current temperature.",
    "# TYPE temperature_celsius gauge",
    "temperature_celsius -4.5",
    "# HELP process_resident_memory_bytes Resident memory.",
    "# TYPE process_resident_memory_bytes gauge",
    "process_resident_memory_bytes 1000",
    "",
  ].join("\n");
  assert.equal(registry.render(), expected);
  // The same labels give the same series object, so hot paths can keep it.
  assert.equal(requests.labels({ method: "get", code: "200" }).value, 3);
  // Sampled gauges are read at scrape time.
  rss = 2_048;
  const families = parseExposition(registry.render());
  assert.equal(sampleValue(families, "process_resident_memory_bytes", {}), 2_048);
  assert.equal(families.get("requests_total")?.type, "counter");
  assert.equal(families.get("requests_total")?.help, "Requests handled.");
  assert.match(METRICS_CONTENT_TYPE, /^text\/plain; version=0\.0\.4/);
});

Deno.test("label values with backslashes, quotes and newlines survive escaping", async (t) => {
  const values = [
    "plain",
    "",
    "C:\\path\\to",
    'say "hi"',
    "line one\nline two",
    '\\"',
    '\\n is not a newline, "\n" is',
    "trailing backslash \\",
    "unicode ✓ µs",
    "a=b,c}d{",
  ];
  for (const value of values) {
    await t.step(JSON.stringify(value), () => {
      const registry = new MetricsRegistry();
      registry.counter("events_total", "Events.", ["detail"]).labels({ detail: value }).value = 1;
      const text = registry.render();
      assert.equal(text.split("\n").length, 4, "one line per series, whatever the value holds");
      assert.equal(sampleValue(parseExposition(text), "events_total", { detail: value }), 1);
    });
  }
});

Deno.test("HELP text with a backslash or a newline stays on one line", () => {
  const registry = new MetricsRegistry();
  const help = "Paths like C:\\temp.\nSecond line.";
  registry.gauge("odd_help", help).labels({}).value = 1;
  const text = registry.render();
  assert.equal(text.split("\n")[0], "# HELP odd_help Paths like C:\\\\temp.\\nSecond line.");
  assert.equal(parseExposition(text).get("odd_help")?.help, help);
});

Deno.test("histograms render cumulative buckets, +Inf, _sum and _count", () => {
  const registry = new MetricsRegistry();
  const latency = registry.histogram("latency_seconds", "Latency.", ["listener"], [5, 0.1, 1]);
  const http = latency.labels({ listener: "http" });
  for (const value of [0.05, 0.1, 0.5, 3, 10, 100]) http.observe(value);
  latency.labels({ listener: "https" }); // created empty
  const expected = [
    "# HELP latency_seconds Latency.",
    "# TYPE latency_seconds histogram",
    'latency_seconds_bucket{listener="http",le="0.1"} 2', // 0.1 itself falls in le="0.1"
    'latency_seconds_bucket{listener="http",le="1"} 3',
    'latency_seconds_bucket{listener="http",le="5"} 4',
    'latency_seconds_bucket{listener="http",le="+Inf"} 6',
    'latency_seconds_sum{listener="http"} 113.65',
    'latency_seconds_count{listener="http"} 6',
    'latency_seconds_bucket{listener="https",le="0.1"} 0',
    'latency_seconds_bucket{listener="https",le="1"} 0',
    'latency_seconds_bucket{listener="https",le="5"} 0',
    'latency_seconds_bucket{listener="https",le="+Inf"} 0',
    'latency_seconds_sum{listener="https"} 0',
    'latency_seconds_count{listener="https"} 0',
    "",
  ].join("\n");
  assert.equal(registry.render(), expected);
  parseExposition(registry.render());
});

Deno.test("special values render the way Prometheus reads them", async (t) => {
  const cases: readonly [number, string][] = [
    [0, "0"],
    [42, "42"],
    [-1.25, "-1.25"],
    [1e21, "1e+21"],
    [Infinity, "+Inf"],
    [-Infinity, "-Inf"],
    [Number.NaN, "NaN"],
  ];
  for (const [value, text] of cases) {
    await t.step(text, () => {
      const registry = new MetricsRegistry();
      registry.gauge("g", "G.").labels({}).value = value;
      const rendered = registry.render();
      assert.equal(rendered.split("\n")[2], `g ${text}`);
      const parsed = sampleValue(parseExposition(rendered), "g", {});
      assert.ok(Object.is(parsed, value), `${text} parsed as ${parsed}`);
    });
  }
});

Deno.test("invalid or duplicate metric declarations throw", async (t) => {
  const cases: readonly [string, (registry: MetricsRegistry) => unknown, RegExp][] = [
    ["empty name", (r) => r.counter("", "x"), /not a valid name/],
    ["name starting with a digit", (r) => r.counter("1requests", "x"), /not a valid name/],
    ["name with a dash", (r) => r.gauge("bytes-in", "x"), /not a valid name/],
    ["name with a space", (r) => r.gauge("bytes in", "x"), /not a valid name/],
    ["duplicate counter", (r) => r.counter("taken_total", "x"), /already registered/],
    ["duplicate across types", (r) => r.gauge("taken_total", "x"), /already registered/],
    ["duplicate sampled gauge", (r) => r.sampledGauge("taken_total", "x", () => 1), /already registered/],
    ["label with a dash", (r) => r.counter("a_total", "x", ["my-label"]), /not a valid label name/],
    ["label starting with a digit", (r) => r.counter("a_total", "x", ["1st"]), /not a valid label name/],
    ["reserved label prefix", (r) => r.counter("a_total", "x", ["__name"]), /reserved '__' prefix/],
    ["repeated label", (r) => r.counter("a_total", "x", ["listener", "listener"]), /listed twice/],
    ["le on a histogram", (r) => r.histogram("h", "x", ["le"], [1]), /reserved for histogram buckets/],
    ["explicit +Inf bound", (r) => r.histogram("h", "x", [], [1, Infinity]), /finite and distinct/],
    ["NaN bound", (r) => r.histogram("h", "x", [], [Number.NaN]), /finite and distinct/],
    ["repeated bound", (r) => r.histogram("h", "x", [], [1, 2, 1]), /finite and distinct/],
  ];
  for (const [name, register, message] of cases) {
    await t.step(name, () => {
      const registry = new MetricsRegistry();
      registry.counter("taken_total", "Already here.");
      assert.throws(() => register(registry), { name: "TypeError", message });
      // A refused declaration leaves the registry usable and its output well-formed.
      registry.counter("after_total", "Registered after the failure.");
      parseExposition(registry.render());
    });
  }
  // `le` is an ordinary label on counters and gauges.
  new MetricsRegistry().gauge("g", "x", ["le"]);
});

Deno.test("the proxy's real exposition is well-formed", () => {
  const metrics = createProxyMetrics({ rss: () => 12_345, version: 'v1.2.3 "dev"' });
  metrics.accepted.labels({ listener: "http" }).value += 2;
  metrics.duration.labels({ listener: "https" }).observe(0.2);
  const families = parseExposition(metrics.registry.render());
  for (const [name, family] of families) {
    assert.ok(family.help !== undefined && family.help !== "", `${name} has no HELP`);
    assert.ok(family.type !== undefined, `${name} has no TYPE`);
    if (family.type === "counter") assert.match(name, /_total$/, `counter ${name} should end in _total`);
  }
  assert.equal(
    sampleValue(families, "ouroboros_build_info", { version: 'v1.2.3 "dev"', revision: "unknown" }),
    1,
  );
  assert.equal(sampleValue(families, "process_resident_memory_bytes", {}), 12_345);
});
