import assert from "node:assert/strict";
import { pathFindings, type PathInput, type PathProbe } from "../../../lib/doctor/checks/path_findings.ts";
import type { HttpProbeResult } from "../../../lib/doctor/probes/http_probe.ts";
import type { TlsProbeResult } from "../../../lib/doctor/probes/tls_probe.ts";

const OK_HTTP: HttpProbeResult = { kind: "answered", statusLine: "HTTP/1.1 200 OK", status: 200 };
const OK_TLS: TlsProbeResult = {
  kind: "handshake",
  protocol: "TLSv1.3",
  certificate: { names: ["shop.example.com"], coversHost: true },
};

function input(
  http: HttpProbeResult | undefined,
  https: TlsProbeResult | undefined,
  extra: Partial<PathInput> = {},
): PathInput {
  const probe: PathProbe = {
    host: "shop.example.com",
    address: "10.96.0.50",
    ...(http === undefined ? {} : { http: { port: 80, result: http } }),
    ...(https === undefined ? {} : { https: { port: 443, result: https } }),
  };
  return {
    service: "Service ouroboros/ouroboros-proxy",
    inCluster: true,
    timeoutMs: 5_000,
    probes: [probe],
    ...extra,
  };
}

Deno.test("pathFindings: the worse of the two probes is the host's verdict", () => {
  const cases: readonly [string, PathInput, string, RegExp, RegExp?][] = [
    [
      "both answered",
      input(OK_HTTP, OK_TLS),
      "ok",
      /answered `HTTP\/1\.1 200 OK`; https .*covers the host \(verified\)/,
    ],
    [
      "a 404 is still an answer",
      input({ kind: "answered", statusLine: "HTTP/1.1 404 Not Found", status: 404 }, OK_TLS),
      "ok",
      /404 Not Found` \(the ingress answered: the path works/,
    ],
    [
      "a 503 is still an answer",
      input(
        { kind: "answered", statusLine: "HTTP/1.1 503 Service Temporarily Unavailable", status: 503 },
        undefined,
      ),
      "ok",
      /503/,
    ],
    [
      "a 400 is the PROXY header read as a request",
      input({ kind: "answered", statusLine: "HTTP/1.1 400 Bad Request", status: 400 }, OK_TLS),
      "problem",
      /400 Bad Request` to a well-formed request/,
      /use-proxy-protocol.*https port/,
    ],
    [
      "reset on http",
      input({ kind: "reset" }, OK_TLS),
      "problem",
      /^http: connected .* reset/,
      /--proxy-protocol/,
    ],
    [
      "closed on https",
      input(OK_HTTP, { kind: "closed" }),
      "problem",
      /https: connected .* closed/,
      /\/readyz/,
    ],
    [
      "handshake failed",
      input(OK_HTTP, { kind: "handshake-failed", message: "wrong version number" }),
      "problem",
      /TLS handshake failed: wrong version number/,
      /start of TLS/,
    ],
    [
      "silent",
      input({ kind: "answer-timeout" }, OK_TLS),
      "problem",
      /no answer came within 5s/,
      /--target-host/,
    ],
    [
      "default certificate",
      input(OK_HTTP, { kind: "handshake", certificate: { names: ["ingress.local"], coversHost: false } }),
      "warning",
      /certificate \(ingress\.local; verified\) does not cover the host/,
      /tls entry/,
    ],
    [
      "self-signed but covering",
      input(OK_HTTP, {
        kind: "handshake",
        certificate: {
          names: ["shop.example.com"],
          coversHost: true,
          untrustedBecause: "SELF_SIGNED_CERT_IN_CHAIN",
        },
      }),
      "ok",
      /covers the host \(not verified: SELF_SIGNED_CERT_IN_CHAIN\)/,
    ],
    [
      "not HTTP on the http port",
      input({ kind: "not-http", sample: "\\x15\\x03" }, OK_TLS),
      "warning",
      /not HTTP \(\\x15\\x03\)/,
      /not its https port/,
    ],
    [
      "refused in a pod",
      input({ kind: "refused" }, { kind: "refused" }),
      "problem",
      /refused/,
      /proxy pods are Ready/,
    ],
    [
      "refused from a workstation",
      input({ kind: "refused" }, { kind: "refused" }, { inCluster: false }),
      "could-not-check",
      /not reachable from outside/,
      /helm test/,
    ],
    [
      "connect time-out from a workstation, answered https",
      input({ kind: "connect-timeout" }, OK_TLS, { inCluster: false }),
      "could-not-check",
      /could not connect/,
    ],
    [
      "unreachable in a pod",
      input({ kind: "unreachable", detail: "No route to host" }, undefined),
      "problem",
      /No route to host/,
    ],
    [
      "out of check time",
      input({ kind: "aborted" }, { kind: "aborted" }),
      "could-not-check",
      /--check-timeout/,
      /--host-limit/,
    ],
    ["an odd error", input({ kind: "error", message: "boom" }, OK_TLS), "could-not-check", /failed: boom/],
  ];
  for (const [name, given, verdict, saw, todo] of cases) {
    const findings = pathFindings(given);
    assert.equal(findings.length, 1, name);
    const [finding] = findings;
    assert.equal(finding?.verdict, verdict, name);
    assert.match(finding?.saw ?? "", saw, name);
    if (todo !== undefined) assert.match(finding?.todo ?? "", todo, name);
    if (verdict === "ok") assert.equal(finding?.todo, undefined, `${name}: nothing to do`);
    assert.equal(finding?.subject, "host shop.example.com through Service ouroboros/ouroboros-proxy", name);
  }
});

Deno.test("pathFindings: dual-stack addresses are named, different outcomes stay apart, a sample is said", () => {
  const probes: PathProbe[] = [
    { host: "a.example.com", address: "10.96.0.50", http: { port: 80, result: OK_HTTP } },
    { host: "a.example.com", address: "fd00::50", http: { port: 80, result: { kind: "reset" } } },
    { host: "b.example.com", address: "10.96.0.50", http: { port: 80, result: OK_HTTP } },
    { host: "b.example.com", address: "fd00::50", http: { port: 80, result: { kind: "reset" } } },
  ];
  const findings = pathFindings({
    service: "Service ouroboros/ouroboros-proxy",
    inCluster: true,
    timeoutMs: 5_000,
    probes,
    sampledFrom: 2,
  });
  assert.deepEqual(findings.map((finding) => [finding.verdict, finding.subject]), [
    [
      "ok",
      "2 hosts a.example.com via 10.96.0.50, b.example.com via 10.96.0.50 through Service ouroboros/ouroboros-proxy",
    ],
    [
      "problem",
      "2 hosts a.example.com via fd00::50, b.example.com via fd00::50 through Service ouroboros/ouroboros-proxy",
    ],
  ], "no sample note when every host was probed");
  assert.match(findings[1]?.saw ?? "", /\[fd00::50\]:80/);
});
