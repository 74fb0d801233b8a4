/**
 * The module floor for `deno task bench:controller`: loads the modules `ouroboros controller
 * --mode=coredns` loads (the entry point, the controller subcommand and the coredns mode), runs
 * none of them, says `ready` and waits until killed. Its resident memory less the empty
 * program's is what the controller's code costs before it holds any data.
 *
 * @module
 */

import "../../main.ts";
import "../../lib/controller/controller_command.ts";
import "../../lib/controller/modes/coredns/coredns_mode.ts";

// deno-lint-ignore no-console
console.log("ready");
setInterval(() => {}, 1 << 30);
