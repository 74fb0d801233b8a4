/**
 * The source revision this build was made from, for `ouroboros version` and
 * `ouroboros_build_info{revision}`.
 *
 * Decision: a module of its own with no imports, so proxy workers (which may read only `lib/`
 * under `-P=proxy`, not `deno.json`) can load the metrics that name it. The Containerfile's
 * build stage stamps the line below (`sed`, checked by tests/containerfile_test.ts) before
 * `deno task compile`; running from source reports `unknown`.
 *
 * Pure: a constant.
 *
 * @module
 */

/** Source revision (a git commit); `unknown` unless the image build stamped it. */
export const REVISION = "unknown";
