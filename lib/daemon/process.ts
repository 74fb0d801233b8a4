/**
 * Process-level effects shared by the subcommands: reading declared environment variables,
 * printing (re-exported from `util/stdio.ts`), permission revocation and signal handling.
 *
 * @module
 */

import { envName, type OptionSpec, type OptionTable } from "../cli/options.ts";

export { printStderr, printStdout } from "../util/stdio.ts";

/**
 * An environment lookup that reads only the variables a table declares, so a subcommand needs
 * permission for its own variables and nothing else.
 */
export function declaredEnv<T extends Record<string, OptionSpec<unknown>>>(
  table: OptionTable<T>,
): (name: string) => string | undefined {
  const declared = new Set<string>();
  for (const spec of Object.values(table.options)) {
    const name = envName(table.command, spec);
    if (name !== null) declared.add(name);
  }
  return (name) => (declared.has(name) ? Deno.env.get(name) : undefined);
}

/** Reads a small text file, or `undefined` when it is missing or not readable. */
export function readTextOrUndefined(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return undefined;
  }
}

/** Permission names a subcommand can give up once it has started. */
export type RevocablePermission = "read" | "write" | "env" | "run" | "ffi" | "sys" | "import";

/**
 * Gives up permissions for the rest of the process, so a compiled binary that was granted the
 * union of every subcommand's needs keeps only what the running subcommand uses.
 */
export function revokePermissions(names: readonly RevocablePermission[]): void {
  for (const name of names) Deno.permissions.revokeSync({ name });
}

/** Signals that drive a graceful shutdown: the first SIGTERM/SIGINT, then a second one. */
export interface ShutdownController {
  readonly shutdown: AbortSignal;
  readonly force: AbortSignal;
  /** Which signal started the shutdown, once one has. */
  readonly received: () => Deno.Signal | undefined;
  /** Removes the signal handlers. */
  dispose(): void;
}

/** Installs SIGTERM and SIGINT handlers: the first aborts `shutdown`, the second `force`. */
export function installShutdownSignals(): ShutdownController {
  const shutdown = new AbortController();
  const force = new AbortController();
  let received: Deno.Signal | undefined;
  const handlers = (["SIGTERM", "SIGINT"] as const).map((signal) => {
    const handler = () => {
      if (!shutdown.signal.aborted) {
        received = signal;
        shutdown.abort();
      } else {
        force.abort();
      }
    };
    Deno.addSignalListener(signal, handler);
    return [signal, handler] as const;
  });
  return {
    shutdown: shutdown.signal,
    force: force.signal,
    received: () => received,
    dispose() {
      for (const [signal, handler] of handlers) Deno.removeSignalListener(signal, handler);
    },
  };
}
