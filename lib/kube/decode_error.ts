/**
 * The error for an answer from the API server that does not have the expected shape (an object
 * a decoder refuses, a list without `items`). Lists and watches never throw it: they report
 * undecodable items as rejected and carry on; single-object calls have nothing else to return.
 *
 * Pure: an error class.
 *
 * @module
 */

/** The server answered, but not with something we can use. */
export class KubeDecodeError extends Error {
  /** `GET /api/v1/…`, for messages. */
  readonly request: string;

  /** `reason` is the decoder's explanation, naming the field. */
  constructor(request: string, reason: string) {
    super(`${request}: cannot decode the answer: ${reason}`);
    this.name = "KubeDecodeError";
    this.request = request;
  }
}
