/**
 * The `dns:` values: each key documented as new in values.yaml, typed and described in
 * values.schema.json with every object closed, bad values refused naming the key in Helm 4 and
 * Helm 3 (wrong types, durations that are not whole seconds where the binary needs them, names
 * and addresses that are not), legitimate spellings accepted, and `helm lint --strict` clean with
 * the section on.
 */

import assert from "node:assert/strict";
import { assertSchemaRefuses, CHART_DIR, chartHelms, renderOk, type RenderOptions } from "./support.ts";
import { runHelm } from "../support/helm.ts";
import { DNS_ALONE, DNS_EVERYTHING } from "./dns_support.ts";

const { helms, test } = await chartHelms("chart dns schema tests");

const VALUES_TEXT = await Deno.readTextFile(`${CHART_DIR}/values.yaml`);
const SCHEMA = JSON.parse(await Deno.readTextFile(`${CHART_DIR}/values.schema.json`)) as {
  properties: Record<string, SchemaNode>;
};

interface SchemaNode {
  readonly type?: string | string[];
  readonly description?: string;
  readonly additionalProperties?: unknown;
  readonly properties?: Record<string, SchemaNode>;
  readonly required?: string[];
}

Deno.test("every dns key of values.yaml is documented '# -- (new)' (groups through their keys)", () => {
  const lines = VALUES_TEXT.split("\n");
  const start = lines.indexOf("dns:");
  assert.ok(start > 0, "values.yaml has a top-level dns: key");
  const comment = (at: number): string => {
    const block: string[] = [];
    for (let i = at - 1; i >= 0 && /^\s*#/.test(lines[i]!); i--) block.unshift(lines[i]!.trim());
    return block.join(" ");
  };
  assert.match(comment(start), /^# -- \(new\) `ouroboros dns`/);
  let keys = 0;
  for (let i = start + 1; i < lines.length && !/^\S/.test(lines[i]!); i++) {
    const key = /^( {2}| {4})([A-Za-z]\w*):/.exec(lines[i]!);
    if (key === null) continue;
    // A key without a comment of its own that only groups deeper keys (service, requests) is fine.
    const nextIndent = (lines[i + 1] ?? "").search(/\S/);
    const isGroup = comment(i) === "" && /:\s*$/.test(lines[i]!) && nextIndent > key[1]!.length;
    if (isGroup) continue;
    keys++;
    assert.match(comment(i), /^# -- \(new\) /, `dns…${key[2]} (line ${i + 1})`);
  }
  assert.ok(keys > 30, `only ${keys} keys found`);
});

Deno.test("the dns schema: every object closed, every key typed and described, every key required", () => {
  const dns = SCHEMA.properties.dns;
  assert.ok(dns !== undefined);
  const walk = (node: SchemaNode, path: string): void => {
    assert.ok(node.type !== undefined, `${path} has no type`);
    assert.ok((node.description ?? "").length > 0, `${path} has no description`);
    if (node.properties === undefined) return;
    assert.equal(node.additionalProperties, false, `${path} is not closed`);
    assert.deepEqual(
      [...(node.required ?? [])].sort(),
      Object.keys(node.properties).sort(),
      `${path} required`,
    );
    for (const [key, child] of Object.entries(node.properties)) walk(child, `${path}.${key}`);
  };
  walk(dns, "dns");
  assert.equal(dns.properties?.clientSelector?.type, "string");
});

/** Bad dns values and the key the error must name. */
const BAD: (RenderOptions & { key: string })[] = [
  { set: ["dns.enabled=yes"], key: "dns.enabled" },
  { setString: ["dns.installCRD=true"], key: "dns.installCRD" },
  { set: ["dns.replicaCount=-1"], key: "dns.replicaCount" },
  { set: ["dns.ttl=30"], key: "dns.ttl" },
  { set: ["dns.ttl=1500ms"], key: "dns.ttl" },
  { set: ["dns.maxUdpSize=511"], key: "dns.maxUdpSize" },
  { set: ["dns.maxUdpSize=65535"], key: "dns.maxUdpSize" },
  { set: ["dns.upstreamTimeout=soon"], key: "dns.upstreamTimeout" },
  { set: ["dns.tcpIdleTimeout=10"], key: "dns.tcpIdleTimeout" },
  { set: ["dns.upstream=kube-dns.kube-system"], key: "dns.upstream" },
  { values: { dns: { clientSelector: { app: "cert-manager" } } }, key: "dns.clientSelector" },
  { set: ["dns.hairpin=sometimes"], key: "dns.hairpin" },
  { set: ["dns.parNamespace=Par_System"], key: "dns.parNamespace" },
  { set: ["dns.service.clusterIP=10.96.0"], key: "dns.service.clusterIP" },
  { set: ["dns.service.clusterIP=None"], key: "dns.service.clusterIP" },
  { set: ["dns.serviceAccount.name=DNS_Reader"], key: "dns.serviceAccount.name" },
  { set: ["dns.logLevel=verbose"], key: "dns.logLevel" },
  { set: ["dns.logFormat=xml"], key: "dns.logFormat" },
  { values: { dns: { networkPolicy: { upstreamPorts: [] } } }, key: "dns.networkPolicy.upstreamPorts" },
  { set: ["dns.networkPolicy.apiServerPorts[0]=70000"], key: "dns.networkPolicy.apiServerPorts.0" },
  { set: ["dns.networkPolicy.from=everyone"], key: "dns.networkPolicy.from" },
  { set: ["dns.listenDns=:53"], key: "listenDns" },
  { set: ["dns.service.port=53"], key: "port" },
];

test("the schema refuses each bad dns value, naming the key, in Helm 4 and Helm 3", async () => {
  for (const helm of helms()) await assertSchemaRefuses(helm, BAD);
});

test("the schema accepts the legitimate spellings of each dns value", async () => {
  const good: RenderOptions[] = [
    DNS_EVERYTHING,
    DNS_ALONE,
    {
      set: [
        "dns.enabled=true",
        "dns.ttl=1h2m3s",
        "dns.maxUdpSize=512",
        "dns.upstreamTimeout=0.5s",
        "dns.service.clusterIP=fd00:10:96::53",
        "dns.logLevel=error",
        "dns.logFormat=json",
        "dns.parNamespace=par-system",
      ],
      values: {
        dns: {
          upstream: "10.96.0.10:53,fd00::a,[fd00::b]:5353",
          clientSelector: "!canary",
          networkPolicy: { upstreamTo: [], upstreamPorts: [53, 1053] },
        },
      },
    },
  ];
  for (const helm of helms()) {
    for (const options of good) await renderOk(helm, options);
  }
});

test("helm lint --strict passes with the dns section on, and fails on a bad dns value", async () => {
  const cases: [readonly string[], boolean][] = [
    [["dns.enabled=true"], true],
    [DNS_EVERYTHING.set ?? [], true],
    [DNS_ALONE.set ?? [], true],
    [["dns.enabled=true", "dns.ttl=soon"], false],
  ];
  for (const helm of helms()) {
    for (const [set, passes] of cases) {
      const run = await runHelm(helm, ["lint", "--strict", CHART_DIR, ...set.flatMap((s) => ["--set", s])]);
      const output = `${helm.label}, ${set.join(" ")}:\n${run.stdout}${run.stderr}`;
      assert.equal(run.code === 0, passes, output);
      if (passes) assert.doesNotMatch(run.stdout + run.stderr, /\[(WARNING|ERROR)\]/, output);
      else assert.match(run.stdout + run.stderr, /1 chart\(s\) failed/, output);
    }
  }
});
