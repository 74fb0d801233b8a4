/**
 * The runtime's own floor for `deno task bench:controller`: a Deno program that imports nothing,
 * says `ready` and waits until killed. Its resident memory is what any `deno run` costs before
 * our code loads.
 *
 * @module
 */

// deno-lint-ignore no-console
console.log("ready");
setInterval(() => {}, 1 << 30);
