import assert from "node:assert/strict";
import config from "../../deno.json" with { type: "json" };
import { envName, type OptionSpec } from "../../lib/cli/options.ts";
import { PROXY_OPTIONS } from "../../lib/commands/proxy_options.ts";
import { USAGE } from "../../main.ts";
import { runOuroboros } from "../support/ouroboros_process.ts";

Deno.test("no subcommand: usage on stderr, exit 2", async () => {
  const result = await runOuroboros([]);
  assert.equal(result.code, 2);
  assert.ok(result.stderr.includes(USAGE), result.stderr);
  assert.equal(result.stdout, "");
});

Deno.test("unknown subcommand: stderr names it and shows usage, exit 2", async () => {
  const result = await runOuroboros(["frobnicate"]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /frobnicate/);
  assert.ok(result.stderr.includes(USAGE), result.stderr);
  assert.equal(result.stdout, "");
});

for (const spelling of ["version", "-v", "--version"]) {
  Deno.test(`'${spelling}' prints "ouroboros <version> (<revision>)" with deno.json's version, exit 0`, async () => {
    const result = await runOuroboros([spelling]);
    assert.equal(result.code, 0, result.stderr);
    const match = /^ouroboros (\S+) \((\S+)\)\n$/.exec(result.stdout);
    assert.ok(match, `unexpected version output: ${JSON.stringify(result.stdout)}`);
    assert.equal(match[1], config.version);
  });
}

for (const spelling of ["help", "-h", "--help"]) {
  Deno.test(`'${spelling}' prints the usage on stdout, exit 0`, async () => {
    const result = await runOuroboros([spelling]);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(result.stdout.includes(USAGE), result.stdout);
  });
}

/** Splits `--help` output into one block per `  --flag` entry, keyed by flag name. */
function helpBlocks(help: string): Map<string, string> {
  const blocks = new Map<string, string>();
  let current: { flag: string; lines: string[] } | undefined;
  for (const line of help.split("\n")) {
    const start = /^ {2}(?:-h, )?--([a-z0-9-]+)/.exec(line);
    if (start) {
      if (current) blocks.set(current.flag, current.lines.join("\n"));
      current = { flag: start[1] ?? "", lines: [line] };
    } else if (current && line.startsWith("    ")) {
      current.lines.push(line);
    }
  }
  if (current) blocks.set(current.flag, current.lines.join("\n"));
  return blocks;
}

/** Every row of the proxy's option table, widened so optional fields can be read. */
const PROXY_SPECS: readonly (OptionSpec<unknown> & { readonly flag: string })[] = Object.values(
  PROXY_OPTIONS.options,
);

Deno.test("'proxy --help' lists every proxy flag with its env var and default, exit 0", async () => {
  const result = await runOuroboros(["proxy", "--help"]);
  assert.equal(result.code, 0, result.stderr);
  const blocks = helpBlocks(result.stdout);
  const flags = PROXY_SPECS.map((spec) => spec.flag);
  assert.deepEqual([...blocks.keys()].sort(), [...flags, "help"].sort());
  for (const spec of PROXY_SPECS) {
    const block = blocks.get(spec.flag) ?? "";
    const variable = envName(PROXY_OPTIONS.command, spec);
    assert.ok(
      variable !== null && block.includes(variable),
      `--${spec.flag} help lacks its env var:\n${block}`,
    );
    const shown = spec.defaultText ?? (spec.default === "" ? "(empty)" : spec.default);
    assert.ok(
      block.includes(`default ${shown}`),
      `--${spec.flag} help lacks its default ${shown}:\n${block}`,
    );
  }
});

Deno.test("'controller --help' exits 0 and prints its flags", async () => {
  const result = await runOuroboros(["controller", "--help"]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^Usage: ouroboros controller/);
});
