/**
 * The credential the transport asks for before each request (`Authorization`, or a client
 * certificate). Sources cache it and are told of a 401, so a rotated token is picked up at once.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** A PEM certificate chain and its private key, presented during the TLS handshake. */
export interface ClientCertificate {
  readonly cert: string;
  readonly key: string;
}

/** The credential to present on one request. */
export interface Credential {
  /** The whole header value: `Bearer <token>` or `Basic <base64>`. */
  readonly authorization?: string;
  readonly clientCertificate?: ClientCertificate;
}

/** Where credentials come from: a fixed token, a token file, an exec plugin. */
export interface CredentialSource {
  /** For logs and errors; never contains a secret. */
  readonly description: string;
  /** The credential to use now; reads its source only when the cached one is due. */
  current(signal?: AbortSignal): Promise<Credential>;
  /** The server answered 401: the next {@linkcode current} must fetch a fresh credential. */
  invalidate(): void;
}

/** A credential could not be obtained (unreadable token file, failing exec plugin). */
export class KubeCredentialError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "KubeCredentialError";
  }
}

/** `Bearer <token>`. */
export function bearer(token: string): string {
  return `Bearer ${token}`;
}

/** `Basic <base64(user:password)>`, UTF-8 encoded as the API server expects. */
export function basicAuth(username: string, password: string): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}

/** A source that always gives the same credential (a kubeconfig `token`, or a test's). */
export function staticCredentials(
  credential: Credential,
  description = "static credentials",
): CredentialSource {
  return {
    description,
    current: () => Promise.resolve(credential),
    invalidate: () => {},
  };
}
