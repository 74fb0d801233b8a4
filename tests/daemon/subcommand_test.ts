import assert from "node:assert/strict";
import { ConfigError, type OptionValues } from "../../lib/cli/options.ts";
import { listenAddress } from "../../lib/cli/kinds.ts";
import { LOGGING_OPTIONS } from "../../lib/daemon/logging_options.ts";
import type { HealthRoutes } from "../../lib/daemon/health_handler.ts";
import {
  defineSubcommand,
  type RunContext,
  type Service,
  type Subcommand,
} from "../../lib/daemon/subcommand.ts";
import { ROOT } from "../support/ouroboros_process.ts";
import type { ProbeLine } from "./subcommand_probe.ts";

const TABLE = {
  command: "unit",
  summary: "A subcommand for the tests.",
  options: {
    listenHealth: {
      flag: "listen-health",
      kind: listenAddress({ allowEmpty: true }),
      default: "127.0.0.1:0",
      help: "Health address.",
    },
    ...LOGGING_OPTIONS,
  },
} as const;

/** Routes that always answer ready. */
const READY: HealthRoutes = { readiness: () => ({ ready: true }), metrics: () => "" };

/** A subcommand of {@linkcode TABLE} whose `start` returns `service(values)`. */
function unit(service: (values: OptionValues<typeof TABLE.options>) => Service): Subcommand {
  return defineSubcommand({
    options: TABLE,
    usage: "unit",
    settings: ({ values }) => ({ values }),
    start: ({ values }) => service(values),
  });
}

Deno.test("defineSubcommand() names the subcommand after its table and carries its usage line", () => {
  const subcommand = defineSubcommand({
    options: TABLE,
    usage: "do the unit thing",
    settings: ({ values }) => ({ values }),
    start: () => ({ run: () => Promise.resolve(0) }),
  });
  assert.equal(subcommand.name, "unit");
  assert.equal(subcommand.usage, "do the unit thing");
});

Deno.test("defineSubcommand(): start, then the health listener with the service's routes, then run; after run the listener stops and the service is closed", async () => {
  const steps: string[] = [];
  let seen: RunContext | undefined;
  const subcommand = defineSubcommand({
    options: TABLE,
    usage: "unit",
    settings: ({ values }) => {
      steps.push("settings");
      return { values };
    },
    start: ({ values }) => {
      steps.push("start");
      return {
        health: {
          address: values.listenHealth,
          routes: {
            readiness: () => ({ ready: false, text: "warming up" }),
            metrics: () => "unit_metric 1\n",
          },
        },
        async run(context) {
          steps.push("run");
          seen = context;
          assert.ok(context.healthAddress);
          const readyz = await fetch(`http://${context.healthAddress}/readyz`);
          assert.deepEqual([readyz.status, await readyz.text()], [503, "warming up\n"]);
          const metrics = await fetch(`http://${context.healthAddress}/metrics`);
          assert.equal(await metrics.text(), "unit_metric 1\n");
          assert.equal(context.signals.shutdown.aborted, false);
          assert.equal(context.signals.received(), undefined);
          return 7;
        },
        close: () => steps.push("close"),
      };
    },
  });
  assert.equal(await subcommand.run(["--log-format=text"]), 7);
  assert.deepEqual(steps, ["settings", "start", "run", "close"]);
  const address = seen?.healthAddress;
  assert.ok(address);
  await assert.rejects(fetch(`http://${address}/healthz`), "the listener is stopped once run returned");
});

Deno.test("defineSubcommand(): an empty health address serves no listener", async () => {
  let healthAddress: string | undefined = "unset";
  const subcommand = unit((values) => ({
    health: { address: values.listenHealth, routes: READY },
    run(context) {
      healthAddress = context.healthAddress;
      return Promise.resolve(0);
    },
  }));
  assert.equal(await subcommand.run(["--listen-health="]), 0);
  assert.equal(healthAddress, undefined);
});

Deno.test("defineSubcommand(): a health listener that cannot bind closes the service and fails naming the address; run never starts", async () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const steps: string[] = [];
  try {
    const subcommand = unit((values) => ({
      health: { address: values.listenHealth, routes: READY },
      run: () => {
        steps.push("run");
        return Promise.resolve(0);
      },
      close: () => steps.push("close"),
    }));
    await assert.rejects(
      subcommand.run([`--listen-health=127.0.0.1:${taken.addr.port}`]),
      new RegExp(`^Error: listen health 127\\.0\\.0\\.1:${taken.addr.port}: `),
    );
    assert.deepEqual(steps, ["close"]);
  } finally {
    taken.close();
  }
});

Deno.test("defineSubcommand(): a ConfigError from start is bad configuration too: exit 2", async () => {
  const subcommand = unit(() => {
    throw new ConfigError("unit", [
      "--listen-health: shown on stderr by the skeleton (expected in this test)",
    ]);
  });
  assert.equal(await subcommand.run([]), 2);
});

/** Runs the probe subcommand as a child with the test permission set. */
function spawnProbe(args: readonly string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", "-P=test", "tests/daemon/subcommand_probe.ts", ...args],
    cwd: ROOT,
    clearEnv: true,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

Deno.test("a skeleton subcommand: permissions are narrowed before run, the first signal shuts down, a second forces; run's status is the exit status", async () => {
  const child = spawnProbe(["--greeting=hi"]);
  const lines: ProbeLine[] = [];
  const stderr = new Response(child.stderr).text();
  let buffer = "";
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = JSON.parse(buffer.slice(0, newline)) as ProbeLine;
      buffer = buffer.slice(newline + 1);
      lines.push(line);
      // The handlers are in before run starts, so signals sent from here are the skeleton's.
      if (line.step === "run" || line.step === "shutdown") child.kill("SIGTERM");
    }
  }
  const status = await child.status;
  assert.equal(status.code, 3, await stderr);
  assert.deepEqual(lines, [
    { step: "settings", env: "granted", run: "granted" },
    { step: "run", env: "prompt", run: "prompt", greeting: "hi" },
    { step: "shutdown", received: "SIGTERM", force: false },
    { step: "force" },
  ]);
});

Deno.test("a skeleton subcommand: --help prints the table's help on stdout, exit 0; a bad value exits 2 naming it, before settings", async () => {
  const help = await spawnProbe(["--help"]).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  assert.equal(help.code, 0);
  assert.match(decode(help.stdout), /^Usage: ouroboros probe \[flags\]\n\nReport what the skeleton did\./);
  assert.match(decode(help.stdout), /--greeting/);

  const bad = await spawnProbe(["--log-level=loud"]).output();
  assert.equal(bad.code, 2);
  assert.equal(decode(bad.stdout), "", "settings never ran");
  const stderr = decode(bad.stderr);
  assert.match(stderr, /^ouroboros invalid probe configuration:\n {2}--log-level/);
  assert.match(stderr, /Run 'ouroboros probe --help' for the accepted flags\.\n$/);
});

Deno.test("defineSubcommand(): more listeners (metrics and probes on separate ports, as kuberture) serve the same routes and stop after run", async () => {
  let addresses: readonly (string | undefined)[] = [];
  const subcommand = unit((values) => ({
    health: { address: values.listenHealth, routes: READY },
    moreListeners: [
      { address: { host: "127.0.0.1", port: 0 }, routes: { ...READY, metrics: () => "second 1\n" } },
      { address: null, routes: READY },
    ],
    async run(context) {
      addresses = context.moreAddresses;
      assert.ok(context.healthAddress);
      const second = context.moreAddresses[0];
      assert.ok(second !== undefined && second !== context.healthAddress);
      assert.equal(await (await fetch(`http://${second}/metrics`)).text(), "second 1\n");
      const readyz = await fetch(`http://${second}/readyz`);
      assert.deepEqual([readyz.status, await readyz.text()], [200, "ok\n"]);
      return 0;
    },
  }));
  assert.equal(await subcommand.run([]), 0);
  assert.equal(addresses.length, 2);
  assert.equal(addresses[1], undefined, "a disabled listener has no address");
  await assert.rejects(fetch(`http://${addresses[0]}/healthz`), "stopped once run returned");
});
