/**
 * The error for cluster configuration that cannot work, raised while loading, before any request.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** Cluster configuration is missing, malformed, or asks for something unsupported. */
export class KubeConfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "KubeConfigError";
  }
}
