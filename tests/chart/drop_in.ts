/**
 * Writes the kuberture drop-in chart's values.yaml and values.schema.json (chart/drop-in/kuberture)
 * from the ouroboros chart's `kuberture:` values and schema, so the two charts cannot drift: the
 * drop-in takes kuberture's chart's value paths at its top level, which are exactly the ouroboros
 * chart's `kuberture:` keys. `enabled` is left out (the drop-in always runs kuberture), and an
 * `ouroboros:` block turns off everything else of the ouroboros chart it renders through.
 *
 * `deno task chart:drop-in` writes the files; `tests/chart/drop_in_test.ts` checks they are in step.
 * `dropInFiles` is pure; running the module writes.
 *
 * @module
 */

import { CHART_DIR } from "./support.ts";

/** The drop-in chart's folder. */
export const DROP_IN_DIR = `${CHART_DIR}/drop-in/kuberture`;

const HEADER =
  `# kuberture drop-in: \`ouroboros kuberture\` alone, with kuberture's chart's value paths (the keys the cozystack
# kuberture package nests under \`kuberture:\`) and the ouroboros image. Generated from the ouroboros chart's
# \`kuberture:\` values by \`deno task chart:drop-in\`; edit those, not this file. Keys marked "(not in kuberture)" are
# ouroboros's own; changed defaults say why.
`;

const OFF = `
# -- The ouroboros chart this one renders kuberture through: everything of its own is off. Leave as is.
ouroboros:
  controller:
    enabled: false
  proxy:
    enabled: false
  kuberture:
    enabled: false
`;

/** The drop-in's two generated files, from the ouroboros chart's values.yaml text and schema. */
export function dropInFiles(valuesYaml: string, schemaJson: string): { values: string; schema: string } {
  const lines = valuesYaml.split("\n");
  const start = lines.indexOf("kuberture:");
  if (start < 0) throw new Error("chart/values.yaml has no top-level kuberture: block");
  let end = start + 1;
  while (end < lines.length && (lines[end] === "" || lines[end]!.startsWith(" "))) end++;
  // Trailing blank lines and the next key's comments belong to the next key.
  while (end > start + 1 && !lines[end - 1]!.startsWith("  ")) end--;
  const block = lines.slice(start + 1, end).map((line) => line.slice(2));
  const enabled = block.indexOf("enabled: null");
  if (enabled < 0) throw new Error("the kuberture: block has no top-level `enabled: null`");
  let from = enabled;
  while (from > 0 && block[from - 1]!.startsWith("#")) from--;
  block.splice(from, enabled - from + 1);
  const values = `${HEADER}\n${block.join("\n")}\n${OFF}`;

  const main = JSON.parse(schemaJson) as {
    $schema: string;
    properties: { kuberture: { properties: Record<string, unknown>; required: string[] } };
  };
  const { enabled: _enabled, ...properties } = main.properties.kuberture.properties;
  const schema = {
    $schema: main.$schema,
    title: "kuberture drop-in (ouroboros kuberture) values",
    type: "object",
    additionalProperties: false,
    properties: {
      global: { type: "object", description: "Helm's global values (unused)." },
      ...properties,
      ouroboros: {
        type: "object",
        description: "The ouroboros chart this one renders through; its parts stay off.",
      },
    },
    required: main.properties.kuberture.required.filter((key) => key !== "enabled"),
  };
  return { values, schema: `${JSON.stringify(schema, null, 2)}\n` };
}

if (import.meta.main) {
  const files = dropInFiles(
    await Deno.readTextFile(`${CHART_DIR}/values.yaml`),
    await Deno.readTextFile(`${CHART_DIR}/values.schema.json`),
  );
  await Deno.writeTextFile(`${DROP_IN_DIR}/values.yaml`, files.values);
  await Deno.writeTextFile(`${DROP_IN_DIR}/values.schema.json`, files.schema);
  // deno-lint-ignore no-console
  console.log(`wrote ${DROP_IN_DIR}/values.yaml and values.schema.json`);
}
