/**
 * Runs `hosts_writer_script.ts` as a child process, optionally inside a fresh user and mount
 * namespace (`unshare -Urm`) after a shell set-up of mounts, and optionally kills it with SIGKILL
 * where it pauses. Also decides whether the namespace tests can run on this machine.
 *
 * @module
 */

import { IN_CI, requireTool, skipWithout } from "../../../support/tools.ts";
import type { WriterReport, WriterRequest } from "./hosts_writer_script.ts";

const SCRIPT = new URL("./hosts_writer_script.ts", import.meta.url).pathname;
const REPO = new URL("../../../../", import.meta.url).pathname;

/** How to run the writer. */
export interface WriterRun {
  /** Shell commands run inside `unshare -Urm` before the writer (mounts). None: no namespace. */
  readonly namespaceSetup?: string;
  /** Kill the writer with SIGKILL when it reports that it paused. */
  readonly killWhenPaused?: boolean;
}

/** What the run produced. */
export interface WriterResult {
  readonly reports: readonly WriterReport[];
  readonly code: number;
  readonly signal: Deno.Signal | null;
  readonly stderr: string;
}

/**
 * Runs the writer and collects its reports.
 *
 * @example
 * ```ts
 * const run = await runWriter({ path, ip: "10.96.0.10", steps: [{ hosts: ["a.example.com"] }] });
 * ```
 */
export async function runWriter(request: WriterRequest, options: WriterRun = {}): Promise<WriterResult> {
  const deno = [
    Deno.execPath(),
    "run",
    "--no-prompt",
    "--allow-read",
    "--allow-write",
    "--allow-env",
    SCRIPT,
    JSON.stringify(request),
  ];
  const argv = options.namespaceSetup === undefined ? deno : [
    requireTool("unshare"),
    "-Urm",
    "sh",
    "-c",
    `set -e; ${options.namespaceSetup}; exec "$@"`,
    "sh",
    ...deno,
  ];
  const [command = "", ...args] = argv;
  const child = new Deno.Command(command, {
    args,
    cwd: REPO,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  })
    .spawn();
  const stderr = new Response(child.stderr).text();
  const reports: WriterReport[] = [];
  let buffer = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const report = JSON.parse(buffer.slice(0, newline)) as WriterReport;
      buffer = buffer.slice(newline + 1);
      reports.push(report);
      if ("paused" in report && options.killWhenPaused === true) child.kill("SIGKILL");
    }
  }
  await child.stdin.close();
  const status = await child.status;
  return { reports, code: status.code, signal: status.signal, stderr: await stderr };
}

/**
 * Whether the namespace tests must be skipped: `unshare` or `mount` missing, or the kernel
 * refusing user namespaces, outside CI. Under `CI=true` nothing is skipped, so a CI machine
 * without namespaces fails these tests loudly instead of passing without running them.
 */
export async function skipWithoutNamespaces(what: string): Promise<boolean> {
  if (skipWithout(what, ["unshare", "mount"])) return true;
  if (IN_CI) return false;
  const unshare = requireTool("unshare");
  const probe = await new Deno.Command(unshare, { args: ["-Urm", "true"], stdout: "null", stderr: "piped" })
    .output();
  if (probe.success) return false;
  const why = new TextDecoder().decode(probe.stderr).trim();
  // deno-lint-ignore no-console
  console.log(`SKIP ${what}: this kernel refuses user and mount namespaces (unshare -Urm: ${why})`);
  return true;
}
