import assert from "node:assert/strict";
import { boolean, duration, listenAddress, oneOf, port, text } from "../../lib/cli/kinds.ts";
import {
  ConfigError,
  envName,
  type OptionSpec,
  type OptionTable,
  type OptionValues,
  parseOptions,
  type ParseOutcome,
} from "../../lib/cli/options.ts";
import { renderHelp, renderMarkdownTable } from "../../lib/cli/help.ts";
import { PROXY_OPTIONS } from "../../lib/proxy/proxy_options.ts";

/** A small table with one row of each shape the real tables use. */
const DEMO = {
  command: "demo",
  summary: "A command for tests.",
  options: {
    listen: { flag: "listen", kind: listenAddress(), default: ":8080", help: "Where to listen." },
    timeout: { flag: "timeout", kind: duration(), default: "5s", help: "How long to wait." },
    gatewayApi: { flag: "gateway-api", kind: boolean(), default: "false", help: "Watch Gateway API routes." },
    name: { flag: "name", kind: text(), default: "", help: "A free-text name." },
    mode: { flag: "mode", kind: oneOf(["fast", "safe"] as const), default: "safe", help: "How to run." },
    secret: { flag: "secret", env: null, kind: text(), default: "", help: "Flag only." },
    upstream: {
      flag: "upstream-port",
      env: "UPSTREAM_PORT",
      kind: port(),
      default: "80",
      help: "Custom env.",
    },
  },
} as const satisfies OptionTable<Record<string, OptionSpec<unknown>>>;

type DemoOptions = typeof DEMO.options;
type Env = Readonly<Record<string, string>>;

function parse(argv: readonly string[], env: Env = {}): ParseOutcome<DemoOptions> {
  return parseOptions(DEMO, { argv, getEnv: (name) => env[name] });
}

function values(argv: readonly string[], env: Env = {}): OptionValues<DemoOptions> {
  const outcome = parse(argv, env);
  assert.equal(outcome.kind, "ok", `expected ok, got ${JSON.stringify(outcome)}`);
  return (outcome as Extract<ParseOutcome<DemoOptions>, { kind: "ok" }>).values;
}

function problems(argv: readonly string[], env: Env = {}): readonly string[] {
  const outcome = parse(argv, env);
  assert.equal(outcome.kind, "invalid", `expected problems, got ${JSON.stringify(outcome)}`);
  return (outcome as Extract<ParseOutcome<DemoOptions>, { kind: "invalid" }>).problems;
}

Deno.test("environment variable names are derived from the command and the flag", () => {
  assert.equal(envName("demo", DEMO.options.gatewayApi), "OUROBOROS_DEMO_GATEWAY_API");
  assert.equal(envName("proxy", PROXY_OPTIONS.options.listenHttp), "OUROBOROS_PROXY_LISTEN_HTTP");
  assert.equal(envName("demo", DEMO.options.upstream), "UPSTREAM_PORT");
  assert.equal(envName("demo", DEMO.options.secret), null);
});

Deno.test("a flag beats the environment, which beats the default; empty env counts as unset", async (t) => {
  const cases: readonly { name: string; argv: string[]; env: Env; timeout: number; source: string }[] = [
    { name: "default", argv: [], env: {}, timeout: 5_000, source: "default" },
    { name: "env", argv: [], env: { OUROBOROS_DEMO_TIMEOUT: "2s" }, timeout: 2_000, source: "env" },
    { name: "flag", argv: ["--timeout=1s"], env: {}, timeout: 1_000, source: "flag" },
    {
      name: "flag over env",
      argv: ["--timeout=1s"],
      env: { OUROBOROS_DEMO_TIMEOUT: "2s" },
      timeout: 1_000,
      source: "flag",
    },
    {
      name: "empty env is unset",
      argv: [],
      env: { OUROBOROS_DEMO_TIMEOUT: "" },
      timeout: 5_000,
      source: "default",
    },
    {
      name: "a flag wins even over a bad env value",
      argv: ["--timeout=3s"],
      env: { OUROBOROS_DEMO_TIMEOUT: "soon" },
      timeout: 3_000,
      source: "flag",
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const outcome = parse(c.argv, c.env);
      assert.ok(outcome.kind === "ok", JSON.stringify(outcome));
      assert.equal(outcome.values.timeout, c.timeout);
      assert.equal(outcome.sources.timeout, c.source);
    });
  }
  await t.step("an explicit empty flag is a value, not unset", () => {
    const outcome = parse(["--name="], { OUROBOROS_DEMO_NAME: "from-env" });
    assert.ok(outcome.kind === "ok");
    assert.equal(outcome.values.name, "");
    assert.equal(outcome.sources.name, "flag");
  });
  await t.step("a flag-only row ignores the environment", () => {
    assert.equal(values([], { OUROBOROS_DEMO_SECRET: "leaked" }).secret, "");
  });
  await t.step("a row with its own env name reads that variable", () => {
    assert.equal(values([], { UPSTREAM_PORT: "8081", OUROBOROS_DEMO_UPSTREAM_PORT: "9" }).upstream, 8081);
  });
});

Deno.test("flags are read in every spelling Go's flag package accepts", async (t) => {
  const cases: readonly { argv: string[]; expect: Partial<OptionValues<DemoOptions>> }[] = [
    { argv: ["--timeout", "2s"], expect: { timeout: 2_000 } },
    { argv: ["--timeout=2s"], expect: { timeout: 2_000 } },
    { argv: ["-timeout=2s"], expect: { timeout: 2_000 } },
    { argv: ["-timeout", "2s"], expect: { timeout: 2_000 } },
    { argv: ["--timeout=1s", "--timeout=2s"], expect: { timeout: 2_000 } }, // last one wins
    { argv: ["--gateway-api"], expect: { gatewayApi: true } },
    { argv: ["-gateway-api"], expect: { gatewayApi: true } },
    { argv: ["--gateway-api=false"], expect: { gatewayApi: false } },
    { argv: ["-gateway-api=false"], expect: { gatewayApi: false } },
    { argv: ["--gateway-api=true"], expect: { gatewayApi: true } },
    { argv: ["--gateway-api=0"], expect: { gatewayApi: false } },
    { argv: ["--gateway-api=T"], expect: { gatewayApi: true } },
    { argv: [], expect: { gatewayApi: false } },
    { argv: ["--name=a=b"], expect: { name: "a=b" } },
    { argv: ["--name", ""], expect: { name: "" } },
    { argv: ["--name=--not-a-flag"], expect: { name: "--not-a-flag" } },
    { argv: ["--name", "-unknown-word"], expect: { name: "-unknown-word" } },
    { argv: ["--mode=FAST"], expect: { mode: "fast" } },
    {
      argv: ["--listen", "[::1]:0", "--secret=s3cret"],
      expect: { listen: { host: "::1", port: 0 }, secret: "s3cret" },
    },
  ];
  for (const c of cases) {
    await t.step(c.argv.join(" ") || "(none)", () => {
      const got = values(c.argv);
      for (const [key, expected] of Object.entries(c.expect)) {
        assert.deepEqual(got[key as keyof DemoOptions], expected, key);
      }
    });
  }
});

Deno.test("-h and --help ask for help wherever they appear", async (t) => {
  const cases = [
    ["-h"],
    ["--help"],
    ["-help"],
    ["--timeout=2s", "-h"],
    ["--bogus", "--help"], // help wins over an unknown flag before it
    ["--timeout=soon", "-h"], // and over a bad value
    ["stray", "-h"],
  ];
  for (const argv of cases) {
    await t.step(argv.join(" "), () => {
      assert.deepEqual(parse(argv, { OUROBOROS_DEMO_TIMEOUT: "bad" }), { kind: "help" });
    });
  }
});

Deno.test("each argv mistake is one problem that names it", async (t) => {
  const cases: readonly { argv: string[]; expect: RegExp[] }[] = [
    { argv: ["--bogus"], expect: [/^unknown flag --bogus$/] },
    { argv: ["-bogus=1"], expect: [/^unknown flag -bogus$/] },
    { argv: ["--timeuot=1s"], expect: [/^unknown flag --timeuot; did you mean --timeout\?$/] },
    { argv: ["-Timeout", "1s"], expect: [/^unknown flag -Timeout; did you mean --timeout\?$/, /"1s"/] },
    { argv: ["--hepl"], expect: [/^unknown flag --hepl; did you mean --help\?$/] },
    { argv: ["extra"], expect: [/^unexpected argument "extra": ouroboros demo takes only flags/] },
    {
      argv: ["--timeout"],
      expect: [/^flag --timeout needs a value, written --timeout=VALUE or --timeout VALUE$/],
    },
    {
      // Go reads a switch's value only after `=`, so `false` here is a stray argument.
      argv: ["--gateway-api", "false"],
      expect: [/^unexpected argument "false"/],
    },
    { argv: ["--name", "--timeout=1s"], expect: [/^flag --name needs a value/] },
    { argv: ["--", "x"], expect: [/^unexpected argument "x"/] },
    { argv: ["---timeout=1s"], expect: [/^bad flag syntax "---timeout=1s"/] },
    { argv: ["--=1s"], expect: [/^bad flag syntax "--=1s"/] },
    {
      argv: ["--bogus", "extra", "--timeout"],
      expect: [/unknown flag --bogus/, /unexpected argument "extra"/, /flag --timeout needs a value/],
    },
    {
      argv: ["--bogus", "--timeout=soon", "--other"],
      expect: [/unknown flag --bogus/, /unknown flag --other/, /^--timeout="soon"/],
    },
  ];
  for (const c of cases) {
    await t.step(c.argv.join(" "), () => {
      const found = problems(c.argv);
      assert.equal(found.length, c.expect.length, found.join("\n"));
      c.expect.forEach((pattern, i) => assert.match(found[i] ?? "", pattern));
    });
  }
});

Deno.test("several bad values are all reported at once, each with its origin, value and accepted text", () => {
  const found = problems(
    ["--timeout=soon", "--listen=8080", "--mode=turbo", "--gateway-api=maybe"],
    { UPSTREAM_PORT: "99999", OUROBOROS_DEMO_NAME: "fine" },
  );
  const expected: readonly [prefix: string, accepted: string][] = [
    ['--listen="8080": ', DEMO.options.listen.kind.accepted],
    ['--timeout="soon": ', DEMO.options.timeout.kind.accepted],
    ['--gateway-api="maybe": ', DEMO.options.gatewayApi.kind.accepted],
    ['--mode="turbo": ', DEMO.options.mode.kind.accepted],
    ['UPSTREAM_PORT="99999": ', DEMO.options.upstream.kind.accepted],
  ];
  assert.equal(found.length, expected.length, found.join("\n"));
  expected.forEach(([prefix, accepted], i) => {
    const problem = found[i] ?? "";
    assert.ok(problem.startsWith(prefix), `${problem} should start with ${prefix}`);
    assert.ok(problem.endsWith(`expected ${accepted}`), problem);
  });
  assert.match(found[0] ?? "", /missing ':'/, "the specific reason is kept when there is one");
});

Deno.test("a bad environment value names the variable, not the flag", () => {
  const found = problems([], { OUROBOROS_DEMO_TIMEOUT: "-1s" });
  assert.equal(found.length, 1);
  assert.match(found[0] ?? "", /^OUROBOROS_DEMO_TIMEOUT="-1s": must not be negative; expected a duration/);
  assert.ok(!(found[0] ?? "").includes("--timeout"));
});

Deno.test("ConfigError lists every problem under the command name", () => {
  const error = new ConfigError("demo", ["first problem", "second problem"]);
  assert.equal(error.name, "ConfigError");
  assert.deepEqual(error.problems, ["first problem", "second problem"]);
  assert.equal(error.message, "invalid demo configuration:\n  first problem\n  second problem");
});

// The real proxy table: every row's default must parse, a good value must be read, and a
// clearly bad value must be refused with a message that names the flag and what it accepts.
type ProxyKey = keyof typeof PROXY_OPTIONS.options;

const PROXY_GOOD: Readonly<Record<ProxyKey, readonly [string, unknown]>> = {
  listenHttp: ["[::]:18080", { host: "::", port: 18080 }],
  listenHttps: ["0.0.0.0:18443", { host: "0.0.0.0", port: 18443 }],
  listenHealth: ["127.0.0.1:0", { host: "127.0.0.1", port: 0 }],
  targetHost: ["[2001:db8::1]", "2001:db8::1"],
  targetServiceName: ["ingress-nginx-controller", "ingress-nginx-controller"],
  targetServiceNamespace: ["ingress-nginx", "ingress-nginx"],
  clusterDomain: ["Cozy.Local.", "cozy.local"],
  targetHttpPort: ["8080", 8080],
  targetHttpsPort: ["65535", 65535],
  dialTimeout: ["250ms", 250],
  readyTimeout: ["1m30s", 90_000],
  shutdownGrace: ["45s", 45_000],
  drainDelay: ["0s", 0],
  idleTimeout: ["0", 0],
  proxyProtocol: ["V2", "v2"],
  routesFile: ["/etc/ouroboros/routes/routes.json", "/etc/ouroboros/routes/routes.json"],
  routeReadTimeout: ["2s", 2000],
  workers: ["4", 4],
  logLevel: ["warning", "warn"],
  logFormat: ["text", "text"],
};

const PROXY_BAD: Readonly<Record<ProxyKey, string>> = {
  listenHttp: "8080",
  listenHttps: ":99999",
  listenHealth: "[::1",
  targetHost: "not a host!",
  targetServiceName: "Ingress_Nginx",
  targetServiceNamespace: "-ingress",
  clusterDomain: "cluster..local",
  targetHttpPort: "0",
  targetHttpsPort: "65536",
  dialTimeout: "soon",
  readyTimeout: "0s",
  shutdownGrace: "-30s",
  drainDelay: "5",
  idleTimeout: "1 hour",
  proxyProtocol: "v3",
  routesFile: "/etc/ouroboros/routes/",
  routeReadTimeout: "0s",
  workers: "-1",
  logLevel: "verbose",
  logFormat: "xml",
};

const PROXY_ROWS = Object.entries(PROXY_OPTIONS.options) as [
  ProxyKey,
  OptionSpec<unknown> & { readonly flag: string },
][];

function parseProxy(argv: readonly string[], env: Env = {}) {
  return parseOptions(PROXY_OPTIONS, { argv, getEnv: (name) => env[name] });
}

Deno.test("every proxy option's default parses", () => {
  const outcome = parseProxy([]);
  assert.ok(outcome.kind === "ok", JSON.stringify(outcome));
  for (const [key] of PROXY_ROWS) assert.equal(outcome.sources[key], "default", key);
  assert.deepEqual(outcome.values.listenHttp, { host: undefined, port: 8080 });
  assert.deepEqual(outcome.values.listenHttps, { host: undefined, port: 8443 });
  assert.deepEqual(outcome.values.listenHealth, { host: undefined, port: 8081 });
  assert.equal(outcome.values.targetHttpPort, 80);
  assert.equal(outcome.values.targetHttpsPort, 443);
  assert.equal(outcome.values.dialTimeout, 5_000);
  assert.equal(outcome.values.readyTimeout, 2_000);
  assert.equal(outcome.values.shutdownGrace, 30_000);
  assert.equal(outcome.values.proxyProtocol, "v1");
  assert.equal(outcome.values.clusterDomain, "");
});

Deno.test("every proxy option reads a good value from its flag and from its env var", async (t) => {
  for (const [key, spec] of PROXY_ROWS) {
    await t.step(spec.flag, () => {
      const [raw, expected] = PROXY_GOOD[key];
      for (
        const [argv, env] of [[[`--${spec.flag}=${raw}`], {}], [[], {
          [envName("proxy", spec) ?? ""]: raw,
        }]] as const
      ) {
        const outcome = parseProxy(argv, env);
        assert.ok(outcome.kind === "ok", JSON.stringify(outcome));
        assert.deepEqual(outcome.values[key], expected);
      }
    });
  }
});

Deno.test("an empty --listen-* flag disables that listener, an empty env value does not", () => {
  const flag = parseProxy(["--listen-https="]);
  assert.ok(flag.kind === "ok");
  assert.equal(flag.values.listenHttps, null);
  const env = parseProxy([], { OUROBOROS_PROXY_LISTEN_HTTPS: "" });
  assert.ok(env.kind === "ok");
  assert.deepEqual(env.values.listenHttps, { host: undefined, port: 8443 });
});

Deno.test("every proxy option refuses a bad value, naming the flag and what it accepts", async (t) => {
  for (const [key, spec] of PROXY_ROWS) {
    await t.step(spec.flag, () => {
      const bad = PROXY_BAD[key];
      const outcome = parseProxy([`--${spec.flag}=${bad}`]);
      assert.ok(outcome.kind === "invalid", `${bad} was accepted`);
      assert.equal(outcome.problems.length, 1, outcome.problems.join("\n"));
      const problem = outcome.problems[0] ?? "";
      assert.ok(problem.startsWith(`--${spec.flag}=${JSON.stringify(bad)}: `), problem);
      assert.ok(problem.includes(spec.kind.accepted), problem);

      const variable = envName("proxy", spec) ?? "";
      const fromEnv = parseProxy([], { [variable]: bad });
      assert.ok(fromEnv.kind === "invalid");
      assert.ok(
        (fromEnv.problems[0] ?? "").startsWith(`${variable}=${JSON.stringify(bad)}: `),
        fromEnv.problems[0],
      );
    });
  }
  await t.step("all of them at once", () => {
    const outcome = parseProxy(PROXY_ROWS.map(([key, spec]) => `--${spec.flag}=${PROXY_BAD[key]}`));
    assert.ok(outcome.kind === "invalid");
    assert.equal(outcome.problems.length, PROXY_ROWS.length, outcome.problems.join("\n"));
    PROXY_ROWS.forEach(([, spec], i) => assert.ok(outcome.problems[i]?.startsWith(`--${spec.flag}=`)));
  });
});

// Env-only and repeatable rows (the controller's OUROBOROS_INSTANCE and --external-dns-label).
const EXTRAS = {
  command: "extra",
  summary: "Env-only and repeatable rows.",
  options: {
    instance: { flag: null, env: "OUROBOROS_INSTANCE", kind: text("NAME"), default: "", help: "Instance." },
    label: {
      flag: "label",
      kind: {
        placeholder: "KEY=VALUE",
        accepted: "key=value",
        parse: (raw: string) => (/^[^=]+=/.test(raw) ? { ok: true, value: raw } : { ok: false }),
      },
      default: "",
      help: "A label.",
      repeatable: true,
    },
  },
} as const satisfies OptionTable<Record<string, OptionSpec<unknown>>>;

Deno.test("an env-only row is read from its variable, has no flag, and a flag of its name is unknown", () => {
  const outcome = parseOptions(EXTRAS, {
    argv: [],
    getEnv: (name) => (name === "OUROBOROS_INSTANCE" ? "blue" : undefined),
  });
  assert.equal(outcome.kind, "ok");
  if (outcome.kind === "ok") assert.equal(outcome.values.instance, "blue");
  const flagged = parseOptions(EXTRAS, { argv: ["--instance=blue"], getEnv: () => undefined });
  assert.equal(flagged.kind, "invalid");
  if (flagged.kind === "invalid") assert.match(flagged.problems[0] ?? "", /unknown flag --instance/);
});

Deno.test("a repeatable flag collects every occurrence in order and reports each bad one", () => {
  const outcome = parseOptions(EXTRAS, {
    argv: ["--label", "a=1", "--label=b=2", "-label=c="],
    getEnv: () => undefined,
  });
  assert.equal(outcome.kind, "ok");
  if (outcome.kind === "ok") assert.deepEqual(outcome.values.label, ["a=1", "b=2", "c="]);
  const none = parseOptions(EXTRAS, { argv: [], getEnv: () => undefined });
  assert.ok(none.kind === "ok" && none.values.label.length === 0);
  const bad = parseOptions(EXTRAS, {
    argv: ["--label=x", "--label=y=1", "--label=z"],
    getEnv: () => undefined,
  });
  assert.equal(bad.kind, "invalid");
  if (bad.kind === "invalid") {
    assert.deepEqual(bad.problems, [
      '--label="x": expected key=value',
      '--label="z": expected key=value',
    ]);
  }
});

Deno.test("help and the docs flag table show env-only rows under their variable and mark repeatable flags", () => {
  const help = renderHelp(EXTRAS);
  assert.match(help, /Environment variables without a flag:\n\n {2}OUROBOROS_INSTANCE=NAME/);
  assert.match(help, /--label=KEY=VALUE \(repeatable\)\n/);
  const table = renderMarkdownTable(EXTRAS);
  assert.match(table, /^\| \(none\) \| `OUROBOROS_INSTANCE` \|/m);
  assert.match(table, /^\| `--label` \(repeatable\) \| \(none\) \|/m);
});
