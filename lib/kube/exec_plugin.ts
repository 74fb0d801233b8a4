/**
 * Credentials from an exec plugin (`aws eks get-token`, `kubelogin`, …), cached until shortly
 * before their expiry or a 401. Concurrent requests share one run.
 *
 * Effects: runs the plugin (`Deno.Command`); time from the injected clocks; logs.
 *
 * @module
 */

import { type Clock, systemClock } from "../util/clock.ts";
import { type Log, logger } from "../util/logging.ts";
import { bearer, type Credential, type CredentialSource, KubeCredentialError } from "./credentials.ts";
import { type ExecClusterInfo, execInfo, type ExecResult, parseExecCredential } from "./exec_credential.ts";
import type { ExecConfig } from "./kubeconfig.ts";
import { errorMessage } from "../util/error_message.ts";

/** Re-run this long before the credential expires, so no request carries an expired token. */
export const EXEC_REFRESH_MARGIN_MS = 10_000;

/** A plugin that has not answered after this long is killed. */
export const EXEC_TIMEOUT_MS = 60_000;

/** Options for {@linkcode ExecCredentialSource}. */
export interface ExecPluginOptions {
  /** Sent in `KUBERNETES_EXEC_INFO` when the kubeconfig sets `provideClusterInfo`. */
  readonly cluster?: ExecClusterInfo;
  /** Unix milliseconds, compared with the expiry. @default Date.now */
  readonly now?: () => number;
  readonly clock?: Clock;
  readonly timeoutMs?: number;
  readonly refreshMarginMs?: number;
  readonly log?: Log;
}

function toCredential(result: ExecResult): Credential {
  return {
    ...(result.token === undefined ? {} : { authorization: bearer(result.token) }),
    ...(result.clientCertificate === undefined ? {} : { clientCertificate: result.clientCertificate }),
  };
}

/** Runs an exec credential plugin and caches its answer until it is about to expire. */
export class ExecCredentialSource implements CredentialSource {
  readonly description: string;
  readonly #config: ExecConfig;
  readonly #options: ExecPluginOptions;
  readonly #log: Log;
  #cached: { readonly credential: Credential; readonly expiresAt?: number } | undefined;
  #running: Promise<Credential> | undefined;

  /** Checks the configuration; runs nothing yet. */
  constructor(config: ExecConfig, options: ExecPluginOptions = {}) {
    if (config.interactiveMode === "Always") {
      throw new KubeCredentialError(
        `exec plugin ${config.command} requires an interactive terminal (interactiveMode: Always), which a controller never has`,
      );
    }
    this.#config = config;
    this.#options = options;
    this.#log = options.log ?? logger("kube");
    this.description = `exec plugin ${config.command}`;
  }

  /** The cached credential while valid, else a run all callers share (so no caller's signal). */
  current(): Promise<Credential> {
    const cached = this.#cached;
    const now = (this.#options.now ?? Date.now)();
    const margin = this.#options.refreshMarginMs ?? EXEC_REFRESH_MARGIN_MS;
    if (cached !== undefined && (cached.expiresAt === undefined || now < cached.expiresAt - margin)) {
      return Promise.resolve(cached.credential);
    }
    this.#running ??= this.#run().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** The server refused the credential: run the plugin again on the next request. */
  invalidate(): void {
    this.#cached = undefined;
  }

  async #run(): Promise<Credential> {
    const config = this.#config;
    const clock = this.#options.clock ?? systemClock;
    const deadline = new AbortController();
    const stopTimer = new AbortController();
    void clock.sleep(this.#options.timeoutMs ?? EXEC_TIMEOUT_MS, stopTimer.signal).then((passed) => {
      if (passed) deadline.abort();
    });
    const env: Record<string, string> = {
      KUBERNETES_EXEC_INFO: execInfo(
        config.apiVersion,
        config.provideClusterInfo ? this.#options.cluster : undefined,
      ),
    };
    for (const { name, value } of config.env) env[name] = value;
    let output: Deno.CommandOutput;
    try {
      output = await new Deno.Command(config.command, {
        args: [...config.args],
        env,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        signal: deadline.signal,
      }).output();
    } catch (error) {
      const hint = config.installHint === undefined ? "" : `\n${config.installHint}`;
      throw new KubeCredentialError(
        `cannot run exec plugin ${config.command}: ${errorMessage(error)}${hint}`,
        { cause: error },
      );
    } finally {
      stopTimer.abort();
    }
    const stderr = new TextDecoder().decode(output.stderr).trim().slice(0, 2000);
    if (deadline.signal.aborted) {
      throw new KubeCredentialError(`exec plugin ${config.command} did not answer within its deadline`);
    }
    if (!output.success) {
      throw new KubeCredentialError(
        `exec plugin ${config.command} failed with exit code ${output.code}${
          stderr === "" ? "" : `: ${stderr}`
        }`,
      );
    }
    const parsed = parseExecCredential(new TextDecoder().decode(output.stdout), config.apiVersion);
    if (!parsed.ok) throw new KubeCredentialError(`exec plugin ${config.command}: ${parsed.reason}`);
    const credential = toCredential(parsed.value);
    this.#cached = {
      credential,
      ...(parsed.value.expiresAt === undefined ? {} : { expiresAt: parsed.value.expiresAt }),
    };
    this.#log.debug("exec plugin supplied a credential", {
      command: config.command,
      expiresAt: parsed.value.expiresAt === undefined
        ? "never"
        : new Date(parsed.value.expiresAt).toISOString(),
    });
    return credential;
  }
}
