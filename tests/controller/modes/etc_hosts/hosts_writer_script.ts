/**
 * Test-only program: runs etc-hosts writes in a process of its own, so a test can run them inside
 * a private mount namespace, or kill the process with SIGKILL between two write steps.
 *
 * Usage: `deno run --allow-read --allow-write --allow-env hosts_writer_script.ts '<json>'` with
 * the JSON of {@linkcode WriterRequest}. Prints one JSON line per event ({@linkcode WriterReport});
 * exits 0 when every step ran (refusals, failures and rejections are reported, not thrown).
 *
 * @module
 */

import {
  cleanupHostsFile,
  type HostsCleanup,
} from "../../../../lib/controller/modes/etc_hosts/cleanup_hosts_file.ts";
import { EtcHostsSink } from "../../../../lib/controller/modes/etc_hosts/etc_hosts_sink.ts";
import type { HostsFileHooks } from "../../../../lib/controller/modes/etc_hosts/edit_hosts_file.ts";
import type { SinkOutcome } from "../../../../lib/controller/modes/sink.ts";

/** What the script should do. */
export interface WriterRequest {
  /** The hosts file to write. */
  readonly path: string;
  readonly ip: string;
  /** Reconciles (`hosts`) or a cleanup, in order. */
  readonly steps: ReadonlyArray<{ readonly hosts: readonly string[] } | { readonly cleanup: true }>;
  /**
   * Stop at this point of the first write: print `{"paused": …}` and wait for stdin to close (the
   * test kills the process instead).
   */
  readonly pauseAt?: keyof HostsFileHooks;
  /**
   * First try the temp-file-plus-rename write the original uses: create this file (next to the
   * target, normally), then rename it onto `path`.
   */
  readonly renameProbe?: string;
  /** Run the sink as `--dry-run` does. */
  readonly dryRun?: boolean;
}

/** One line of output. */
export type WriterReport =
  | { readonly probe: "rename"; readonly create: string; readonly rename: string }
  | { readonly paused: string }
  | {
    readonly step: number;
    readonly outcome: string;
    readonly detail: string;
    readonly ino: number | null;
    readonly size: number;
    /** The file after the step, one character per byte. */
    readonly content: string;
  };

function print(report: WriterReport): void {
  Deno.stdout.writeSync(new TextEncoder().encode(`${JSON.stringify(report)}\n`));
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : String(error);
}

/** What a refusal or a failure said, or a preview's diff; empty for anything else. */
function describe(result: HostsCleanup | SinkOutcome): string {
  if (result.kind === "refused") return `${result.problem}: ${result.message}`;
  if (result.kind === "failed") return result.message;
  if (result.kind === "previewed") return result.diff;
  return "";
}

async function main(): Promise<void> {
  const request = JSON.parse(Deno.args[0] ?? "{}") as WriterRequest;
  if (request.renameProbe !== undefined) {
    let create = "ok";
    let rename = "not tried";
    try {
      await Deno.writeTextFile(request.renameProbe, "127.0.0.1 localhost\n");
    } catch (error) {
      create = errorCode(error);
    }
    if (create === "ok") {
      try {
        await Deno.rename(request.renameProbe, request.path);
        rename = "ok";
      } catch (error) {
        rename = errorCode(error);
        await Deno.remove(request.renameProbe);
      }
    }
    print({ probe: "rename", create, rename });
  }

  let paused = false;
  const pause = async (name: string): Promise<void> => {
    if (paused) return;
    paused = true;
    print({ paused: name });
    const buffer = new Uint8Array(1);
    while ((await Deno.stdin.read(buffer)) !== null) {
      // Wait for the test to kill us.
    }
  };
  const hooks: HostsFileHooks = request.pauseAt === undefined
    ? {}
    : { [request.pauseAt]: () => pause(request.pauseAt as string) };
  const sink = new EtcHostsSink({
    path: request.path,
    proxyIp: request.ip,
    hooks,
    dryRun: request.dryRun ?? false,
  });
  for (const [index, step] of request.steps.entries()) {
    let outcome: string;
    let detail = "";
    try {
      if ("cleanup" in step) {
        const result = await cleanupHostsFile(request.path, { signal: AbortSignal.timeout(30_000), hooks });
        outcome = result.kind;
        detail = describe(result);
      } else {
        const result = await sink.reconcile(step.hosts, AbortSignal.timeout(30_000));
        outcome = result.kind;
        detail = describe(result);
      }
    } catch (error) {
      outcome = "error";
      detail = error instanceof Error ? error.message : String(error);
    }
    const info = await Deno.stat(request.path);
    const content = String.fromCharCode(...await Deno.readFile(request.path));
    print({ step: index, outcome, detail, ino: info.ino, size: info.size, content });
  }
}

await main();
