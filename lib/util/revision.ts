/**
 * The source revision this build was made from, for `ouroboros version` and build info.
 *
 * No imports, so proxy workers (which may not read `deno.json`) can load it. The Containerfile
 * stamps the line below before compiling (checked by tests/containerfile_test.ts).
 *
 * Pure: a constant.
 *
 * @module
 */

/** Source revision (a git commit); `unknown` unless the image build stamped it. */
export const REVISION = "unknown";
