/**
 * The chart's values reference (chart/README.md "Values") is generated from the `# --` comments of
 * chart/values.yaml, covers every value, and is in step with it.
 */

import assert from "node:assert/strict";
import { parse } from "yaml";
import { chartGeneratedBlocks, normaliseTable, readBlock } from "../support/readme_tables.ts";
import { valuesReference } from "../support/values_reference.ts";

const VALUES = await Deno.readTextFile(new URL("../../chart/values.yaml", import.meta.url));
const CHART_README = await Deno.readTextFile(new URL("../../chart/README.md", import.meta.url));

Deno.test("values reference: rows from `# --` comments, first keys and nested maps included", () => {
  const text = [
    "# A file header, not a value's description.",
    "",
    "image:",
    "  # -- Where the image is.",
    "  repository: example/ouroboros",
    "  # Not a description.",
    "  # -- The tag; empty: the chart's",
    "  # appVersion.",
    '  tag: ""',
    "# -- Proxy settings.",
    "proxy:",
    "  # -- Replicas.",
    "  replicaCount: 2",
    "  # -- Extra arguments.",
    "  extraArgs: []",
    "# -- Resources, as a whole.",
    "resources:",
    "  limits:",
    "    memory: 64Mi",
    "flag: true",
  ].join("\n");
  assert.deepEqual(valuesReference(text), [
    {
      key: "image.repository",
      type: "string",
      defaultText: '"example/ouroboros"',
      description: "Where the image is.",
    },
    {
      key: "image.tag",
      type: "string",
      defaultText: '""',
      description: "The tag; empty: the chart's appVersion.",
    },
    { key: "proxy", type: "object", defaultText: "{…}", description: "Proxy settings." },
    { key: "proxy.replicaCount", type: "int", defaultText: "2", description: "Replicas." },
    { key: "proxy.extraArgs", type: "list", defaultText: "[]", description: "Extra arguments." },
    {
      key: "resources",
      type: "object",
      defaultText: '{"limits":{"memory":"64Mi"}}',
      description: "Resources, as a whole.",
    },
  ]);
});

Deno.test("values reference: every value of chart/values.yaml is documented with a `# --` comment", () => {
  const rows = valuesReference(VALUES);
  const rowOf = new Map(rows.map((row) => [row.key, row]));
  const undocumented: string[] = [];
  const walk = (value: unknown, path: string): void => {
    const isMap = value !== null && typeof value === "object" && !Array.isArray(value) &&
      Object.keys(value).length > 0;
    const row = rowOf.get(path);
    if (isMap && (row === undefined || row.defaultText === "{…}")) {
      for (const [key, child] of Object.entries(value)) walk(child, path === "" ? key : `${path}.${key}`);
    } else if (row === undefined) undocumented.push(path);
  };
  walk(parse(VALUES), "");
  assert.deepEqual(undocumented, [], "add a `# --` comment above each of these in chart/values.yaml");
  assert.ok(rows.length > 100);
});

Deno.test("chart README's values table equals chart/values.yaml (run `deno task docs` after changing a value)", () => {
  for (const [name, body] of Object.entries(chartGeneratedBlocks(VALUES))) {
    const current = readBlock(CHART_README, name);
    assert.ok(current !== undefined, `chart/README.md lacks the generated block "${name}"`);
    assert.equal(normaliseTable(current), normaliseTable(body), `chart/README.md block "${name}" is stale`);
  }
});
