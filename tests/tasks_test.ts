/**
 * deno.json's tasks for people working on ouroboros: one run task per subcommand with that
 * subcommand's own permission set, `fmt`/`lint`/`check`, and `bench` running every bench:* task.
 */

import assert from "node:assert/strict";
import { SUBCOMMANDS } from "../main.ts";
import { DENO_JSON, taskCommand } from "./support/deno_json.ts";

const ROOT = new URL("../", import.meta.url).pathname;

Deno.test("each subcommand has a run task with its own permission set, and nothing more", () => {
  for (const { name } of SUBCOMMANDS) {
    assert.ok(DENO_JSON.permissions[name] !== undefined, `deno.json has a ${name} permission set`);
    assert.equal(taskCommand(name), `deno run --quiet --no-prompt -P=${name} main.ts ${name}`);
  }
  for (const known of ["proxy", "controller"]) assert.ok(known in DENO_JSON.tasks, known);
});

Deno.test("deno task <subcommand> --help runs the subcommand under its set and prints its help", async (t) => {
  for (const { name } of SUBCOMMANDS) {
    await t.step(name, async () => {
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["task", "--quiet", name, "--help"],
        cwd: ROOT,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stdout = new TextDecoder().decode(output.stdout);
      assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
      assert.ok(stdout.startsWith(`Usage: ouroboros ${name} [flags]\n`), stdout);
      assert.equal(
        new TextDecoder().decode(output.stderr),
        "",
        "no Deno warning (the task runs with --quiet)",
      );
    });
  }
});

Deno.test("bench runs every bench:* task once, one after another, in deno.json's order", () => {
  const benches = Object.keys(DENO_JSON.tasks).filter((name) => name.startsWith("bench:"));
  assert.ok(benches.length > 0);
  const steps = taskCommand("bench").split(" && ");
  assert.deepEqual(
    steps,
    benches.map((name) => `deno task ${name}`),
    "a new bench:* task belongs in bench too",
  );
});

Deno.test("test:bench smoke-runs every bench:* task with --quick, in deno.json's order", () => {
  const benches = Object.keys(DENO_JSON.tasks).filter((name) => name.startsWith("bench:"));
  const steps = taskCommand("test:bench").split(" && ");
  assert.deepEqual(
    steps.map((step) => step.split(" ").slice(0, 3).join(" ")),
    benches.map((name) => `deno task ${name}`),
    "a new bench:* task belongs in test:bench too",
  );
  for (const step of steps) assert.match(step, / --quick( |$)/, step);
});

Deno.test("fmt and lint work on the whole tree; check runs the format check, lint, type check and examples' check", () => {
  assert.equal(taskCommand("fmt"), "deno fmt");
  assert.equal(taskCommand("lint"), "deno lint");
  assert.deepEqual(taskCommand("check").split(" && "), [
    "deno fmt --check",
    "deno lint",
    "deno check main.ts tests/",
    "deno check --doc-only main.ts lib/",
  ]);
});

/**
 * What a test file may not do when `deno task test` runs several files at once in one process:
 * change process-wide state (environment, working folder, umask, signal handlers) or listen on a
 * fixed port (two files would race for it). Child processes are free to do either.
 */
export function parallelHazards(source: string): string[] {
  const found: string[] = [];
  for (
    const call of ["Deno.env.set", "Deno.env.delete", "Deno.chdir", "Deno.umask", "Deno.addSignalListener"]
  ) {
    if (source.includes(`${call}(`)) found.push(call);
  }
  if (/\blisten(?:Datagram|Tls)?\(\{[^}]*\bport: [1-9]/.test(source)) {
    found.push("a listener on a fixed port");
  }
  return found;
}

Deno.test("test runs test files in parallel, and no test file touches process-wide state or a fixed port", async () => {
  assert.match(taskCommand("test"), /^DENO_JOBS=\d+ deno test --parallel /);
  assert.deepEqual(
    parallelHazards(
      ["Deno.env.set", '("A", "1"); Deno.listen({ hostname: "::1", port', ": 8080 });"].join(""),
    ),
    [
      "Deno.env.set",
      "a listener on a fixed port",
    ],
  );
  assert.deepEqual(parallelHazards("Deno.listen({ port: 0 }); Deno.env.get('A');"), []);
  const problems: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith("_test.ts") || (dir.includes("/support") && entry.name.endsWith(".ts"))) {
        for (const hazard of parallelHazards(await Deno.readTextFile(path))) {
          problems.push(`${path.slice(ROOT.length)}: ${hazard}`);
        }
      }
    }
  };
  await walk(ROOT + "tests");
  assert.deepEqual(problems, []);
});
