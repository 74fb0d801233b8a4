import assert from "node:assert/strict";
import {
  ANSWER_PATHS,
  createDnsMetrics,
  DNS_TRANSPORTS,
  QUERY_OUTCOMES,
  UPSTREAM_ERROR_REASONS,
} from "../../lib/dns/dns_metrics.ts";

/** Every sample line's series, mapped to its value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const space = line.lastIndexOf(" ");
    out.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return out;
}

Deno.test("createDnsMetrics: every series a dashboard needs exists at zero before the first query", () => {
  const found = samples(createDnsMetrics({ rss: () => 1234, version: "v1" }).registry.render());
  const expected = [
    ...DNS_TRANSPORTS.flatMap((transport) =>
      QUERY_OUTCOMES.map((outcome) =>
        `ouroboros_dns_queries_total{transport="${transport}",outcome="${outcome}"}`
      )
    ),
    ...DNS_TRANSPORTS.map((transport) => `ouroboros_dns_truncated_responses_total{transport="${transport}"}`),
    ...["records", "par-proxy", "hairpin"].map((source) =>
      `ouroboros_dns_local_answers_total{source="${source}"}`
    ),
    ...UPSTREAM_ERROR_REASONS.map((reason) => `ouroboros_dns_upstream_errors_total{reason="${reason}"}`),
    ...ANSWER_PATHS.map((path) => `ouroboros_dns_query_duration_seconds_count{path="${path}"}`),
    "ouroboros_dns_tcp_connections_active",
    "ouroboros_dns_tcp_connections_rejected_total",
    'ouroboros_dns_cache_lookups_total{result="hit"}',
    'ouroboros_dns_cache_lookups_total{result="miss"}',
    "ouroboros_dns_cache_entries",
    "ouroboros_dns_cache_bytes",
  ];
  for (const series of expected) assert.equal(found.get(series), 0, `${series} should be rendered as 0`);
  assert.equal(found.get('ouroboros_build_info{version="v1",revision="unknown"}'), 1);
  assert.equal(found.get("process_resident_memory_bytes"), 1234);
});

Deno.test("createDnsMetrics: no label can carry a client or a name", () => {
  const text = createDnsMetrics({ rss: () => 0, version: "v1" }).registry.render();
  const labels = new Set([...text.matchAll(/[{,]([a-z_]+)="/g)].map((match) => match[1]));
  assert.deepEqual([...labels].sort(), [
    "le",
    "outcome",
    "path",
    "reason",
    "result",
    "revision",
    "source",
    "transport",
    "version",
  ]);
});
