/**
 * The error for an API answer of the wrong shape. Lists and watches report bad items as rejected
 * instead; single-object calls have nothing else to return.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** The server answered, but not with something we can use. */
export class KubeDecodeError extends Error {
  readonly request: string;

  constructor(request: string, reason: string) {
    super(`${request}: cannot decode the answer: ${reason}`);
    this.name = "KubeDecodeError";
    this.request = request;
  }
}
