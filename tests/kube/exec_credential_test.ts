import assert from "node:assert/strict";
import { execInfo, parseExecCredential } from "../../lib/kube/exec_credential.ts";

const V1 = "client.authentication.k8s.io/v1";
const BETA = "client.authentication.k8s.io/v1beta1";

Deno.test("execInfo says non-interactive and carries the cluster only when asked", () => {
  assert.deepEqual(JSON.parse(execInfo(V1)), {
    apiVersion: V1,
    kind: "ExecCredential",
    spec: { interactive: false },
  });
  const pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  assert.deepEqual(
    JSON.parse(
      execInfo(BETA, {
        server: "https://k:6443",
        certificateAuthorityPem: pem,
        insecureSkipTlsVerify: false,
      }),
    ),
    {
      apiVersion: BETA,
      kind: "ExecCredential",
      spec: {
        interactive: false,
        cluster: { server: "https://k:6443", "certificate-authority-data": btoa(pem) },
      },
    },
  );
});

Deno.test("parseExecCredential reads a token, a certificate pair and the expiry", () => {
  assert.deepEqual(
    parseExecCredential(
      JSON.stringify({
        apiVersion: V1,
        kind: "ExecCredential",
        status: { token: "t0k", expirationTimestamp: "2026-03-01T12:00:00Z" },
      }),
      V1,
    ),
    { ok: true, value: { token: "t0k", expiresAt: Date.UTC(2026, 2, 1, 12) } },
  );
  assert.deepEqual(
    parseExecCredential(
      JSON.stringify({
        apiVersion: BETA,
        kind: "ExecCredential",
        status: { clientCertificateData: "C", clientKeyData: "K" },
      }),
      BETA,
    ),
    { ok: true, value: { clientCertificate: { cert: "C", key: "K" } } },
  );
});

Deno.test("parseExecCredential refuses answers that cannot authenticate, saying why", async (t) => {
  const ok = { apiVersion: V1, kind: "ExecCredential" };
  const cases: readonly [string, string, string][] = [
    ["not JSON", "token: abc", "the plugin's output is not JSON"],
    ["a JSON string", '"abc"', "the plugin's output is not a JSON object"],
    [
      "wrong kind",
      JSON.stringify({ ...ok, kind: "Secret" }),
      'the plugin\'s output has kind "Secret", not "ExecCredential"',
    ],
    [
      "other apiVersion",
      JSON.stringify({ ...ok, apiVersion: BETA, status: { token: "x" } }),
      `the plugin answered with apiVersion "${BETA}", but the kubeconfig asks for "${V1}"`,
    ],
    [
      "no status",
      JSON.stringify(ok),
      "status has neither a token nor clientCertificateData and clientKeyData",
    ],
    [
      "empty token",
      JSON.stringify({ ...ok, status: { token: "" } }),
      "status has neither a token nor clientCertificateData and clientKeyData",
    ],
    [
      "token a number",
      JSON.stringify({ ...ok, status: { token: 1 } }),
      "status.token is a number, not a string",
    ],
    [
      "certificate without key",
      JSON.stringify({ ...ok, status: { clientCertificateData: "C" } }),
      "status has clientCertificateData without clientKeyData, or the other way round",
    ],
    [
      "bad expiry",
      JSON.stringify({ ...ok, status: { token: "x", expirationTimestamp: "tomorrow" } }),
      'status.expirationTimestamp is not an RFC 3339 time: "tomorrow"',
    ],
  ];
  for (const [name, stdout, reason] of cases) {
    await t.step(name, () => assert.deepEqual(parseExecCredential(stdout, V1), { ok: false, reason }));
  }
});
