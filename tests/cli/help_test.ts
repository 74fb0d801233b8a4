import assert from "node:assert/strict";
import { renderHelp, renderMarkdownTable, shownDefault } from "../../lib/cli/help.ts";
import { boolean, duration, text } from "../../lib/cli/kinds.ts";
import { envName, type OptionSpec, type OptionTable } from "../../lib/cli/options.ts";
import { CONTROLLER_OPTIONS } from "../../lib/controller/controller_options.ts";
import { DOCTOR_OPTIONS } from "../../lib/doctor/doctor_options.ts";
import { PROXY_OPTIONS } from "../../lib/proxy/proxy_options.ts";

const ROWS = Object.values(PROXY_OPTIONS.options) as (OptionSpec<unknown> & { readonly flag: string })[];

/** The block of help lines for one flag: its `--flag` line up to the next flag. */
function helpBlock(help: string, flag: string): string {
  const lines = help.split("\n");
  const start = lines.findIndex((line) => line === `  --${flag}` || line.startsWith(`  --${flag}=`));
  assert.ok(start >= 0, `--${flag} is not listed`);
  const end = lines.findIndex((line, i) => i > start && line.startsWith("  -"));
  return lines.slice(start, end < 0 ? undefined : end).join("\n");
}

/** Text with every run of whitespace (a wrapped line break included) as one space. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ");
}

/** Splits a Markdown table row into cells, honouring `\|` escapes. */
function cells(row: string): string[] {
  assert.ok(row.startsWith("| ") && row.endsWith(" |"), row);
  return row.slice(2, -2).split(/(?<!\\) \| /);
}

Deno.test("proxy --help lists every flag with its env var, default and accepted values", async (t) => {
  const help = renderHelp(PROXY_OPTIONS);
  assert.ok(help.startsWith("Usage: ouroboros proxy [flags]\n"));
  assert.ok(oneLine(help).includes(PROXY_OPTIONS.summary));
  assert.match(help, /flags win over environment variables, which win over defaults/);
  assert.match(help, /^ {2}-h, --help$/m);
  for (const spec of ROWS) {
    await t.step(spec.flag, () => {
      const block = helpBlock(help, spec.flag);
      assert.ok(block.startsWith(`  --${spec.flag}=${spec.kind.placeholder}\n`), block);
      // Each part is all there, whatever the wrapping.
      const flat = oneLine(block);
      assert.ok(flat.includes(`env ${envName("proxy", spec)}; default ${shownDefault(spec)}`), block);
      assert.ok(flat.includes(`accepts ${oneLine(spec.kind.accepted)}`), block);
      assert.ok(flat.includes(oneLine(spec.help)), block);
    });
  }
  assert.equal(help.match(/^ {2}--[a-z]/gm)?.length, ROWS.length, "one entry per row");
});

Deno.test("defaults are shown as people need them", () => {
  const opts = PROXY_OPTIONS.options;
  assert.equal(shownDefault(opts.listenHttp), ":8080");
  assert.equal(shownDefault(opts.targetServiceName), "(empty)");
  assert.equal(shownDefault(opts.targetHost), opts.targetHost.defaultText);
  assert.equal(shownDefault(opts.clusterDomain), opts.clusterDomain.defaultText);
});

const SMALL = {
  command: "demo",
  summary: "Demo.",
  options: {
    watch: { flag: "gateway-api", kind: boolean(), default: "false", help: "Watch routes | gateways." },
    secret: { flag: "token", env: null, kind: text(), default: "", help: "Flag only." },
    pattern: { flag: "pattern", kind: text(), default: "a|b", help: "Alternatives." },
    wait: { flag: "wait", kind: duration(), default: "5s", defaultText: "5s | never", help: "Wait." },
  },
} as const satisfies OptionTable<Record<string, OptionSpec<unknown>>>;

Deno.test("switches are listed without a value and flag-only rows say so", () => {
  const help = renderHelp(SMALL);
  assert.equal(helpBlock(help, "gateway-api").split("\n")[0], "  --gateway-api");
  assert.match(helpBlock(help, "token"), /no environment variable; default \(empty\)/);
  assert.match(
    helpBlock(help, "gateway-api"),
    /^ {8}env OUROBOROS_DEMO_GATEWAY_API; default false\n {8}accepts true or false$/m,
  );
});

Deno.test("the docs flag table has one row per option with four cells each", async (t) => {
  for (const table of [PROXY_OPTIONS, SMALL] as const) {
    await t.step(table.command, () => {
      const markdown = renderMarkdownTable(table as OptionTable<Record<string, OptionSpec<unknown>>>);
      const lines = markdown.trimEnd().split("\n");
      assert.equal(lines[0], "| Flag | Env var | Default | Notes |");
      assert.equal(lines[1], "|---|---|---|---|");
      const rows = lines.slice(2);
      const specs = Object.values(table.options) as OptionSpec<unknown>[];
      assert.equal(rows.length, specs.length);
      rows.forEach((row, i) => {
        const spec = specs[i];
        assert.ok(spec !== undefined);
        const [flag, env, , notes, ...extra] = cells(row);
        assert.deepEqual(extra, [], `a stray | splits the row: ${row}`);
        assert.equal(flag, `\`--${spec.flag}\``);
        const variable = envName(table.command, spec);
        assert.equal(env, variable === null ? "(none)" : `\`${variable}\``);
        assert.ok(notes?.includes(spec.kind.accepted.replaceAll("|", "\\|")), row);
      });
    });
  }
  const small = renderMarkdownTable(SMALL);
  assert.match(small, /\| `a\\\|b` \|/, "a | in a default is escaped");
  assert.match(small, /\| 5s \\\| never \|/, "a | in a default text is escaped");
  assert.match(small, /Watch routes \\\| gateways\./, "a | in help is escaped");
});

Deno.test("grouped help: every row in exactly one group; the doctor's own flags first, the controller's collapsed", () => {
  for (const table of [CONTROLLER_OPTIONS, DOCTOR_OPTIONS]) {
    const grouped = table.groups.flatMap((group) => [...group.options] as string[]);
    assert.deepEqual(
      [...grouped].sort(),
      Object.keys(table.options).sort(),
      `${table.command}: each row once`,
    );
  }
  const help = renderHelp(DOCTOR_OPTIONS);
  const lines = help.split("\n");
  assert.ok(lines.length < 120, `doctor --help is ${lines.length} lines`);
  const collapsed = lines.indexOf("The controller's flags, accepted to judge its set-up:");
  assert.ok(collapsed > lines.indexOf("  --allow-unchecked"), "the doctor's own flags come first");
  assert.ok(
    !lines.slice(collapsed).some((line) => line.startsWith("  --mode")),
    "controller rows are not described",
  );
  assert.match(oneLine(help.slice(help.indexOf("The controller's flags"))), /Flags: --mode, --kubeconfig, /);
  // Ungrouped tables keep one flat list.
  assert.ok(!renderHelp(PROXY_OPTIONS).includes("Help:"));
});
