/**
 * HTTP to the API server: TLS, credentials (one retry with fresh ones after a 401), a deadline on
 * every request but watches, and failures typed as {@linkcode KubeApiError} (the server answered
 * an error status) or {@linkcode KubeTransportError} (it did not answer).
 *
 * Effects: HTTP through `fetch` and `Deno.createHttpClient`; time from the injected clock; logs.
 *
 * @module
 */

import { type Clock, systemClock } from "../util/clock.ts";
import { type Log, logger } from "../util/logging.ts";
import { VERSION } from "../util/version.ts";
import type { ClientCertificate, Credential, CredentialSource } from "./credentials.ts";
import { KubeApiError, KubeTransportError, statusFromResponse } from "./errors.ts";
import type { KubeRequestRecorder } from "./request_metrics.ts";
import { requestVerb } from "./request_metrics.ts";
import { transportErrorKind } from "./transport_error.ts";

/** The deadline of a request when none is given: long enough for a 10,000-item list page. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** Sent on every request, so API server audit logs show who we are. */
export const USER_AGENT = `ouroboros/${VERSION}`;

/** Options for {@linkcode Transport}. */
export interface TransportOptions {
  /** `https://host:port`, or `http://` for a local test server. */
  readonly server: string;
  /** PEM certificates trusted in addition to the system roots. */
  readonly caCerts?: readonly string[];
  readonly clientCertificate?: ClientCertificate;
  readonly credentials?: CredentialSource;
  /** An HTTP(S) or SOCKS5 proxy for every request. */
  readonly proxyUrl?: string;
  /** Deadline of each non-watch request. @default 30_000 */
  readonly timeoutMs?: number;
  readonly userAgent?: string;
  readonly clock?: Clock;
  readonly log?: Log;
  /** Leader election's fence: asked before every write (retries too); throwing stops it. */
  readonly writeFence?: (request: string) => void;
  /** Told of every HTTP request sent, retries included. */
  readonly requests?: KubeRequestRecorder;
}

/** What an endpoint behind the API server answered: its status and body, as they came. */
export interface TextAnswer {
  readonly status: number;
  readonly text: string;
}

/** The HTTP methods the client uses. */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One request. */
export interface TransportRequest {
  readonly method: HttpMethod;
  readonly path: string;
  /** `undefined` values are left out. */
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly body?: unknown;
  /** @default `application/json` when there is a body */
  readonly contentType?: string;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  /** How errors name the request (`LIST`, `WATCH`). @default the method */
  readonly verb?: string;
}

function deadlineReason(ms: number): DOMException {
  return new DOMException(`no answer within ${ms} ms`, "TimeoutError");
}

function certificateKey(certificate: ClientCertificate): string {
  return `${certificate.cert}\u0000${certificate.key}`;
}

/** The base client (`undefined`: the runtime's) and one for an exec plugin's certificate. */
type Clients =
  | {
    readonly kind: "open";
    readonly base: Deno.HttpClient | undefined;
    readonly plugin?: { readonly key: string; readonly client: Deno.HttpClient };
  }
  | { readonly kind: "closed" };

/** Sends requests to one API server. Close it to release its TLS clients. */
export class Transport {
  /** Without a trailing slash. */
  readonly server: string;
  readonly #options: TransportOptions;
  readonly #clock: Clock;
  readonly #timeoutMs: number;
  readonly #userAgent: string;
  readonly #log: Log;
  #clients: Clients;

  /** Creates the TLS client now, so a bad CA or key fails here rather than on the first request. */
  constructor(options: TransportOptions) {
    let url: URL;
    try {
      url = new URL(options.server);
    } catch {
      throw new TypeError(`server is not a URL: ${JSON.stringify(options.server)}`);
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      throw new TypeError(`server must be an https:// or http:// URL, not ${JSON.stringify(options.server)}`);
    }
    this.server = options.server.replace(/\/+$/, "");
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#userAgent = options.userAgent ?? USER_AGENT;
    this.#log = options.log ?? logger("kube");
    const needsClient = (options.caCerts?.length ?? 0) > 0 || options.clientCertificate !== undefined ||
      options.proxyUrl !== undefined;
    this.#clients = {
      kind: "open",
      base: needsClient ? this.#createClient(options.clientCertificate) : undefined,
    };
  }

  #createClient(certificate: ClientCertificate | undefined): Deno.HttpClient {
    const base: Deno.CreateHttpClientOptions = {
      caCerts: [...(this.#options.caCerts ?? [])],
      ...(this.#options.proxyUrl === undefined ? {} : { proxy: { url: this.#options.proxyUrl } }),
    };
    try {
      return certificate === undefined
        ? Deno.createHttpClient(base)
        : Deno.createHttpClient({ ...base, cert: certificate.cert, key: certificate.key });
    } catch (error) {
      throw new KubeTransportError(`TLS set-up for ${this.server}`, "tls", error);
    }
  }

  #clientFor(credential: Credential, description: string): Deno.HttpClient | undefined {
    const clients = this.#clients;
    if (clients.kind === "closed") {
      throw new KubeTransportError(description, "other", new Error("the client is closed"));
    }
    const certificate = credential.clientCertificate;
    if (certificate === undefined) return clients.base;
    const key = certificateKey(certificate);
    if (clients.plugin?.key === key) return clients.plugin.client;
    // Requests already running keep their connections when the old client is closed.
    clients.plugin?.client.close();
    const plugin = { key, client: this.#createClient(certificate) };
    this.#clients = { kind: "open", base: clients.base, plugin };
    return plugin.client;
  }

  #url(request: TransportRequest): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) params.set(name, value);
    }
    const query = params.toString();
    return `${this.server}${request.path}${query === "" ? "" : `?${query}`}`;
  }

  async #fetch(request: TransportRequest, signal: AbortSignal, description: string): Promise<Response> {
    const credential = await this.#options.credentials?.current(signal) ?? {};
    const headers = new Headers({ accept: "application/json", "user-agent": this.#userAgent });
    if (credential.authorization !== undefined) headers.set("authorization", credential.authorization);
    let body: string | undefined;
    if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers.set("content-type", request.contentType ?? "application/json");
    }
    const client = this.#clientFor(credential, description);
    if (request.method !== "GET") this.#options.writeFence?.(description);
    const started = this.#clock.now();
    let status: number | undefined;
    try {
      const response = await fetch(this.#url(request), {
        method: request.method,
        headers,
        redirect: "manual",
        signal,
        ...(body === undefined ? {} : { body }),
        ...(client === undefined ? {} : { client }),
      });
      status = response.status;
      return response;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw new KubeTransportError(description, transportErrorKind(error), error);
    } finally {
      const seconds = (this.#clock.now() - started) / 1000;
      this.#options.requests?.record({ verb: requestVerb(request), path: request.path, status, seconds });
    }
  }

  async #apiError(response: Response, description: string): Promise<KubeApiError> {
    let body: unknown;
    try {
      const text = await response.text();
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      // Not JSON (a proxy's HTML page, a cut body): the status line is all there is.
      body = undefined;
    }
    return new KubeApiError(
      description,
      statusFromResponse(response.status, { body, retryAfter: response.headers.get("retry-after") }),
    );
  }

  async #exchange(request: TransportRequest, signal: AbortSignal, description: string): Promise<Response> {
    const response = await this.#send(request, signal, description);
    if (response.status < 200 || response.status > 299) throw await this.#apiError(response, description);
    return response;
  }

  /** Sends, and retries once with fresh credentials after a 401; any status is returned. */
  async #send(request: TransportRequest, signal: AbortSignal, description: string): Promise<Response> {
    let response = await this.#fetch(request, signal, description);
    const credentials = this.#options.credentials;
    if (response.status === 401 && credentials !== undefined) {
      await response.body?.cancel();
      credentials.invalidate();
      this.#log.info("the API server refused our credentials; refreshing them and retrying once", {
        request: description,
        credentials: credentials.description,
      });
      response = await this.#fetch(request, signal, description);
    }
    return response;
  }

  async #withDeadline<T>(
    request: TransportRequest,
    exchange: (signal: AbortSignal, description: string) => Promise<T>,
  ): Promise<T> {
    const description = `${request.verb ?? request.method} ${request.path}`;
    const timeoutMs = request.timeoutMs ?? this.#timeoutMs;
    const deadline = new AbortController();
    const stopTimer = new AbortController();
    void this.#clock.sleep(timeoutMs, stopTimer.signal).then((passed) => {
      if (passed) deadline.abort(deadlineReason(timeoutMs));
    });
    const signal = request.signal === undefined
      ? deadline.signal
      : AbortSignal.any([request.signal, deadline.signal]);
    try {
      return await exchange(signal, description);
    } catch (error) {
      if (deadline.signal.aborted && request.signal?.aborted !== true) {
        throw new KubeTransportError(description, "timeout", deadline.signal.reason);
      }
      throw error;
    } finally {
      stopTimer.abort();
    }
  }

  async #bodyText(response: Response, signal: AbortSignal, description: string): Promise<string> {
    try {
      return await response.text();
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw new KubeTransportError(description, transportErrorKind(error), error);
    }
  }

  /** GETs a proxied endpoint: its answer whatever the status; only a `Status` body rejects. */
  async text(request: TransportRequest & { readonly method: "GET" }): Promise<TextAnswer> {
    return await this.#withDeadline(request, async (signal, description) => {
      const response = await this.#send(request, signal, description);
      const text = await this.#bodyText(response, signal, description);
      const ok = response.status >= 200 && response.status <= 299;
      const json = (response.headers.get("content-type") ?? "").startsWith("application/json");
      if (!ok && json) {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        if ((body as { kind?: unknown } | undefined)?.kind === "Status") {
          throw new KubeApiError(
            description,
            statusFromResponse(response.status, { body, retryAfter: response.headers.get("retry-after") }),
          );
        }
      }
      return { status: response.status, text };
    });
  }

  /** Sends a request; its JSON answer (`undefined` for an empty body) within the deadline. */
  async json(request: TransportRequest): Promise<unknown> {
    return await this.#withDeadline(request, async (signal, description) => {
      const response = await this.#exchange(request, signal, description);
      const text = await this.#bodyText(response, signal, description);
      if (text === "") return undefined;
      try {
        return JSON.parse(text);
      } catch (error) {
        throw new KubeTransportError(
          description,
          "other",
          new Error("the answer is not JSON", { cause: error }),
        );
      }
    });
  }

  /** Opens a watch and returns its body, with no deadline; the caller must read or cancel it. */
  async stream(request: Omit<TransportRequest, "timeoutMs"> & { readonly signal: AbortSignal }): Promise<
    ReadableStream<Uint8Array>
  > {
    const description = `${request.verb ?? request.method} ${request.path}`;
    const response = await this.#exchange(request, request.signal, description);
    if (response.body === null) return new ReadableStream({ start: (controller) => controller.close() });
    return response.body;
  }

  /** Releases the TLS clients. Requests still running may finish; new ones fail. */
  close(): void {
    const clients = this.#clients;
    if (clients.kind === "closed") return;
    this.#clients = { kind: "closed" };
    clients.base?.close();
    clients.plugin?.client.close();
  }

  /** Same as {@linkcode close}, for `using`. */
  [Symbol.dispose](): void {
    this.close();
  }
}
