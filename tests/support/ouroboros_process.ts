/**
 * Runs ouroboros the way it runs in production: as a child process of the same Deno binary,
 * with exactly the permission set `deno.json` declares for the subcommand (`-P=<set>`), so a
 * test fails if the code needs a permission the set does not grant.
 *
 * @module
 */

import { DENO_JSON } from "./deno_json.ts";
import { waitFor } from "./wait.ts";

/** Absolute path of `main.ts`. */
export const MAIN = new URL("../../main.ts", import.meta.url).pathname;
/** Absolute path of the repository root. */
export const ROOT = new URL("../../", import.meta.url).pathname;

/** One parsed JSON log line. */
export type LogLine = Record<string, unknown> & { level: string; msg: string };

/** Output of a finished run. */
export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The `deno run` arguments for a subcommand: with its permission set (`-P=<set>`), or with explicit
 * permission flags (see {@linkcode permissionFlags}).
 */
export function denoArgs(permissions: string | readonly string[], args: readonly string[]): string[] {
  const flags = typeof permissions === "string" ? [`-P=${permissions}`] : permissions;
  return ["run", "--quiet", "--no-prompt", ...flags, MAIN, ...args];
}

/**
 * deno.json's permission set `set` spelt out as `--allow-*` flags, with `extraRead` added to its
 * read list. Why not `-P=<set> --allow-read=<extra>`: Deno then REPLACES the set's read list
 * instead of adding to it. Spelling the set out from deno.json keeps deno.json the single source of
 * truth while a test lets the child read one more folder (a temporary `--routes-file`). Relative
 * entries (`./lib`) are resolved against {@linkcode ROOT}, as Deno resolves them against deno.json.
 */
export function permissionFlags(set: string, extraRead: string): string[] {
  const permissions = DENO_JSON.permissions[set];
  if (permissions === undefined) throw new Error(`deno.json has no permission set ${set}`);
  const resolve = (entry: string) => entry.startsWith("./") ? `${ROOT}${entry.slice(2)}` : entry;
  return Object.entries({ read: false, ...permissions }).flatMap(([name, value]) => {
    if (value === true) return [`--allow-${name}`];
    const list = [...(value === false ? [] : value), ...(name === "read" ? [extraRead] : [])];
    return list.length === 0 ? [] : [`--allow-${name}=${list.map(resolve).join(",")}`];
  });
}

/**
 * Runs `ouroboros <args>` to completion with a clean environment plus `env`.
 *
 * @example
 * ```ts
 * const { code, stderr } = await runOuroboros(["proxy", "--dial-timeout=soon"]);
 * ```
 */
export async function runOuroboros(
  args: readonly string[],
  options: { env?: Record<string, string>; permissionSet?: string } = {},
): Promise<RunResult> {
  const permissionSet = options.permissionSet ?? (args[0] === "controller" ? "controller" : "proxy");
  const output = await new Deno.Command(Deno.execPath(), {
    args: denoArgs(permissionSet, args),
    cwd: ROOT,
    clearEnv: true,
    env: { NO_COLOR: "1", ...(options.env ?? {}) },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: output.code, stdout: decoder.decode(output.stdout), stderr: decoder.decode(output.stderr) };
}

/** Parses the JSON lines of a log; non-JSON lines are kept as `{level: "RAW", msg}`. */
export function parseLogLines(text: string): LogLine[] {
  return text.split("\n").filter((line) => line.trim() !== "").map((line) => {
    try {
      return JSON.parse(line) as LogLine;
    } catch {
      return { level: "RAW", msg: line };
    }
  });
}

/** A `host:port` string split into its parts. */
export interface HostPort {
  readonly hostname: string;
  readonly port: number;
}

/** Splits `127.0.0.1:8080` or `[::1]:8080`. */
export function splitHostPort(text: string): HostPort {
  const colon = text.lastIndexOf(":");
  const host = text.slice(0, colon);
  return { hostname: host.startsWith("[") ? host.slice(1, -1) : host, port: Number(text.slice(colon + 1)) };
}

/** A running proxy child process. */
export interface ProxyProcess extends AsyncDisposable {
  readonly child: Deno.ChildProcess;
  /** Bound traffic and health addresses (absent when that listener is disabled). */
  readonly http?: HostPort;
  readonly https?: HostPort;
  readonly health?: HostPort;
  /** The start-up log line. */
  readonly starting: LogLine;
  /** Every log line so far. */
  readonly logs: LogLine[];
  /** Resolves when the process exits. */
  readonly status: Promise<Deno.CommandStatus>;
  /** Waits for a log line matching `predicate`. */
  waitForLog(what: string, predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** Sends a signal (ignored if the process already exited). */
  kill(signal?: Deno.Signal): void;
  /** Fetches a path from the health listener and returns status and body. */
  healthGet(path: string): Promise<{ status: number; body: string }>;
}

/** Options for {@linkcode startProxy}. */
export interface StartProxyOptions {
  readonly env?: Record<string, string>;
  /** The deno.json permission set the child runs with (default `proxy`). */
  readonly permissionSet?: string;
  /** Wrap the command, e.g. `["prlimit", "--nofile=64"]`. */
  readonly wrapper?: readonly string[];
  /**
   * One more folder the child may read beyond its permission set, e.g. a test's temporary
   * `--routes-file` folder (the `proxy` set reads only /etc/ouroboros/routes). The set is then
   * given as explicit flags ({@linkcode permissionFlags}), still taken from deno.json.
   */
  readonly extraRead?: string;
}

/** A subcommand running as a child, with its parsed log and the shared controls. */
interface LoggedProcess {
  readonly child: Deno.ChildProcess;
  readonly starting: LogLine;
  readonly logs: LogLine[];
  readonly status: Promise<Deno.CommandStatus>;
  readonly exited: () => boolean;
  waitForLog(what: string, predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  kill(signal?: Deno.Signal): void;
}

/**
 * Spawns `command` with a clean environment plus `env`, parses its JSON log from stderr, and
 * waits for the start-up line whose `msg` is `startingMessage` (killing the child if it never
 * comes). Shared by {@linkcode startProxy} and {@linkcode startController}.
 */
async function spawnLogged(
  name: string,
  command: readonly string[],
  env: Record<string, string> | undefined,
  startingMessage: string,
): Promise<LoggedProcess> {
  const child = new Deno.Command(command[0] ?? "", {
    args: command.slice(1),
    cwd: ROOT,
    clearEnv: true,
    env: { NO_COLOR: "1", ...(env ?? {}) },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const logs: LogLine[] = [];
  const pump = (async () => {
    let buffer = "";
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        logs.push(...parseLogLines(buffer.slice(0, newline)));
        buffer = buffer.slice(newline + 1);
      }
    }
    if (buffer.trim() !== "") logs.push(...parseLogLines(buffer));
  })();
  const status = Promise.all([child.status, pump]).then(([s]) => s);
  let exited = false;
  status.then(() => exited = true);

  const waitForLog = (what: string, predicate: (line: LogLine) => boolean, timeoutMs = 15_000) =>
    waitFor(what, () => {
      const found = logs.find(predicate);
      if (found !== undefined) return found;
      if (exited) {
        throw new Error(
          `${name} exited while waiting for ${what}; log:\n${logs.map((l) => JSON.stringify(l)).join("\n")}`,
        );
      }
      return undefined;
    }, { timeoutMs });

  let starting: LogLine;
  try {
    starting = await waitForLog(`the '${startingMessage}' log line`, (line) => line.msg === startingMessage);
  } catch (error) {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
    await status;
    throw error;
  }
  const kill = (signal: Deno.Signal = "SIGTERM") => {
    if (exited) return;
    try {
      child.kill(signal);
    } catch { /* exited meanwhile */ }
  };
  return { child, starting, logs, status, exited: () => exited, waitForLog, kill };
}

/** GET `path` from a health listener; status and body. */
async function healthGetter(
  health: HostPort | undefined,
  path: string,
): Promise<{ status: number; body: string }> {
  if (health === undefined) throw new Error("the health listener is disabled");
  const host = health.hostname.includes(":") ? `[${health.hostname}]` : health.hostname;
  const response = await fetch(`http://${host}:${health.port}${path}`);
  return { status: response.status, body: await response.text() };
}

/**
 * `--workers` for {@linkcode startProxy} when a test does not set it: `OUROBOROS_TEST_PROXY_WORKERS`
 * of the test run (default 1), so the whole proxy suite can run again with several workers.
 */
export function testProxyWorkers(): string {
  return Deno.env.get("OUROBOROS_TEST_PROXY_WORKERS") ?? "1";
}

/**
 * Starts `ouroboros proxy` with every listener on 127.0.0.1 port 0, no drain delay and
 * {@linkcode testProxyWorkers} workers unless `args` override them, and waits for its
 * "proxy starting" line.
 */
export async function startProxy(
  args: readonly string[],
  options: StartProxyOptions = {},
): Promise<ProxyProcess> {
  const defaults = [
    "--listen-http=127.0.0.1:0",
    "--listen-https=127.0.0.1:0",
    "--listen-health=127.0.0.1:0",
    "--drain-delay=0s",
    `--workers=${testProxyWorkers()}`,
  ].filter((flag) => !args.some((arg) => arg.startsWith(flag.split("=")[0] + "=")));
  const set = options.permissionSet ?? "proxy";
  const permissions = options.extraRead === undefined ? set : permissionFlags(set, options.extraRead);
  const command = [Deno.execPath(), ...denoArgs(permissions, ["proxy", ...defaults, ...args])];
  const wrapped = [...(options.wrapper ?? []), ...command];
  const { child, starting, logs, status, waitForLog, kill } = await spawnLogged(
    "proxy",
    wrapped,
    options.env,
    "proxy starting",
  );
  const address = (
    key: string,
  ) => (typeof starting[key] === "string" ? splitHostPort(starting[key]) : undefined);
  const http = address("http");
  const https = address("https");
  const health = address("health");
  return {
    child,
    ...(http ? { http } : {}),
    ...(https ? { https } : {}),
    ...(health ? { health } : {}),
    starting,
    logs,
    status,
    waitForLog,
    kill,
    healthGet: (path: string) => healthGetter(health, path),
    async [Symbol.asyncDispose]() {
      kill("SIGKILL");
      await status;
    },
  };
}

/** A running controller child process. */
export interface ControllerProcess extends AsyncDisposable {
  readonly child: Deno.ChildProcess;
  /** The health listener's bound address (absent when disabled). */
  readonly health?: HostPort;
  /** The "controller starting" log line. */
  readonly starting: LogLine;
  /** Every log line so far. */
  readonly logs: LogLine[];
  /** Resolves when the process exits. */
  readonly status: Promise<Deno.CommandStatus>;
  /** Waits for a log line matching `predicate`. */
  waitForLog(what: string, predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** Sends a signal (ignored if the process already exited). */
  kill(signal?: Deno.Signal): void;
  /** Fetches a path from the health listener and returns status and body. */
  healthGet(path: string): Promise<{ status: number; body: string }>;
  /**
   * Runs `wait`; when it fails, rethrows with the process's state and last log lines appended,
   * so a timeout in a long run says what the controller was doing.
   */
  explain<T>(wait: () => Promise<T>): Promise<T>;
}

/** Options for {@linkcode startController}. */
export interface StartControllerOptions {
  readonly env?: Record<string, string>;
  /** The permission set; `controller` unless a test needs another. */
  readonly permissionSet?: string;
  /** Wrap the command, e.g. `["prlimit", "--nofile=64"]`. */
  readonly wrapper?: readonly string[];
  /** The program to run instead of `main.ts`: a `deno bundle` of it (JavaScript, no TypeScript step). */
  readonly entry?: string;
}

/**
 * Starts `ouroboros controller` with its health listener on 127.0.0.1 port 0 unless `args` set
 * `--listen-health`, and waits for its "controller starting" line, which reports the bound
 * health address.
 */
export async function startController(
  args: readonly string[],
  options: StartControllerOptions = {},
): Promise<ControllerProcess> {
  const defaults = ["--listen-health=127.0.0.1:0"].filter((flag) =>
    !args.some((arg) => arg.startsWith(flag.split("=")[0] + "="))
  );
  const { child, starting, logs, status, exited, waitForLog, kill } = await spawnLogged(
    "controller",
    [
      ...(options.wrapper ?? []),
      Deno.execPath(),
      ...denoArgs(options.permissionSet ?? "controller", ["controller", ...defaults, ...args])
        .map((arg) => arg === MAIN ? options.entry ?? MAIN : arg),
    ],
    options.env,
    "controller starting",
  );
  const health = typeof starting.health === "string" && starting.health !== "off"
    ? splitHostPort(starting.health)
    : undefined;
  return {
    child,
    ...(health ? { health } : {}),
    starting,
    logs,
    status,
    waitForLog,
    kill,
    healthGet: (path: string) => healthGetter(health, path),
    async explain<T>(wait: () => Promise<T>): Promise<T> {
      try {
        return await wait();
      } catch (error) {
        const tail = logs.slice(-25).map((line) => JSON.stringify(line)).join("\n");
        throw new Error(
          `${error instanceof Error ? error.message : String(error)}\ncontroller ${
            exited() ? "had exited" : "still running"
          }; its last log lines:\n${tail}`,
          { cause: error },
        );
      }
    },
    async [Symbol.asyncDispose]() {
      kill("SIGKILL");
      await status;
    },
  };
}

/** A running kuberture child process. */
export interface KubertureProcess extends AsyncDisposable {
  readonly child: Deno.ChildProcess;
  /** The "kuberture starting" log line (its `health` and `metrics` name the bound addresses). */
  readonly starting: LogLine;
  readonly logs: LogLine[];
  readonly status: Promise<Deno.CommandStatus>;
  waitForLog(what: string, predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  kill(signal?: Deno.Signal): void;
  /** GET from the health listener (`/healthz`, `/readyz`) or, with `metrics`, the metrics listener. */
  get(path: string, listener?: "health" | "metrics"): Promise<{ status: number; body: string }>;
}

/**
 * Starts `ouroboros kuberture` with exactly the `kuberture` permission set and waits for its
 * "kuberture starting" line.
 */
export async function startKuberture(
  args: readonly string[],
  options: { readonly env?: Record<string, string> } = {},
): Promise<KubertureProcess> {
  const { child, starting, logs, status, waitForLog, kill } = await spawnLogged(
    "kuberture",
    [Deno.execPath(), ...denoArgs("kuberture", ["kuberture", ...args])],
    options.env,
    "kuberture starting",
  );
  const address = (key: string) =>
    typeof starting[key] === "string" && starting[key] !== "off" ? splitHostPort(starting[key]) : undefined;
  return {
    child,
    starting,
    logs,
    status,
    waitForLog,
    kill,
    get: (path, listener = "health") => healthGetter(address(listener), path),
    async [Symbol.asyncDispose]() {
      kill("SIGKILL");
      await status;
    },
  };
}

/** A running `ouroboros dns` child process. */
export interface DnsProcess extends AsyncDisposable {
  readonly child: Deno.ChildProcess;
  /** The "dns starting" log line. */
  readonly starting: LogLine;
  /** The DNS port bound (UDP and TCP), from the start-up line's `dns` address. */
  readonly dns: HostPort;
  readonly logs: LogLine[];
  readonly status: Promise<Deno.CommandStatus>;
  waitForLog(what: string, predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  kill(signal?: Deno.Signal): void;
  /** GET from the health listener (`/healthz`, `/readyz`, `/metrics`). */
  get(path: string): Promise<{ status: number; body: string }>;
}

/**
 * Starts `ouroboros dns` with exactly the `dns` permission set and waits for its "dns starting"
 * line.
 */
export async function startDns(
  args: readonly string[],
  options: { readonly env?: Record<string, string> } = {},
): Promise<DnsProcess> {
  const { child, starting, logs, status, waitForLog, kill } = await spawnLogged(
    "dns",
    [Deno.execPath(), ...denoArgs("dns", ["dns", ...args])],
    options.env,
    "dns starting",
  );
  const health = typeof starting.health === "string" && starting.health !== "off"
    ? splitHostPort(starting.health)
    : undefined;
  return {
    child,
    starting,
    dns: splitHostPort(String(starting.dns)),
    logs,
    status,
    waitForLog,
    kill,
    get: (path) => healthGetter(health, path),
    async [Symbol.asyncDispose]() {
      kill("SIGKILL");
      await status;
    },
  };
}
