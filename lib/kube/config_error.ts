/**
 * The error for configuration that cannot work (a missing context, an unreadable CA file, an
 * option this runtime cannot honour), raised while loading, before any request is made.
 *
 * Pure: an error class.
 *
 * @module
 */

/** Cluster configuration is missing, malformed, or asks for something unsupported. */
export class KubeConfigError extends Error {
  /** `message` says what is wrong and where; `cause` keeps the underlying error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "KubeConfigError";
  }
}
