import assert from "node:assert/strict";
import { DIAL_CAUSES } from "../../lib/proxy/dial_cause.ts";
import { createProxyMetrics } from "../../lib/proxy/proxy_metrics.ts";

// The full exposition grammar is checked in tests/util/metrics_test.ts; here only the series a
// dashboard or alert relies on are looked up, as `name{labels} value` lines.

/** Every sample line as `name{label="value",...}` (labels sorted by name) mapped to its value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match, `unreadable sample line: ${line}`);
    const [, name = "", labelText = "", value = ""] = match;
    const labels = [...labelText.matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) =>
      `${k}="${v}"`
    );
    out.set(`${name}{${labels.sort().join(",")}}`, value === "+Inf" ? Infinity : Number(value));
  }
  return out;
}

function key(name: string, labels: Record<string, string>): string {
  return `${name}{${Object.entries(labels).map(([k, v]) => `${k}="${v}"`).sort().join(",")}}`;
}

const LISTENERS = ["http", "https"] as const;

Deno.test("every per-listener and per-cause series exists at zero before the first event", async (t) => {
  const metrics = createProxyMetrics({ rss: () => 0, version: "test" });
  const found = samples(metrics.registry.render());
  const expectZero = (name: string, labels: Record<string, string>) => {
    const k = key(name, labels);
    assert.equal(found.get(k), 0, `${k} should be rendered as 0`);
  };
  for (const listener of LISTENERS) {
    await t.step(listener, () => {
      expectZero("ouroboros_proxy_connections_accepted_total", { listener });
      expectZero("ouroboros_proxy_connections_active", { listener });
      expectZero("ouroboros_proxy_bytes_relayed_total", { listener, direction: "upstream" });
      expectZero("ouroboros_proxy_bytes_relayed_total", { listener, direction: "downstream" });
      for (const cause of DIAL_CAUSES) {
        expectZero("ouroboros_proxy_backend_dial_failures_total", { listener, cause });
      }
      expectZero("ouroboros_proxy_header_write_failures_total", { listener });
      expectZero("ouroboros_proxy_accept_errors_total", { listener });
      expectZero("ouroboros_proxy_connection_duration_seconds_count", { listener });
      expectZero("ouroboros_proxy_connection_duration_seconds_sum", { listener });
      expectZero("ouroboros_proxy_connection_duration_seconds_bucket", { listener, le: "+Inf" });
    });
  }
  expectZero("ouroboros_proxy_backend_ready", {});
  assert.deepEqual(
    [...DIAL_CAUSES].sort(),
    ["connection-refused", "dns-error", "dns-nxdomain", "dns-timeout", "timeout", "unreachable"],
  );
  const dialSeries = [...found.keys()].filter((k) =>
    k.startsWith("ouroboros_proxy_backend_dial_failures_total{")
  );
  assert.equal(dialSeries.length, LISTENERS.length * DIAL_CAUSES.length);
});

Deno.test("build info, memory and recorded events show up in the exposition", () => {
  let rss = 50_000_000;
  const metrics = createProxyMetrics({ rss: () => rss, version: "1.4.0" });
  metrics.accepted.labels({ listener: "https" }).value += 3;
  metrics.dialFailures.labels({ listener: "http", cause: "dns-nxdomain" }).value += 1;
  metrics.bytes.labels({ listener: "http", direction: "upstream" }).value += 512;
  metrics.duration.labels({ listener: "http" }).observe(0.02);
  metrics.backendReady.labels({}).value = 1;
  rss = 60_000_000;
  const found = samples(metrics.registry.render());
  assert.equal(found.get(key("ouroboros_build_info", { version: "1.4.0", revision: "unknown" })), 1);
  assert.equal(found.get(key("process_resident_memory_bytes", {})), 60_000_000);
  assert.equal(found.get(key("ouroboros_proxy_connections_accepted_total", { listener: "https" })), 3);
  assert.equal(found.get(key("ouroboros_proxy_connections_accepted_total", { listener: "http" })), 0);
  assert.equal(
    found.get(
      key("ouroboros_proxy_backend_dial_failures_total", { listener: "http", cause: "dns-nxdomain" }),
    ),
    1,
  );
  assert.equal(
    found.get(
      key("ouroboros_proxy_backend_dial_failures_total", { listener: "https", cause: "dns-nxdomain" }),
    ),
    0,
  );
  assert.equal(
    found.get(key("ouroboros_proxy_bytes_relayed_total", { listener: "http", direction: "upstream" })),
    512,
  );
  assert.equal(
    found.get(key("ouroboros_proxy_connection_duration_seconds_bucket", { listener: "http", le: "0.01" })),
    0,
  );
  assert.equal(
    found.get(key("ouroboros_proxy_connection_duration_seconds_bucket", { listener: "http", le: "0.05" })),
    1,
  );
  assert.equal(found.get(key("ouroboros_proxy_connection_duration_seconds_count", { listener: "http" })), 1);
  assert.equal(found.get(key("ouroboros_proxy_backend_ready", {})), 1);
});
