/**
 * Process plumbing of the proxy benchmark: running a command for its output, reading child
 * output line by line, and /proc readings (RSS, CPU ticks, open descriptors, fd limit) summed
 * over a process and its descendants.
 *
 * Decision: /proc is read through `cat`/`ls`, because Deno treats /proc as a privileged path
 * that only `--allow-all` may read, and the bench permission set deliberately is not that.
 *
 * @module
 */

import { parseCpuTicks, parseOpenFilesLimit, parseVmRssKib } from "./bench_report.ts";
import { processTree } from "./proxy_bench_report.ts";

/** Loopback address every path listens on. */
export const HOST = "127.0.0.1";

/** Prints one line of the benchmark's report. */
export function print(line = ""): void {
  // deno-lint-ignore no-console
  console.log(line);
}

/** Runs `command` to completion; returns its exit code and stdout followed by stderr. */
export async function capture(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; text: string }> {
  const output = await new Deno.Command(command, {
    args: [...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: options.env }),
  }).output();
  const decoder = new TextDecoder();
  return { code: output.code, text: decoder.decode(output.stdout) + decoder.decode(output.stderr) };
}

/** Reads a byte stream line by line. */
export interface LineReader {
  /** The next line without its newline; undefined at the end of the stream. */
  next(): Promise<string | undefined>;
  cancel(): Promise<void>;
}

/** A {@linkcode LineReader} over `stream`. */
export function lineReader(stream: ReadableStream<Uint8Array>): LineReader {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return {
    async next(): Promise<string | undefined> {
      while (true) {
        const newline = buffer.indexOf("\n");
        if (newline >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          return line;
        }
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffer += value;
      }
    },
    async cancel(): Promise<void> {
      await reader.cancel().catch(() => {});
    },
  };
}

/**
 * `command args` wrapped so its soft descriptor limit is raised to the hard limit first
 * (`ulimit -Sn $(ulimit -Hn)`, then `exec`): the idle-connection test needs every descriptor
 * the machine grants, and the wrapper keeps the child's pid the program's own.
 */
export function withFdLimit(command: string, args: readonly string[]): [string, string[]] {
  return ["sh", ["-c", 'ulimit -Sn "$(ulimit -Hn)" && exec "$@"', "sh", command, ...args]];
}

/** The text of a /proc file. */
export async function readProc(path: string): Promise<string> {
  const { code, text } = await capture("cat", [path]);
  if (code !== 0) throw new Error(`cannot read ${path}: ${text}`);
  return text;
}

async function tree(pid: number): Promise<number[]> {
  const { code, text } = await capture("ps", ["-e", "-o", "pid=,ppid="]);
  if (code !== 0) throw new Error(`ps failed: ${text}`);
  return processTree(text, pid);
}

/** VmRSS in KiB of `pid` and its descendants. */
export async function rssKib(pid: number): Promise<number> {
  let total = 0;
  for (const each of await tree(pid)) total += parseVmRssKib(await readProc(`/proc/${each}/status`));
  return total;
}

/** utime + stime in clock ticks of `pid` and its descendants (all threads). */
export async function cpuTicks(pid: number): Promise<number> {
  let total = 0;
  for (const each of await tree(pid)) total += parseCpuTicks(await readProc(`/proc/${each}/stat`));
  return total;
}

/** Open descriptors of `pid` alone (the limit is per process). */
export async function openFds(pid: number): Promise<number> {
  const { code, text } = await capture("ls", ["-1", `/proc/${pid}/fd`]);
  if (code !== 0) throw new Error(`cannot list /proc/${pid}/fd: ${text}`);
  return text.split("\n").filter((line) => line.trim() !== "").length;
}

/** The soft descriptor limit of `pid`. */
export async function fdLimit(pid: number): Promise<number> {
  return parseOpenFilesLimit(await readProc(`/proc/${pid}/limits`));
}
