import assert from "node:assert/strict";
import { type Refusal, REFUSAL_WORDING, refusalLine } from "../../lib/controller/refusal_wording.ts";
import type { RefusalScope } from "../../lib/controller/modes/sink.ts";

function refusal(scope: RefusalScope, problem = "end-before-begin", extra: Partial<Refusal> = {}): Refusal {
  return { kind: "refused", scope, problem, message: `${problem} on line 3`, ...extra };
}

Deno.test("refusalLine() rates a refusal by what it held back: ERROR when something was not written, WARN for a guard", () => {
  const levels = Object.fromEntries(
    (["nothing-written", "some-hosts", "guard"] as const).map((scope) => [
      scope,
      refusalLine(refusal(scope), undefined).level,
    ]),
  );
  assert.deepEqual(levels, { "nothing-written": "error", "some-hosts": "error", guard: "warn" });
  const line = refusalLine(refusal("guard", "mass-prune-guard"), undefined);
  assert.equal(line.message, REFUSAL_WORDING.guard.message);
  assert.deepEqual(line.properties, { problem: "mass-prune-guard", message: "mass-prune-guard on line 3" });
});

Deno.test("refusalLine() says a refusal once; its repeats are DEBUG until another problem comes", () => {
  const first = refusalLine(refusal("nothing-written"), undefined);
  const repeat = refusalLine(refusal("nothing-written"), first.identity);
  assert.deepEqual([repeat.level, repeat.message], ["debug", "write still refused; waiting for a change"]);
  assert.equal(repeat.identity, first.identity);
  const other = refusalLine(refusal("nothing-written", "configmap-too-large"), first.identity);
  assert.equal(other.level, "error", "a different problem is news");
  const rescoped = refusalLine(refusal("guard"), first.identity);
  assert.equal(rescoped.level, "warn", "the same problem with another scope is news");
});
