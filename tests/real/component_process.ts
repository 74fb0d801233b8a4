/**
 * A real component running as a child process (etcd, kube-apiserver, CoreDNS, external-dns,
 * BIND): its output kept in full in a log file of the stack's folder and its last lines in memory,
 * so every failure to start, every unexpected exit and every test that gives up on it can show
 * what the component said. Readiness is a condition polled with a deadline, never a sleep.
 *
 * Effects: spawns and signals processes, writes the log file.
 *
 * @module
 */

import { lastLines } from "./build.ts";

/** A running component. */
export interface ComponentProcess extends AsyncDisposable {
  readonly name: string;
  readonly child: Deno.ChildProcess;
  /** The file holding everything it printed (stdout and stderr). */
  readonly logPath: string;
  /** Everything it printed so far. */
  output(): string;
  /** Whether it has exited. */
  exited(): boolean;
  /** Resolves when it exits. */
  readonly status: Promise<Deno.CommandStatus>;
  /** Sends a signal (ignored once it has exited). */
  kill(signal?: Deno.Signal): void;
  /** Stops it (SIGTERM, then SIGKILL after `graceMs`) and waits for it. */
  stop(graceMs?: number): Promise<void>;
  /** An error naming the component, `what` went wrong, and its last lines of output. */
  failure(what: string): Error;
}

/** How to start a component. */
export interface ComponentSpec {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Folder for the log file. */
  readonly dir: string;
  readonly env?: Record<string, string>;
  readonly cwd?: string;
  /**
   * Resolves once the component is ready, throws if it cannot become so; `true` from the
   * condition means ready. Polled every 50 ms until `readyTimeoutMs`.
   */
  readonly ready: () => Promise<boolean> | boolean;
  /** Default 60 s. */
  readonly readyTimeoutMs?: number;
}

async function pump(stream: ReadableStream<Uint8Array>, sink: (text: string) => void): Promise<void> {
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) sink(chunk);
}

/**
 * Starts a component and waits until it is ready. Throws, with its last lines of output, when it
 * exits first or the deadline passes; it is stopped then.
 */
export async function startComponent(spec: ComponentSpec): Promise<ComponentProcess> {
  const logPath = `${spec.dir}/${spec.name}.log`;
  const log = await Deno.open(logPath, { create: true, append: true });
  const child = new Deno.Command(spec.command, {
    args: [...spec.args],
    ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
    ...(spec.env === undefined ? {} : { env: spec.env }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  const encoder = new TextEncoder();
  const sink = (chunk: string) => {
    text += chunk;
    // Keep memory bounded: a long run keeps the last 256 KiB here; the file has it all.
    if (text.length > 512 * 1024) text = text.slice(-256 * 1024);
    log.writeSync(encoder.encode(chunk));
  };
  const pumps = Promise.all([pump(child.stdout, sink), pump(child.stderr, sink)]);
  let exited = false;
  const status = Promise.all([child.status, pumps]).then(([s]) => {
    exited = true;
    log.close();
    return s;
  });
  const failure = (what: string) =>
    new Error(`${spec.name} ${what}; its last lines (all in ${logPath}):\n${lastLines(text, 25)}`);
  const kill = (signal: Deno.Signal = "SIGTERM") => {
    if (exited) return;
    try {
      child.kill(signal);
    } catch { /* exited meanwhile */ }
  };
  const stop = async (graceMs = 5_000) => {
    if (exited) {
      await status;
      return;
    }
    kill("SIGTERM");
    const timer = setTimeout(() => kill("SIGKILL"), graceMs);
    try {
      await status;
    } finally {
      clearTimeout(timer);
    }
  };
  const process: ComponentProcess = {
    name: spec.name,
    child,
    logPath,
    output: () => text,
    exited: () => exited,
    status,
    kill,
    stop,
    failure,
    [Symbol.asyncDispose]: () => stop(),
  };
  const deadline = performance.now() + (spec.readyTimeoutMs ?? 60_000);
  try {
    while (true) {
      if (exited) {
        const { code, signal } = await status;
        throw failure(`exited (code ${code}${signal === null ? "" : `, ${signal}`}) before it was ready`);
      }
      let ready = false;
      try {
        ready = await spec.ready();
      } catch {
        ready = false;
      }
      if (ready) return process;
      if (performance.now() > deadline) {
        throw failure(`was not ready after ${Math.round((spec.readyTimeoutMs ?? 60_000) / 1000)} s`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } catch (error) {
    await stop(1_000);
    throw error;
  }
}
