import assert from "node:assert/strict";
import { parseKubertureConfig } from "../../../lib/kuberture/config/kuberture_config.ts";
import { KUBERTURE_CONFIG_KEYS } from "../../../lib/kuberture/config/kuberture_config_keys.ts";
import { renderKubertureConfigReference } from "../../../lib/kuberture/config/render_kuberture_config_reference.ts";

const MINIMAL = "outputs:\n  - name: api\n    hostname: [api.example.com]\n    serviceName: kuberture-api\n";

/** The keys an unknown-key message says a mapping accepts. */
function acceptedKeys(text: string): string[] {
  const parsed = parseKubertureConfig(text, { path: "c.yaml" });
  assert.ok(!parsed.ok);
  const match = / accepts ([\w, ]+)$/.exec(parsed.problems.at(-1)!);
  assert.ok(match !== null, parsed.problems.at(-1));
  return match[1]!.split(", ");
}

Deno.test("the reference lists exactly the keys the parser accepts", () => {
  const top = acceptedKeys(`${MINIMAL}zz: 1\n`);
  const source = acceptedKeys(`source:\n  zz: 1\n${MINIMAL}`);
  const output = acceptedKeys(`${MINIMAL}    zz: 1\n`);
  const parsed = [
    ...top.filter((key) => key !== "source"),
    ...source.map((key) => `source.${key}`),
    ...output.map((key) => `outputs[].${key}`),
  ];
  assert.deepEqual(KUBERTURE_CONFIG_KEYS.map((doc) => doc.key).sort(), parsed.sort());
});

Deno.test("the reference's defaults are the values the parser fills in", () => {
  const parsed = parseKubertureConfig(MINIMAL, { path: "c.yaml" });
  assert.ok(parsed.ok);
  const { config } = parsed;
  const output = config.outputs[0]!;
  const filled: Record<string, unknown> = {
    "source.namespace": config.source.namespace,
    "source.serviceName": config.source.serviceName,
    metricsBindAddress: config.metricsBindAddress,
    healthProbeBindAddress: config.healthProbeBindAddress,
    "outputs[].annotationPrefix": output.annotationPrefix,
    "outputs[].recordTTL": output.recordTTL,
    "outputs[].addressSource": output.addressSource,
    "outputs[].addressType": output.addressType,
    "outputs[].output": output.kind,
  };
  const documented = KUBERTURE_CONFIG_KEYS.filter((doc) => doc.default.startsWith("`"));
  assert.deepEqual(documented.map((doc) => doc.key).sort(), Object.keys(filled).sort());
  for (const doc of documented) assert.equal(doc.default, `\`${filled[doc.key]}\``, doc.key);
  // The defaults in words: left out, these stay undefined for the caller to decide.
  assert.equal(config.logLevel, undefined);
});

Deno.test("the rendered reference has one row per key, with the cells escaped for Markdown", () => {
  const lines = renderKubertureConfigReference().trimEnd().split("\n");
  assert.equal(lines[0], "| Key | Default | Accepts | Notes |");
  assert.equal(lines[1], "|---|---|---|---|");
  assert.deepEqual(
    lines.slice(2).map((line) => /^\| `([^`]+)` \|/.exec(line)?.[1]),
    KUBERTURE_CONFIG_KEYS.map((doc) => doc.key),
  );
  const hostname = lines.find((line) => line.startsWith("| `outputs[].hostname`"))!;
  assert.match(hostname, /optionally \\\*\. first/);
  const namespace = lines.find((line) => line.startsWith("| `source.namespace`"))!;
  assert.match(namespace, /A change needs a restart \(the hot reload logs it\)\. \|$/);
  const prefix = lines.find((line) => line.startsWith("| `outputs[].annotationPrefix`"))!;
  assert.match(prefix, /--annotation-prefix/);
  assert.doesNotMatch(prefix, /needs a restart/);
});
