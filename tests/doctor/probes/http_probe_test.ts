import assert from "node:assert/strict";
import {
  classifyHttpAnswer,
  type Dialer,
  httpProbe,
  type HttpProbeResult,
  MAX_ANSWER_BYTES,
  type ProbeConn,
} from "../../../lib/doctor/probes/http_probe.ts";
import { selfSignedCertificate } from "../../support/peer_configs.ts";
import { skipWithout } from "../../support/tools.ts";
import { refusingPort, startListener, startNginxIngress } from "../ingress_stand_ins.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("classifyHttpAnswer: a status line, too little yet, a hang-up, or not HTTP", () => {
  const cases: readonly [string, Uint8Array, boolean, HttpProbeResult | undefined][] = [
    ["status line with headers", bytes("HTTP/1.1 200 OK\r\nServer: nginx\r\n"), false, {
      kind: "answered",
      statusLine: "HTTP/1.1 200 OK",
      status: 200,
    }],
    ["bare LF and no reason", bytes("HTTP/1.0 404\n"), false, {
      kind: "answered",
      statusLine: "HTTP/1.0 404",
      status: 404,
    }],
    ["HTTP/2-style version", bytes("HTTP/2 503 Service Unavailable\r\n"), false, {
      kind: "answered",
      statusLine: "HTTP/2 503 Service Unavailable",
      status: 503,
    }],
    ["a line cut by the close", bytes("HTTP/1.1 400 Bad Request"), true, {
      kind: "answered",
      statusLine: "HTTP/1.1 400 Bad Request",
      status: 400,
    }],
    ["half a status line: wait", bytes("HTTP/1.1 2"), false, undefined],
    ["half the word HTTP: wait", bytes("HT"), false, undefined],
    ["nothing and no close: wait", bytes(""), false, undefined],
    ["nothing, then closed", bytes(""), true, { kind: "closed" }],
    ["a TLS alert", new Uint8Array([0x15, 0x03, 0x01, 0x00, 0x02, 0x02, 0x28]), false, {
      kind: "not-http",
      sample: "\\x15\\x03\\x01\\x00\\x02\\x02(",
    }],
    ["HTTP, but no status code", bytes("HTTP/1.1 OK\r\n"), false, {
      kind: "not-http",
      sample: "HTTP/1.1 OK\\x0d\\x0a",
    }],
    ["a line that never ends", bytes("HTTP/1.1 200 " + "x".repeat(MAX_ANSWER_BYTES)), false, {
      kind: "answered",
      statusLine: "HTTP/1.1 200 " + "x".repeat(MAX_ANSWER_BYTES),
      status: 200,
    }],
  ];
  for (const [name, input, ended, expected] of cases) {
    assert.deepEqual(classifyHttpAnswer(input, ended), expected, name);
  }
});

Deno.test("classifyHttpAnswer: any prefix of a status line waits, the whole line answers", () => {
  const line = "HTTP/1.1 301 Moved Permanently\r\n";
  for (let cut = 0; cut < line.indexOf("\n"); cut++) {
    assert.equal(classifyHttpAnswer(bytes(line.slice(0, cut)), false), undefined, `cut at ${cut}`);
  }
  assert.equal(classifyHttpAnswer(bytes(line), false)?.kind, "answered");
});

/** A connection that answers `reads` in turn (a string, null for EOF, or an error to throw). */
function scripted(reads: readonly (string | null | Error)[], written: string[] = []): ProbeConn {
  let next = 0;
  return {
    read(buffer) {
      const step = reads[next++];
      if (step instanceof Error) return Promise.reject(step);
      if (step === null || step === undefined) return Promise.resolve(null);
      const data = bytes(step);
      buffer.set(data);
      return Promise.resolve(data.length);
    },
    write(data) {
      written.push(new TextDecoder().decode(data));
      return Promise.resolve(data.length);
    },
    close() {},
  };
}

const probe = (dial: Dialer, signal = new AbortController().signal, timeoutMs = 2_000) =>
  httpProbe({ hostname: "10.96.0.50", port: 80 }, { host: "shop.example.com", timeoutMs, signal, dial });

Deno.test("httpProbe: sends one GET with the Host header and reads the status line across reads", async () => {
  const written: string[] = [];
  const result = await probe(() => Promise.resolve(scripted(["HTTP/1.1 4", "04 Not Found\r\n"], written)));
  assert.deepEqual(result, { kind: "answered", statusLine: "HTTP/1.1 404 Not Found", status: 404 });
  assert.match(
    written.join(""),
    /^GET \/ HTTP\/1\.1\r\nHost: shop\.example\.com\r\n.*Connection: close\r\n\r\n$/s,
  );
});

Deno.test("httpProbe: how the connection ended decides the failure", async () => {
  const reset = Object.assign(new Error("connection reset"), { code: "ECONNRESET" });
  assert.deepEqual(await probe(() => Promise.resolve(scripted([null]))), { kind: "closed" });
  assert.deepEqual(await probe(() => Promise.resolve(scripted([reset]))), { kind: "reset" });
  assert.deepEqual(
    await probe(() => Promise.reject(new Deno.errors.ConnectionRefused("refused"))),
    { kind: "refused" },
  );
});

Deno.test("httpProbe: a dial that hangs is a connect time-out, a silent peer an answer time-out", async () => {
  const never = new Promise<never>(() => {});
  assert.deepEqual(await probe(() => never, undefined, 30), { kind: "connect-timeout" });
  const silent: ProbeConn = { ...scripted([]), read: () => never };
  assert.deepEqual(await probe(() => Promise.resolve(silent), undefined, 30), { kind: "answer-timeout" });
});

Deno.test("httpProbe: the check's deadline cuts the probe short and says so", async () => {
  const check = new AbortController();
  const pending = probe(() => new Promise<never>(() => {}), check.signal, 60_000);
  check.abort();
  assert.deepEqual(await pending, { kind: "aborted" });
});

Deno.test({
  name:
    "httpProbe against real peers: nginx answers, a closer closes, a silent one times out, a free port refuses",
  ignore: skipWithout("http probe against nginx", ["nginx", "openssl"]),
  fn: async () => {
    await using certificate = await selfSignedCertificate();
    await using plain = await startNginxIngress(certificate, { proxyProtocol: false });
    await using insisting = await startNginxIngress(certificate, { proxyProtocol: true });
    await using closer = startListener("close");
    await using silent = startListener("silent");
    const at = (port: number, timeoutMs = 5_000) =>
      httpProbe({ hostname: "127.0.0.1", port }, {
        host: "shop.example.com",
        timeoutMs,
        signal: AbortSignal.timeout(20_000),
      });
    assert.deepEqual(await at(plain.httpPort), {
      kind: "answered",
      statusLine: "HTTP/1.1 200 OK",
      status: 200,
    });
    const hungUp = await at(insisting.httpPort);
    assert.ok(hungUp.kind === "closed" || hungUp.kind === "reset", JSON.stringify(hungUp));
    const closed = await at(closer.port);
    assert.ok(closed.kind === "closed" || closed.kind === "reset", JSON.stringify(closed));
    assert.deepEqual(await at(silent.port, 200), { kind: "answer-timeout" });
    assert.deepEqual(await at(refusingPort()), { kind: "refused" });
  },
});
