import assert from "node:assert/strict";
import config from "../deno.json" with { type: "json" };
import { HELP_WIDTH } from "../lib/cli/help.ts";
import { envName, type OptionSpec } from "../lib/cli/options.ts";
import { CONTROLLER_OPTIONS } from "../lib/controller/controller_options.ts";
import { DNS_OPTIONS } from "../lib/dns/dns_options.ts";
import { DOCTOR_OPTIONS } from "../lib/doctor/doctor_options.ts";
import { KUBERTURE_OPTIONS } from "../lib/kuberture/kuberture_options.ts";
import { PROXY_OPTIONS } from "../lib/proxy/proxy_options.ts";
import { SUBCOMMANDS, unknownCommand, USAGE } from "../main.ts";
import { runOuroboros } from "./support/ouroboros_process.ts";

Deno.test("no subcommand: usage on stderr, exit 2", async () => {
  const result = await runOuroboros([]);
  assert.equal(result.code, 2);
  assert.ok(result.stderr.includes(USAGE), result.stderr);
  assert.equal(result.stdout, "");
});

Deno.test("unknown subcommand: stderr names it and shows usage, exit 2", async () => {
  const result = await runOuroboros(["frobnicate"]);
  assert.equal(result.code, 2);
  assert.ok(result.stderr.startsWith('unknown subcommand "frobnicate"\n\n'), result.stderr);
  assert.ok(result.stderr.includes(USAGE), result.stderr);
  assert.equal(result.stdout, "");
});

Deno.test("a mistyped subcommand: stderr suggests the one meant, once, before the usage; exit 2", async () => {
  const result = await runOuroboros(["contrller", "--leader-elect"]);
  assert.equal(result.code, 2);
  assert.ok(result.stderr.startsWith('unknown subcommand "contrller"; did you mean controller?\n\n'));
  assert.equal(result.stderr.match(/did you mean/g)?.length, 1);
  assert.ok(result.stderr.includes(USAGE), result.stderr);
});

Deno.test("a mistyped flag: the problem suggests the flag meant and the --help pointer comes once; exit 2", async () => {
  const result = await runOuroboros(["proxy", "--dial-timout=1s", "--bogus", "--target-host=127.0.0.1"]);
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    [
      "ouroboros invalid proxy configuration:",
      "  unknown flag --dial-timout; did you mean --dial-timeout?",
      "  unknown flag --bogus",
      "Run 'ouroboros proxy --help' for the accepted flags.",
      "",
    ].join("\n"),
  );
});

Deno.test("unknownCommand() suggests a subcommand or a built-in only when the typo is close", async (t) => {
  const cases: readonly [string, string][] = [
    ["prxy", "; did you mean proxy?"],
    ["proxie", "; did you mean proxy?"],
    ["dsn", "; did you mean dns?"],
    ["kubeture", "; did you mean kuberture?"],
    ["Doctor", "; did you mean doctor?"],
    ["verison", "; did you mean version?"],
    ["--verison", "; did you mean --version?"],
    ["--hlep", "; did you mean --help?"],
    ["frobnicate", ""],
    ["-x", ""],
    ["--log-level=debug", ""],
  ];
  for (const [typed, suggestion] of cases) {
    await t.step(typed, () => {
      assert.equal(unknownCommand(typed), `unknown subcommand ${JSON.stringify(typed)}${suggestion}`);
    });
  }
});

Deno.test("each row of SUBCOMMANDS loads the subcommand it names, with the usage line it lists", async () => {
  for (const row of SUBCOMMANDS) {
    const loaded = await row.load();
    assert.equal(loaded.name, row.name);
    assert.equal(loaded.usage, row.usage, `${row.name}'s usage line in main.ts differs from its module's`);
  }
});

Deno.test(`the usage text fits ${HELP_WIDTH} columns and names every subcommand`, () => {
  for (const line of USAGE.split("\n")) assert.ok(line.length <= HELP_WIDTH, `${line.length}: ${line}`);
  for (const { name } of SUBCOMMANDS) {
    assert.match(USAGE, new RegExp(`^  ouroboros ${name} +\\[flags\\]`, "m"));
  }
});

/** Each subcommand's option table, by name. */
const TABLES: Readonly<Record<string, { readonly options: Readonly<Record<string, OptionSpec<unknown>>> }>> =
  {
    controller: CONTROLLER_OPTIONS,
    dns: DNS_OPTIONS,
    doctor: DOCTOR_OPTIONS,
    kuberture: KUBERTURE_OPTIONS,
    proxy: PROXY_OPTIONS,
  };

Deno.test(`every subcommand's --help fits ${HELP_WIDTH} columns and still lists every flag and variable`, async (t) => {
  assert.deepEqual(Object.keys(TABLES).sort(), SUBCOMMANDS.map((command) => command.name).sort());
  for (const { name } of SUBCOMMANDS) {
    await t.step(name, async () => {
      const result = await runOuroboros([name, "--help"]);
      assert.equal(result.code, 0, result.stderr);
      const lines = result.stdout.split("\n");
      for (const line of lines) assert.ok(line.length <= HELP_WIDTH, `${line.length}: ${line}`);
      // Every flag is described once (a row starting "  --flag") or, in a collapsed group, named.
      const described = lines.flatMap((line) => /^ {2}--([a-z0-9-]+)/.exec(line)?.[1] ?? []);
      const named = new Set(
        [...result.stdout.matchAll(/--([a-z0-9-]+)(?![a-z0-9-])/g)].map(([, flag]) => flag),
      );
      const variables = lines.flatMap((line) => /^ {2}([A-Z][A-Z0-9_]*)=/.exec(line)?.[1] ?? []);
      const specs = Object.values(TABLES[name]!.options);
      const flags = specs.flatMap((spec) => spec.flag ?? []);
      assert.deepEqual(
        described.filter((flag, index) => described.indexOf(flag) !== index),
        [],
        "described twice",
      );
      assert.deepEqual(described.filter((flag) => !flags.includes(flag)), [], "described but not a flag");
      assert.deepEqual(flags.filter((flag) => !named.has(flag)), [], "flags --help does not name");
      assert.deepEqual(
        variables,
        specs.flatMap((spec) => spec.flag === null ? envName(name, spec) ?? [] : []),
      );
    });
  }
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
      block.replace(/\s+/g, " ").includes(`default ${shown}`),
      `--${spec.flag} help lacks its default ${shown}:\n${block}`,
    );
  }
});

Deno.test("'controller --help' exits 0 and prints its flags", async () => {
  const result = await runOuroboros(["controller", "--help"]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^Usage: ouroboros controller/);
});
