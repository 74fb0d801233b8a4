import assert from "node:assert/strict";
import {
  classifyProbeFailure,
  describeProbeFailure,
  type ProbeFailure,
  type ProbePhase,
} from "../../../lib/doctor/probes/probe_failure.ts";

function coded(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

Deno.test("classifyProbeFailure: Deno's and node's socket errors mean the same failures", () => {
  const cases: readonly [string, unknown, ProbePhase, ProbeFailure][] = [
    ["Deno refused", new Deno.errors.ConnectionRefused("refused"), "connect", { kind: "refused" }],
    ["node refused", coded("ECONNREFUSED"), "connect", { kind: "refused" }],
    ["Deno reset", new Deno.errors.ConnectionReset("reset"), "answer", { kind: "reset" }],
    ["node reset", coded("ECONNRESET", "socket hang up"), "answer", { kind: "reset" }],
    ["broken pipe while writing", new Deno.errors.BrokenPipe("broken pipe"), "answer", { kind: "reset" }],
    ["EPIPE", coded("EPIPE"), "answer", { kind: "reset" }],
    ["aborted by the peer", new Deno.errors.ConnectionAborted("aborted"), "answer", { kind: "reset" }],
    ["EOF", new Deno.errors.UnexpectedEof("eof"), "answer", { kind: "closed" }],
    ["timed out connecting", new Deno.errors.TimedOut("timed out"), "connect", { kind: "connect-timeout" }],
    ["timed out answering", coded("ETIMEDOUT"), "answer", { kind: "answer-timeout" }],
    [
      "no route",
      coded("EHOSTUNREACH", "No route to host"),
      "connect",
      { kind: "unreachable", detail: "No route to host" },
    ],
    [
      "network unreachable",
      coded("ENETUNREACH", "Network is unreachable"),
      "connect",
      { kind: "unreachable", detail: "Network is unreachable" },
    ],
    ["anything else keeps its message", new TypeError("bad port"), "connect", {
      kind: "error",
      message: "bad port",
    }],
    ["a thrown string", "boom", "answer", { kind: "error", message: "boom" }],
  ];
  for (const [name, error, phase, expected] of cases) {
    assert.deepEqual(classifyProbeFailure(error, phase), expected, name);
  }
});

Deno.test("describeProbeFailure: every failure names the address, time-outs the time allowed", () => {
  const options = { address: "10.96.0.50:443", timeoutMs: 5_000 };
  const failures: readonly ProbeFailure[] = [
    { kind: "refused" },
    { kind: "unreachable", detail: "No route to host" },
    { kind: "connect-timeout" },
    { kind: "answer-timeout" },
    { kind: "closed" },
    { kind: "reset" },
    { kind: "handshake-failed", message: "wrong version number" },
    { kind: "aborted" },
    { kind: "error", message: "bad port" },
  ];
  const texts = failures.map((failure) => describeProbeFailure(failure, options));
  for (const text of texts) assert.match(text, /10\.96\.0\.50:443/);
  assert.match(texts[2] ?? "", /within 5s/);
  assert.match(texts[3] ?? "", /connected .* no answer came within 5s/);
  assert.match(texts[4] ?? "", /closed without an answer/);
  assert.match(texts[5] ?? "", /reset without an answer/);
  assert.equal(new Set(texts).size, texts.length, "no two failures read the same");
});
