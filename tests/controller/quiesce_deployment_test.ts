/**
 * quiesceDeployment against a stand-in client and an auto-advancing fake clock: it scales to 0,
 * polls the pods until none is left, gives up at its deadline naming what is left, and reports a
 * missing Deployment and a refused scale as outcomes (never a throw).
 *
 * @module
 */

import assert from "node:assert/strict";
import { quiesceDeployment } from "../../lib/controller/quiesce_deployment.ts";
import { KubeApiError } from "../../lib/kube/errors.ts";
import { FakeClock } from "../support/fake_clock.ts";

const TARGET = { namespace: "ouroboros", name: "ouroboros", selector: "app=ouroboros", timeoutMs: 5_000 };

/** A client whose scale answers `scaled` and whose lists answer the pod names of `lists` in turn. */
function client(scaled: Error | undefined, lists: readonly (readonly string[] | Error)[]) {
  const calls: string[] = [];
  let turn = 0;
  return {
    calls,
    api: {
      scale: (_type: unknown, ref: { name: string }, replicas: number) => {
        calls.push(`scale ${ref.name} ${replicas}`);
        return scaled === undefined ? Promise.resolve() : Promise.reject(scaled);
      },
      list: (_type: unknown, options: { labelSelector?: string }) => {
        calls.push(`list ${options.labelSelector}`);
        const answer = lists[Math.min(turn++, lists.length - 1)]!;
        if (answer instanceof Error) return Promise.reject(answer);
        return Promise.resolve({
          items: answer.map((name) => ({ metadata: { name } })),
          resourceVersion: "1",
        });
      },
    } as unknown as Parameters<typeof quiesceDeployment>[0],
  };
}

const apiError = (code: number, reason: string) =>
  new KubeApiError("PATCH scale", { code, reason, message: reason });

Deno.test("quiesce: scales to 0, then polls until no pod is left", async () => {
  const clock = new FakeClock({ autoAdvance: true });
  const { api, calls } = client(undefined, [["a", "b"], ["b"], []]);
  const outcome = await quiesceDeployment(api, TARGET, { clock, signal: new AbortController().signal });
  assert.deepEqual(outcome, { kind: "quiesced" });
  assert.deepEqual(calls, [
    "scale ouroboros 0",
    "list app=ouroboros",
    "list app=ouroboros",
    "list app=ouroboros",
  ]);
  assert.deepEqual(clock.sleeps, [1_000, 1_000]);
});

Deno.test("quiesce: at the deadline it names the pods left, or why they could not be listed", async () => {
  const stuck = client(undefined, [["a"]]);
  const clock = new FakeClock({ autoAdvance: true });
  assert.deepEqual(
    await quiesceDeployment(stuck.api, TARGET, { clock, signal: new AbortController().signal }),
    {
      kind: "timed-out",
      left: "1 pod(s) left: a",
    },
  );
  assert.equal(clock.sleeps.reduce((sum, ms) => sum + ms, 0), TARGET.timeoutMs);
  const unreadable = client(undefined, [apiError(403, "Forbidden")]);
  const outcome = await quiesceDeployment(unreadable.api, TARGET, {
    clock: new FakeClock({ autoAdvance: true }),
    signal: new AbortController().signal,
  });
  assert.equal(outcome.kind, "timed-out");
  assert.match(outcome.kind === "timed-out" ? outcome.left : "", /^pods unreadable: .*403 Forbidden/);
});

Deno.test("quiesce: a missing Deployment is absent once its pods are gone; a refused scale is not-scaled, and no pod is listed", async () => {
  const options = { clock: new FakeClock({ autoAdvance: true }), signal: new AbortController().signal };
  const missing = client(apiError(404, "NotFound"), [["a"], []]);
  assert.deepEqual(await quiesceDeployment(missing.api, TARGET, options), { kind: "absent" });
  assert.deepEqual(missing.calls, ["scale ouroboros 0", "list app=ouroboros", "list app=ouroboros"]);
  const refused = client(apiError(403, "Forbidden"), [[]]);
  const outcome = await quiesceDeployment(refused.api, TARGET, options);
  assert.equal(outcome.kind, "not-scaled");
  assert.deepEqual(refused.calls, ["scale ouroboros 0"]);
});
