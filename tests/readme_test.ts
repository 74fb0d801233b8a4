import assert from "node:assert/strict";
import { parseKubertureConfig } from "../lib/kuberture/config/kuberture_config.ts";
import { LAYERS } from "./support/layers.ts";
import { generatedBlocks, normaliseTable, readBlock } from "./support/readme_tables.ts";

const README = await Deno.readTextFile(new URL("../README.md", import.meta.url));

Deno.test("README flag tables equal the option tables (run `deno task docs` after changing a flag)", () => {
  for (const [name, body] of Object.entries(generatedBlocks())) {
    const current = readBlock(README, name);
    assert.ok(current !== undefined, `README lacks the generated block "${name}"`);
    assert.equal(normaliseTable(current), normaliseTable(body), `README block "${name}" is stale`);
  }
});

Deno.test("README quick start is the two commands that work on a fresh machine with Node", () => {
  assert.match(README, /npx --yes deno@2\.9\.6 task demo/);
  assert.match(README, /npx --yes deno@2\.9\.6 task test/);
});

Deno.test("README Layout lists the floors of lib/ in the order the layering test enforces", () => {
  const section = README.slice(
    README.indexOf("## Layout"),
    README.indexOf("\n## ", README.indexOf("## Layout") + 1),
  );
  const floors = [...section.matchAll(/^\| (\d+) +\| ([^|]+)\|/gm)].map(([, floor, folders]) => ({
    floor: Number(floor),
    folders: [...folders!.matchAll(/`([a-z_]+)\/`/g)].map(([, folder]) => folder),
  }));
  assert.deepEqual(floors, LAYERS.map((folders, index) => ({ floor: index + 1, folders: [...folders] })));
});

Deno.test("README: the kuberture config example is a valid config with two outputs", () => {
  const block = /```yaml\n(source:[\s\S]*?)```/.exec(README)?.[1];
  assert.ok(block !== undefined, "the README's kuberture section has a YAML example starting with source:");
  const parsed = parseKubertureConfig(block, { path: "README.md" });
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.problems.join("\n"));
  assert.deepEqual(parsed.config.outputs.map((output) => output.annotationPrefix), [
    "external-dns.alpha.kubernetes.io/",
    "internal-dns.example.com/",
  ]);
});
