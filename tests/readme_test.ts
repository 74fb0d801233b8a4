/**
 * The README and the pages of `docs/` keep what tests can hold them to: each generated block equals
 * what `deno task docs` renders, in the file it lives in; the README's quick start is the two
 * commands that work on a fresh machine; the floors table of docs/architecture.md is the layer
 * order; the kuberture config example of docs/kuberture.md is a valid config.
 */

import assert from "node:assert/strict";
import { parseKubertureConfig } from "../lib/kuberture/config/kuberture_config.ts";
import { SUBCOMMANDS } from "../main.ts";
import { LAYERS } from "./support/layers.ts";
import { generatedBlocks, normaliseTable, readBlock } from "./support/readme_tables.ts";

const ROOT = new URL("../", import.meta.url);
const read = (file: string) => Deno.readTextFileSync(new URL(file, ROOT));

Deno.test("docs flag tables equal the option tables (run `deno task docs` after changing a flag)", () => {
  for (const [name, { file, body }] of Object.entries(generatedBlocks())) {
    const current = readBlock(read(file), name);
    assert.ok(current !== undefined, `${file} lacks the generated block "${name}"`);
    assert.equal(normaliseTable(current), normaliseTable(body), `${file} block "${name}" is stale`);
  }
});

Deno.test("README quick start is the two commands that work on a fresh machine with Node", () => {
  const readme = read("README.md");
  assert.match(readme, /npx --yes deno@2\.9\.6 task demo/);
  assert.match(readme, /npx --yes deno@2\.9\.6 task test/);
});

Deno.test("docs/architecture.md's Layout lists the floors of lib/ in the order the layering test enforces", () => {
  const page = read("docs/architecture.md");
  const start = page.indexOf("## Layout");
  assert.ok(start >= 0, "docs/architecture.md has a Layout section");
  const section = page.slice(start, page.indexOf("\n## ", start + 1));
  const floors = [...section.matchAll(/^\| (\d+) +\| ([^|]+)\|/gm)].map(([, floor, folders]) => ({
    floor: Number(floor),
    folders: [...folders!.matchAll(/`([a-z_]+)\/`/g)].map(([, folder]) => folder),
  }));
  assert.deepEqual(floors, LAYERS.map((folders, index) => ({ floor: index + 1, folders: [...folders] })));
});

Deno.test("docs/kuberture.md: the kuberture config example is a valid config with two outputs", () => {
  const block = /```yaml\n(source:[\s\S]*?)```/.exec(read("docs/kuberture.md"))?.[1];
  assert.ok(block !== undefined, "docs/kuberture.md has a YAML example starting with source:");
  const parsed = parseKubertureConfig(block, { path: "docs/kuberture.md" });
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.problems.join("\n"));
  assert.deepEqual(parsed.config.outputs.map((output) => output.annotationPrefix), [
    "external-dns.alpha.kubernetes.io/",
    "internal-dns.example.com/",
  ]);
});

/** Every file a diagram names (`proxy/relay.ts`, or a bare `relay.ts` of the subcommand's own folder). */
function diagramFiles(diagram: string): string[] {
  return [...diagram.replaceAll("<br/>", " ").matchAll(/[a-z_]+(?:\/[a-z_]+)*(?:\.ts|\/)/g)].map(([path]) =>
    path
  );
}

Deno.test("docs/architecture.md draws each subcommand's data path once, naming only files that exist", async () => {
  const text = read("docs/architecture.md");
  const missing: string[] = [];
  for (const { name } of SUBCOMMANDS) {
    const start = text.indexOf(`### \`ouroboros ${name}\``);
    assert.ok(start >= 0, `docs/architecture.md has a "### \`ouroboros ${name}\`" section`);
    const section = text.slice(start, text.indexOf("\n#", start + 1));
    const diagrams = [...section.matchAll(/```mermaid\n([\s\S]*?)```/g)].map(([, body]) => body!);
    assert.equal(diagrams.length, 1, `one Mermaid diagram for ${name}`);
    assert.match(diagrams[0]!, /^flowchart /);
    for (const path of diagramFiles(diagrams[0]!)) {
      const found = path.includes("/")
        ? exists(`lib/${path}`) || exists(`lib/${name}/${path}`)
        : await foundUnder(`lib/${name}`, path);
      if (!found) missing.push(`${name}: ${path}`);
    }
  }
  assert.deepEqual(missing, []);
});

function exists(path: string): boolean {
  try {
    Deno.statSync(new URL(path, ROOT));
    return true;
  } catch {
    return false;
  }
}

async function foundUnder(folder: string, file: string): Promise<boolean> {
  for await (const entry of Deno.readDir(new URL(folder, ROOT))) {
    if (entry.isFile && entry.name === file) return true;
    if (entry.isDirectory && await foundUnder(`${folder}/${entry.name}`, file)) return true;
  }
  return false;
}
