import assert from "node:assert/strict";
import { ConfigError, envName, type OptionSpec, parseOptions } from "../../lib/cli/options.ts";
import { proxySettings } from "../../lib/proxy/proxy_settings.ts";
import { PROXY_OPTIONS } from "../../lib/proxy/proxy_options.ts";
import { parseLogLines, runOuroboros, startProxy } from "../support/ouroboros_process.ts";

/** Every row of the proxy's option table, widened so optional fields can be read. */
const PROXY_SPECS: readonly (OptionSpec<unknown> & { readonly flag: string })[] = Object.values(
  PROXY_OPTIONS.options,
);

/**
 * Values each kind of option must reject, keyed by the kind's help placeholder. A choice list
 * (placeholder `a|b|c`) gets a word that is on no list. A new kind without an entry here fails
 * the test instead of going untested.
 */
const BAD_VALUES: Readonly<Record<string, readonly string[]>> = {
  ADDR: ["8080", "[::1:8080", "127.0.0.1:99999"],
  HOST: ["bad_host!", "-leading-dash.example"],
  NAME: ["Ingress_NGINX", "9starts-with-digit"],
  NAMESPACE: ["Team_A"],
  DOMAIN: ["cozy..local", "under_score.local"],
  PORT: ["0", "65536", "http"],
  DURATION: ["soon", "-5s", "5"],
  N: ["-1", "two", "1025"],
  PATH: ["/etc/ouroboros/routes/"],
};
const CHOICE_BAD_VALUES = ["not-a-choice"];

function badValues(spec: OptionSpec<unknown>): readonly string[] {
  if (spec.kind.placeholder.includes("|")) return CHOICE_BAD_VALUES;
  const values = BAD_VALUES[spec.kind.placeholder];
  assert.ok(values, `no bad values listed for kind ${spec.kind.placeholder} (--${spec.flag})`);
  return values;
}

/**
 * Runs `tasks` with at most `limit` in flight, so dozens of child processes do not swamp two
 * cores. Every task runs to the end even when one fails; the failures are then thrown together.
 */
async function inBatches(tasks: readonly (() => Promise<void>)[], limit = 4): Promise<void> {
  const failures: unknown[] = [];
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const task = tasks[next++];
      try {
        await task?.();
      } catch (error) {
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, `${failures.length} cases failed`);
}

/**
 * Arguments that make a run safe whatever happens: a backend, and listeners on loopback port 0
 * except one on `busyPort`, so that a bad value wrongly accepted makes the proxy exit 1 on the
 * busy port instead of serving forever. The flags under test are left out, so their env vars are
 * not overridden.
 */
function safeArgs(busyPort: number, ...except: string[]): string[] {
  const busyFlag = except.includes("listen-health") ? "listen-http" : "listen-health";
  const args: Record<string, string> = {
    "target-host": "127.0.0.1",
    "listen-http": "127.0.0.1:0",
    "listen-https": "127.0.0.1:0",
    "listen-health": "127.0.0.1:0",
    [busyFlag]: `127.0.0.1:${busyPort}`,
  };
  return Object.entries(args).filter(([flag]) => !except.includes(flag)).map(([flag, value]) =>
    `--${flag}=${value}`
  );
}

/**
 * Asserts a config-error run: exit 2, and one line of stderr names `origin` with the quoted
 * `value` and says what is accepted (a run reports every problem, one line each).
 */
function assertRejected(
  result: { code: number; stderr: string },
  origin: string,
  value: string,
  spec: OptionSpec<unknown>,
): void {
  const context = `${origin}=${JSON.stringify(value)}; stderr:\n${result.stderr}`;
  assert.equal(result.code, 2, context);
  const line = result.stderr.split("\n").find((text) => text.includes(`${origin}=${JSON.stringify(value)}`));
  assert.ok(line !== undefined, `stderr does not name ${origin} with the quoted value: ${context}`);
  assert.ok(line.includes(spec.kind.accepted), `stderr does not say what is accepted: ${context}`);
}

/**
 * The bad values in rounds: round k gives every option its k-th bad value, so one run checks
 * many options at once (each problem is its own line) and the test spawns a few processes, not
 * one per value. Every option's every bad value is in exactly one round.
 */
function rounds(): { spec: (typeof PROXY_SPECS)[number]; value: string }[][] {
  const out: { spec: (typeof PROXY_SPECS)[number]; value: string }[][] = [];
  for (const spec of PROXY_SPECS) {
    badValues(spec).forEach((value, round) => (out[round] ??= []).push({ spec, value }));
  }
  return out;
}

Deno.test("every proxy flag rejects bad values given as a flag: exit 2, naming flag, value and accepted text", async () => {
  using busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const tasks = rounds().map((round) => async () => {
    const args = safeArgs(busy.addr.port, ...round.map(({ spec }) => spec.flag));
    const result = await runOuroboros([
      "proxy",
      ...args,
      ...round.map(({ spec, value }) => `--${spec.flag}=${value}`),
    ]);
    for (const { spec, value } of round) assertRejected(result, `--${spec.flag}`, value, spec);
  });
  await inBatches(tasks);
});

Deno.test("every proxy env var rejects bad values: exit 2, naming variable, value and accepted text", async () => {
  using busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const tasks = rounds().map((round) => async () => {
    const env: Record<string, string> = {};
    for (const { spec, value } of round) {
      const variable = envName(PROXY_OPTIONS.command, spec);
      assert.ok(variable !== null, `--${spec.flag} has no environment variable`);
      env[variable] = value;
    }
    // Flags win over env vars: only the flags of options not under test are given.
    const args = safeArgs(busy.addr.port, ...round.map(({ spec }) => spec.flag));
    const result = await runOuroboros(["proxy", ...args], { env });
    for (const { spec, value } of round) {
      assertRejected(result, envName(PROXY_OPTIONS.command, spec)!, value, spec);
    }
  });
  await inBatches(tasks);
});

Deno.test("several bad values at once are all reported in one run", async () => {
  using busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const result = await runOuroboros(
    [
      "proxy",
      ...safeArgs(busy.addr.port),
      "--dial-timeout=soon",
      "--target-http-port=0",
      "--proxy-protocol=v3",
    ],
    { env: { OUROBOROS_PROXY_LOG_LEVEL: "chatty", OUROBOROS_PROXY_READY_TIMEOUT: "-1s" } },
  );
  assert.equal(result.code, 2);
  for (const part of ['--dial-timeout="soon"', '--target-http-port="0"', '--proxy-protocol="v3"']) {
    assert.ok(result.stderr.includes(part), `${part} missing from:\n${result.stderr}`);
  }
  for (const part of ['OUROBOROS_PROXY_LOG_LEVEL="chatty"', 'OUROBOROS_PROXY_READY_TIMEOUT="-1s"']) {
    assert.ok(result.stderr.includes(part), `${part} missing from:\n${result.stderr}`);
  }
});

Deno.test("an unknown flag exits 2 naming it, and bad values beside it are still reported", async () => {
  using busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const result = await runOuroboros([
    "proxy",
    ...safeArgs(busy.addr.port),
    "--listen-htp=:8080",
    "--dial-timeout=soon",
  ]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /--listen-htp/);
  assert.ok(result.stderr.includes('--dial-timeout="soon"'), result.stderr);
});

Deno.test("a stray positional argument exits 2 naming it", async () => {
  using busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const result = await runOuroboros(["proxy", ...safeArgs(busy.addr.port), "stray-word"]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /stray-word/);
});

Deno.test("an empty env var counts as unset: the default applies", async () => {
  // Every proxy variable set to "", including OUROBOROS_PROXY_DIAL_TIMEOUT.
  const env: Record<string, string> = {};
  for (const spec of PROXY_SPECS) {
    const variable = envName(PROXY_OPTIONS.command, spec);
    if (variable !== null) env[variable] = "";
  }
  await using proxy = await startProxy(["--target-host=127.0.0.1"], { env });
  assert.equal(proxy.starting.dialTimeoutSeconds, 5);
  assert.equal(proxy.starting.readyTimeoutSeconds, 2);
  assert.equal(proxy.starting.shutdownGraceSeconds, 30);
  assert.equal(proxy.starting.proxyProtocol, "v1");
  assert.equal(proxy.starting.httpPort, 80);
  assert.equal(proxy.starting.httpsPort, 443);
});

Deno.test("precedence: a flag beats its env var, which beats the default", async () => {
  await using proxy = await startProxy(
    ["--target-host=flag-host.example", "--dial-timeout=3s", "--target-https-port=8443"],
    {
      env: {
        OUROBOROS_PROXY_TARGET_HOST: "env-host.example",
        OUROBOROS_PROXY_DIAL_TIMEOUT: "7s",
        OUROBOROS_PROXY_TARGET_HTTPS_PORT: "9443",
        OUROBOROS_PROXY_READY_TIMEOUT: "4s",
        OUROBOROS_PROXY_TARGET_HTTP_PORT: "8080",
        OUROBOROS_PROXY_PROXY_PROTOCOL: "v2",
        OUROBOROS_PROXY_CLUSTER_DOMAIN: "env.local",
      },
    },
  );
  const line = proxy.starting;
  // Flag over env.
  assert.equal(line.backend, "flag-host.example");
  assert.equal(line.dialTimeoutSeconds, 3);
  assert.equal(line.httpsPort, 8443);
  // Env over default.
  assert.equal(line.readyTimeoutSeconds, 4);
  assert.equal(line.httpPort, 8080);
  assert.equal(line.proxyProtocol, "v2");
  assert.equal(line.clusterDomain, "env.local");
  assert.equal(line.clusterDomainSource, "env");
  // Default where neither is given.
  assert.equal(line.shutdownGraceSeconds, 30);
});

Deno.test("no backend: exit 2 naming --target-host and --target-service-name", async () => {
  using busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const result = await runOuroboros(["proxy", ...safeArgs(busy.addr.port, "target-host")]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /--target-host/);
  assert.match(result.stderr, /--target-service-name/);
});

Deno.test("a Service name without its namespace: exit 2 naming --target-service-namespace", async () => {
  using busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const result = await runOuroboros([
    "proxy",
    ...safeArgs(busy.addr.port, "target-host"),
    "--target-service-name=ingress-nginx-controller",
  ]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /--target-service-namespace/);
});

Deno.test("both traffic listeners empty: exit 2 naming both flags", async () => {
  using busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const result = await runOuroboros([
    "proxy",
    "--target-host=127.0.0.1",
    "--listen-http=",
    "--listen-https=",
    `--listen-health=127.0.0.1:${busy.addr.port}`,
  ]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /--listen-http\b/);
  assert.match(result.stderr, /--listen-https\b/);
});

Deno.test("the backend host is composed from Service name, namespace and cluster domain", async () => {
  // Space-separated values, as manifests often write them.
  await using proxy = await startProxy([
    "--target-service-name",
    "foo",
    "--target-service-namespace",
    "bar",
    "--cluster-domain=cozy.local",
  ]);
  assert.equal(proxy.starting.backend, "foo.bar.svc.cozy.local");
  assert.equal(proxy.starting.clusterDomainSource, "flag");
});

for (const listener of ["http", "https", "health"] as const) {
  Deno.test(`a busy ${listener} port: exit 1 with one fatal JSON line naming the listener and address`, async () => {
    using busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const address = `127.0.0.1:${busy.addr.port}`;
    const listeners = {
      http: "127.0.0.1:0",
      https: "127.0.0.1:0",
      health: "127.0.0.1:0",
      [listener]: address,
    };
    const result = await runOuroboros([
      "proxy",
      "--target-host=127.0.0.1",
      `--listen-http=${listeners.http}`,
      `--listen-https=${listeners.https}`,
      `--listen-health=${listeners.health}`,
    ]);
    assert.equal(result.code, 1, result.stderr);
    const lines = parseLogLines(result.stderr);
    assert.equal(lines.length, 1, result.stderr);
    const [line] = lines;
    assert.equal(line?.level, "FATAL");
    const text = JSON.stringify(line);
    assert.ok(
      text.includes(`${listener} ${address}`),
      `the line does not name ${listener} ${address}: ${text}`,
    );
  });
}

// proxySettings() in-process: cluster-domain detection and backend composition from a
// resolv.conf text, without touching the real /etc/resolv.conf.

/** Parses argv and env against the proxy table, failing the test on a parse error. */
function parsed(argv: readonly string[], env: Record<string, string> = {}) {
  const outcome = parseOptions(PROXY_OPTIONS, { argv, getEnv: (name) => env[name] });
  assert.equal(outcome.kind, "ok", JSON.stringify(outcome));
  if (outcome.kind !== "ok") throw new Error("unreachable");
  return outcome;
}

const KUBELET_RESOLV_CONF = "search ingress.svc.cozy.local svc.cozy.local cozy.local\n" +
  "nameserver 10.96.0.10\noptions ndots:5\n";
const SERVICE_ARGS = ["--target-service-name=ingress-nginx-controller", "--target-service-namespace=ingress"];

Deno.test("proxySettings: the cluster domain is detected from resolv.conf and composes the backend", () => {
  const outcome = parsed(SERVICE_ARGS);
  let reads = 0;
  const settings = proxySettings({
    values: outcome.values,
    clusterDomainSource: outcome.sources.clusterDomain,
    readResolvConf: () => {
      reads++;
      return KUBELET_RESOLV_CONF;
    },
  });
  assert.ok(!(settings instanceof Error), String(settings));
  assert.equal(reads, 1);
  assert.equal(settings.clusterDomain, "cozy.local");
  assert.equal(settings.clusterDomainSource, "detected");
  assert.equal(settings.server.backendHost, "ingress-nginx-controller.ingress.svc.cozy.local");
});

Deno.test("proxySettings: an unreadable resolv.conf falls back to cluster.local", () => {
  const outcome = parsed(SERVICE_ARGS);
  const settings = proxySettings({
    values: outcome.values,
    clusterDomainSource: outcome.sources.clusterDomain,
    readResolvConf: () => undefined,
  });
  assert.ok(!(settings instanceof Error), String(settings));
  assert.equal(settings.server.backendHost, "ingress-nginx-controller.ingress.svc.cluster.local");
  assert.equal(settings.clusterDomainSource, "detected");
});

Deno.test("proxySettings: a given cluster domain wins and resolv.conf is not read", () => {
  for (
    const [argv, env, source] of [
      [[...SERVICE_ARGS, "--cluster-domain=given.local"], {}, "flag"],
      [SERVICE_ARGS, { OUROBOROS_PROXY_CLUSTER_DOMAIN: "given.local" }, "env"],
    ] as const
  ) {
    const outcome = parsed(argv, env);
    const settings = proxySettings({
      values: outcome.values,
      clusterDomainSource: outcome.sources.clusterDomain,
      readResolvConf: () => {
        throw new Error("resolv.conf must not be read when the cluster domain is given");
      },
    });
    assert.ok(!(settings instanceof Error), String(settings));
    assert.equal(settings.server.backendHost, "ingress-nginx-controller.ingress.svc.given.local");
    assert.equal(settings.clusterDomainSource, source);
  }
});

Deno.test("proxySettings: --target-host is used as is; detection still reports the domain", () => {
  const outcome = parsed(["--target-host=10.0.0.7", ...SERVICE_ARGS]);
  const settings = proxySettings({
    values: outcome.values,
    clusterDomainSource: outcome.sources.clusterDomain,
    readResolvConf: () => KUBELET_RESOLV_CONF,
  });
  assert.ok(!(settings instanceof Error), String(settings));
  assert.equal(settings.server.backendHost, "10.0.0.7");
  assert.equal(settings.clusterDomain, "cozy.local");
});

Deno.test("proxySettings: listeners map to their backend ports; /readyz dials the HTTP port", () => {
  const outcome = parsed([
    "--target-host=ingress.example",
    "--listen-http=:18080",
    "--listen-https=",
    "--target-http-port=8080",
    "--target-https-port=8443",
  ]);
  const settings = proxySettings({
    values: outcome.values,
    clusterDomainSource: outcome.sources.clusterDomain,
    readResolvConf: () => undefined,
  });
  assert.ok(!(settings instanceof Error), String(settings));
  assert.deepEqual(settings.server.listeners, [
    { name: "http", address: { host: undefined, port: 18080 }, backendPort: 8080 },
  ]);
  assert.equal(settings.server.readinessPort, 8080);
});

Deno.test("proxySettings: no backend and no listener are reported together", () => {
  const outcome = parsed(["--listen-http=", "--listen-https="]);
  const settings = proxySettings({
    values: outcome.values,
    clusterDomainSource: outcome.sources.clusterDomain,
    readResolvConf: () => KUBELET_RESOLV_CONF,
  });
  assert.ok(settings instanceof ConfigError, "expected a ConfigError");
  const problems = settings.problems;
  assert.equal(problems.length, 2, problems.join("\n"));
  assert.ok(problems.some((problem) => problem.includes("--target-host")));
  assert.ok(problems.some((problem) => problem.includes("--listen-http")));
});
