import assert from "node:assert/strict";
import { KubeApiError, KubeTransportError, type StatusDetails } from "../../lib/kube/errors.ts";
import { classifyFailure, type RestartReason } from "../../lib/reflector/failure.ts";

function api(status: Partial<StatusDetails> & { code: number }): KubeApiError {
  return new KubeApiError("WATCH things", { reason: "", message: "m", ...status });
}

Deno.test("classifyFailure: statuses and transport errors map to restart reasons", async (t) => {
  const cases: readonly { name: string; error: unknown; reason: RestartReason; retryAfterMs?: number }[] = [
    { name: "410 Expired", error: api({ code: 410, reason: "Expired" }), reason: "expired" },
    { name: "410 Gone (servers before 1.18)", error: api({ code: 410, reason: "Gone" }), reason: "expired" },
    {
      name: "504 with cause ResourceVersionTooLarge",
      error: api({ code: 504, reason: "Timeout", causes: ["ResourceVersionTooLarge"] }),
      reason: "too-large",
    },
    { name: "504 without the cause", error: api({ code: 504, reason: "Timeout" }), reason: "server-error" },
    {
      name: "429 with Retry-After",
      error: api({ code: 429, reason: "TooManyRequests", retryAfterSeconds: 3 }),
      reason: "throttled",
      retryAfterMs: 3_000,
    },
    { name: "429 without Retry-After", error: api({ code: 429 }), reason: "throttled" },
    { name: "403", error: api({ code: 403, reason: "Forbidden" }), reason: "forbidden" },
    { name: "401", error: api({ code: 401, reason: "Unauthorized" }), reason: "unauthorized" },
    { name: "404", error: api({ code: 404, reason: "NotFound" }), reason: "not-found" },
    { name: "500", error: api({ code: 500, reason: "InternalError" }), reason: "server-error" },
    { name: "503", error: api({ code: 503, reason: "ServiceUnavailable" }), reason: "server-error" },
    { name: "400", error: api({ code: 400, reason: "BadRequest" }), reason: "api-error" },
    {
      name: "connection refused",
      error: new KubeTransportError("WATCH things", "refused", new Error("ECONNREFUSED")),
      reason: "transport",
    },
    {
      name: "reset mid-stream",
      error: new KubeTransportError("WATCH things", "reset", new Error("reset")),
      reason: "transport",
    },
    { name: "a plain error", error: new TypeError("bug"), reason: "error" },
    { name: "a thrown string", error: "weird", reason: "error" },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const failure = classifyFailure(c.error);
      assert.equal(failure.reason, c.reason);
      assert.equal(failure.retryAfterMs, c.retryAfterMs);
      assert.ok(failure.message.length > 0);
    });
  }
});
