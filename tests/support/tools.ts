/**
 * External programs the tests use as real peers (nginx, HAProxy, curl, python3, prlimit), and
 * the skip rule: a missing tool skips its tests with a printed reason, except under `CI=true`,
 * where the tests run anyway and fail loudly, because `.ci/run` installs every tool.
 *
 * @module
 */

const SEARCH_PATH = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];

/** Full path of an executable, looked up in PATH and the usual sbin folders. */
export function findTool(name: string): string | undefined {
  const path = (Deno.env.get("PATH") ?? "").split(":").filter((dir) => dir !== "");
  for (const dir of [...path, ...SEARCH_PATH]) {
    try {
      const candidate = `${dir}/${name}`;
      const info = Deno.statSync(candidate);
      if (info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) return candidate;
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}

/** True when running under CI, where nothing may be skipped. */
export const IN_CI = Deno.env.get("CI") === "true";

/**
 * Decides whether tests needing `tools` should be ignored. Prints why when they are. Under
 * `CI=true` it never ignores; the tests then fail on the missing tool with a clear error.
 *
 * @example
 * ```ts
 * Deno.test({ name: "…", ignore: skipWithout("nginx tests", ["nginx", "curl"]), fn: … });
 * ```
 */
export function skipWithout(what: string, tools: readonly string[]): boolean {
  const missing = tools.filter((tool) => findTool(tool) === undefined);
  if (missing.length === 0) return false;
  if (IN_CI) return false;
  // deno-lint-ignore no-console
  console.log(`SKIP ${what}: ${missing.join(", ")} not installed (run .ci/run, or install them with apt)`);
  return true;
}

/** The path of a tool the test cannot run without; throws a clear error when it is missing. */
export function requireTool(name: string): string {
  const found = findTool(name);
  if (found === undefined) {
    throw new Error(`${name} is required for this test but is not installed (see .ci/run)`);
  }
  return found;
}
