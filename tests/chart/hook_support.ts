/**
 * Runs the chart's hook scripts (`chart/scripts/*.sh`) for real: a POSIX shell, the real kubectl 1.35 on
 * PATH, and `KUBECONFIG` pointing at the fake API server, the way the hook Job runs them in the cluster
 * (there with the in-cluster credentials instead of a kubeconfig). Like the Job, the shell gets the script
 * as one `-c` text, the shared `chart/scripts/lib/` files first: {@linkcode hookScript} builds it.
 *
 * Two shells: the machine's `/bin/sh` (dash, with the machine's sed, awk and grep), and busybox, which the
 * hook image (alpine/kubectl) actually has. For busybox every applet is linked into a private folder that
 * is the whole PATH besides kubectl, so the scripts see busybox's sed, awk, grep, date, mktemp, … and
 * nothing else, as in the image.
 *
 * @module
 */

import { type FakeApiServer } from "../support/fake_apiserver/mod.ts";
import { installKubeTools, type KubeToolsResult, requireKubeTools } from "../support/kubectl.ts";
import { writeKubeconfig } from "../support/kubeconfig.ts";
import { findTool, IN_CI } from "../support/tools.ts";
import { type HookScript, hookScript } from "./hook_script.ts";

export { HOOK_LIBS, type HookScript, hookScript, SCRIPTS_DIR } from "./hook_script.ts";

/** Every line a script prints starts with this. */
export const PREFIX = "[ouroboros-cleanup]";

/** A shell the scripts are run with. */
export interface HookShell {
  readonly name: "dash" | "busybox";
  /** Why it is unavailable (outside CI the tests using it are skipped with this reason). */
  readonly missing: string | undefined;
}

/** The shells to run every script with. */
export const SHELLS: readonly HookShell[] = [
  {
    name: "dash",
    missing: findTool("dash") === undefined ? "dash is not installed" : undefined,
  },
  {
    name: "busybox",
    missing: findTool("busybox") === undefined
      ? "busybox is not installed (apt-get install busybox; .ci/run installs it)"
      : undefined,
  },
];

/** kubectl, installed once per test file. */
export const KUBE_TOOLS: KubeToolsResult = await installKubeTools();

/**
 * Whether the tests for `shell` are ignored: only outside CI, when kubectl or the shell is missing,
 * with the reason printed. Under `CI=true` nothing is ignored, so a missing tool fails loudly.
 */
export function ignoreShell(shell: HookShell): boolean {
  if (IN_CI) return false;
  const reason = !KUBE_TOOLS.ok
    ? `kubectl 1.35 could not be installed (${KUBE_TOOLS.reason})`
    : shell.missing;
  if (reason === undefined) return false;
  // deno-lint-ignore no-console
  console.log(`SKIP hook scripts under ${shell.name}: ${reason}`);
  return true;
}

/** What a finished script did. */
export interface HookResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout then stderr, for messages that may go to either. */
  readonly output: string;
}

/** A script started in the background. */
export interface RunningHook {
  /** Resolves when it exits. */
  readonly done: Promise<HookResult>;
  /** True once it has exited. */
  finished(): boolean;
}

/** A private folder with a kubeconfig for the fake server, a HOME, a TMPDIR and the shell's PATH. */
export interface HookSandbox extends AsyncDisposable {
  /**
   * Starts `script` (a file name in chart/scripts) as its hook Job does, `sh -c` with the text
   * {@linkcode hookScript} builds, with `env` added to the sandbox's environment.
   */
  start(script: HookScript, env: Readonly<Record<string, string>>): RunningHook;
  /** Runs `script` to the end. */
  run(script: HookScript, env: Readonly<Record<string, string>>): Promise<HookResult>;
}

async function busyboxBin(dir: string): Promise<void> {
  const busybox = findTool("busybox");
  if (busybox === undefined) throw new Error("busybox is required for this test but is not installed");
  const listed = await new Deno.Command(busybox, { args: ["--list"], stdout: "piped", stderr: "piped" })
    .output();
  if (!listed.success) throw new Error(`busybox --list failed: ${new TextDecoder().decode(listed.stderr)}`);
  for (const applet of new TextDecoder().decode(listed.stdout).split("\n")) {
    if (applet === "" || applet.includes("/")) continue;
    await Deno.symlink(busybox, `${dir}/${applet}`);
  }
}

/** Opens a sandbox for `shell` against `server`. */
export async function hookSandbox(shell: HookShell, server: FakeApiServer): Promise<HookSandbox> {
  const { kubectl } = requireKubeTools(KUBE_TOOLS);
  const root = await Deno.makeTempDir({ prefix: "ouroboros-hooks-" });
  const bin = `${root}/bin`;
  const home = `${root}/home`;
  const tmp = `${root}/tmp`;
  await Deno.mkdir(bin);
  await Deno.mkdir(home);
  await Deno.mkdir(tmp);
  await Deno.symlink(kubectl, `${bin}/kubectl`);
  let shellPath: string;
  let path: string;
  if (shell.name === "busybox") {
    await busyboxBin(bin);
    shellPath = `${bin}/sh`;
    path = bin;
  } else {
    const dash = findTool("dash");
    if (dash === undefined) throw new Error("dash is required for this test but is not installed");
    shellPath = dash;
    path = `${bin}:/usr/local/bin:/usr/bin:/bin`;
  }
  const kubeconfig = await writeKubeconfig(`${root}/kubeconfig`, {
    server: server.url,
    user: "hook",
    namespace: "default",
  });
  const base = { PATH: path, HOME: home, TMPDIR: tmp, KUBECONFIG: kubeconfig, LANG: "C.UTF-8" };

  const start = (script: HookScript, env: Readonly<Record<string, string>>): RunningHook => {
    const child = new Deno.Command(shellPath, {
      args: ["-c", hookScript(script)],
      cwd: root,
      clearEnv: true,
      env: { ...base, ...env },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let exited = false;
    const done = child.output().then((output) => {
      exited = true;
      const decoder = new TextDecoder();
      const stdout = decoder.decode(output.stdout);
      const stderr = decoder.decode(output.stderr);
      return { code: output.code, stdout, stderr, output: stdout + stderr };
    });
    return { done, finished: () => exited };
  };

  return {
    start,
    run: (script, env) => start(script, env).done,
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

/** Lines of the result that do not start with {@linkcode PREFIX} (there should be none). */
export function unprefixedLines(result: HookResult): string[] {
  return result.output.split("\n").filter((line) => line !== "" && !line.startsWith(PREFIX));
}

/** A request the fake answered, as the tests look at it. */
export interface Request {
  readonly method: string;
  readonly path: string;
  /** The query parameters (labelSelector, …). */
  readonly query: Readonly<Record<string, string>>;
  readonly status: number;
  /** When it arrived (`Date.now()`). */
  readonly at: number;
  /** Whether it was a watch. */
  readonly watch: boolean;
  /** Its place in the audit log. */
  readonly index: number;
}

/**
 * The audit log's length now. A GET is answered and logged in one step, so a read logged at or after
 * this mark saw the state as it is now (or later).
 */
export function mark(server: FakeApiServer): number {
  return server.audit.length;
}

function requests(server: FakeApiServer, since: number): Request[] {
  return server.audit.map((entry, index) => ({ ...entry, index })).slice(since);
}

/** Requests that change state (POST, PUT, PATCH, DELETE) whose path matches `path`, from audit index `since`. */
export function writes(server: FakeApiServer, path: RegExp, since = 0): Request[] {
  return requests(server, since).filter((entry) =>
    entry.method !== "GET" && entry.method !== "HEAD" && path.test(entry.path)
  );
}

/** Reads (GET, not watches) whose path matches `path`, from audit index `since`. */
export function reads(server: FakeApiServer, path: RegExp, since = 0): Request[] {
  return requests(server, since).filter((entry) =>
    entry.method === "GET" && !entry.watch && path.test(entry.path)
  );
}
