/**
 * A bearer token read from a file (the service-account token or a kubeconfig `tokenFile`),
 * re-read every minute as client-go does (the kubelet rotates it) and at once after a 401.
 *
 * Effects: reads the file; time from the injected clock; logs through the injected log.
 *
 * @module
 */

import { type Clock, systemClock } from "../util/clock.ts";
import { type Log, logger } from "../util/logging.ts";
import { bearer, type Credential, type CredentialSource, KubeCredentialError } from "./credentials.ts";
import { errorMessage } from "../util/error_message.ts";

/** How often the file is re-read. */
export const TOKEN_FILE_REFRESH_MS = 60_000;

/** Options for {@linkcode TokenFileSource}. */
export interface TokenFileOptions {
  readonly clock?: Clock;
  readonly refreshMs?: number;
  readonly log?: Log;
}

type TokenState =
  | { readonly kind: "unread" }
  | { readonly kind: "read"; readonly credential: Credential; readonly readAt: number }
  | { readonly kind: "refused"; readonly credential: Credential };

/** Reads a token file, caching it for {@linkcode TOKEN_FILE_REFRESH_MS}. */
export class TokenFileSource implements CredentialSource {
  readonly description: string;
  readonly #path: string;
  readonly #clock: Clock;
  readonly #refreshMs: number;
  readonly #log: Log;
  #state: TokenState = { kind: "unread" };
  #reading: Promise<Credential> | undefined;

  constructor(path: string, options: TokenFileOptions = {}) {
    this.#path = path;
    this.description = `token file ${path}`;
    this.#clock = options.clock ?? systemClock;
    this.#refreshMs = options.refreshMs ?? TOKEN_FILE_REFRESH_MS;
    this.#log = options.log ?? logger("kube");
  }

  /** The cached token while fresh, else the file's; a failed re-read keeps the old one, warning. */
  current(): Promise<Credential> {
    const state = this.#state;
    if (state.kind === "read" && this.#clock.now() - state.readAt < this.#refreshMs) {
      return Promise.resolve(state.credential);
    }
    this.#reading ??= this.#read().finally(() => {
      this.#reading = undefined;
    });
    return this.#reading;
  }

  /** Forces a re-read on the next request (the server refused the token). */
  invalidate(): void {
    if (this.#state.kind === "read") this.#state = { kind: "refused", credential: this.#state.credential };
  }

  async #read(): Promise<Credential> {
    const readAt = this.#clock.now();
    try {
      const token = (await Deno.readTextFile(this.#path)).trim();
      if (token === "") throw new Error("the file is empty");
      const credential = { authorization: bearer(token) };
      this.#state = { kind: "read", credential, readAt };
      return credential;
    } catch (error) {
      const previous = this.#state;
      if (previous.kind !== "unread") {
        this.#log.warn("cannot re-read the token file; using the previous token", {
          path: this.#path,
          error: errorMessage(error),
        });
        // Try again at the next period, not on every request.
        this.#state = { kind: "read", credential: previous.credential, readAt };
        return previous.credential;
      }
      throw new KubeCredentialError(
        `cannot read the token file ${this.#path}: ${errorMessage(error)}`,
        { cause: error },
      );
    }
  }
}
