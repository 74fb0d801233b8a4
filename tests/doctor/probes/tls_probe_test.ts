import assert from "node:assert/strict";
import {
  certificateCovers,
  certificateNames,
  type TlsHandshake,
  type TlsHandshaker,
  tlsProbe,
} from "../../../lib/doctor/probes/tls_probe.ts";
import { probeProxyHeader } from "../../../lib/doctor/probes/proxy_header.ts";
import { selfSignedCertificate } from "../../support/peer_configs.ts";
import { selfSignedCertificate as certificateFiles } from "../../support/tls_certificate.ts";
import { tempDir } from "../../support/temp_dir.ts";
import { requireTool, skipWithout } from "../../support/tools.ts";
import { refusingPort, startListener, startNginxIngress } from "../ingress_stand_ins.ts";
import { startTlsBackend } from "../tls_backends.ts";

Deno.test("certificateNames: DNS subject alternative names first, the common name only without them", () => {
  const cases: readonly [string, string | undefined, string | undefined, string[]][] = [
    ["SANs win over the CN", "ingress.local", "DNS:Shop.Example.com, DNS:*.example.com", [
      "shop.example.com",
      "*.example.com",
    ]],
    ["IP SANs are not names", "x", "IP Address:10.0.0.1, DNS:a.example.com", ["a.example.com"]],
    ["only IP SANs: fall back to the CN", "localhost", "IP Address:127.0.0.1", ["localhost"]],
    ["no SANs", "localhost", undefined, ["localhost"]],
    ["nothing at all", undefined, "", []],
  ];
  for (const [name, commonName, altNames, expected] of cases) {
    assert.deepEqual(certificateNames(commonName, altNames), expected, name);
  }
});

Deno.test("certificateCovers: exact names and one-label wildcards, case and trailing dot ignored", () => {
  const cases: readonly [string, string[], boolean][] = [
    ["shop.example.com", ["shop.example.com"], true],
    ["SHOP.example.com.", ["shop.example.com"], true],
    ["shop.example.com", ["*.example.com"], true],
    ["a.shop.example.com", ["*.example.com"], false],
    ["example.com", ["*.example.com"], false],
    ["shop.example.com", ["*.example.org", "localhost"], false],
    ["shop.example.com", [], false],
  ];
  for (const [host, names, expected] of cases) {
    assert.equal(certificateCovers(host, names), expected, `${host} by ${names.join(",")}`);
  }
});

const probe = (handshake: TlsHandshaker, timeoutMs = 2_000) =>
  tlsProbe({ hostname: "10.96.0.50", port: 443 }, {
    servername: "shop.example.com",
    timeoutMs,
    signal: new AbortController().signal,
    handshake,
  });

Deno.test("tlsProbe: a finished handshake reports the protocol, the names and why it is not trusted", async () => {
  const shown: TlsHandshake = {
    protocol: "TLSv1.3",
    commonName: "Kubernetes Ingress Controller Fake Certificate",
    subjectAltName: "DNS:ingress.local",
    authorized: false,
    authorizationError: "DEPTH_ZERO_SELF_SIGNED_CERT",
  };
  assert.deepEqual(await probe(() => Promise.resolve(shown)), {
    kind: "handshake",
    protocol: "TLSv1.3",
    certificate: {
      commonName: "Kubernetes Ingress Controller Fake Certificate",
      names: ["ingress.local"],
      coversHost: false,
      untrustedBecause: "DEPTH_ZERO_SELF_SIGNED_CERT",
    },
  });
  const trusted = await probe(() =>
    Promise.resolve({ subjectAltName: "DNS:*.example.com", authorized: true })
  );
  assert.deepEqual(trusted, {
    kind: "handshake",
    certificate: { names: ["*.example.com"], coversHost: true },
  });
  const fingerprinted = await probe(() => Promise.resolve({ authorized: true, fingerprint256: "9f:ba:01" }));
  assert.deepEqual(fingerprinted, {
    kind: "handshake",
    certificate: { names: [], coversHost: false, fingerprint: "9F:BA:01" },
  });
});

Deno.test("tlsProbe: a preface goes to the handshaker, which sends it before the handshake", async () => {
  const seen: (Uint8Array | undefined)[] = [];
  const handshake: TlsHandshaker = (_, options) => {
    seen.push(options.preface);
    return Promise.resolve({ authorized: true });
  };
  await tlsProbe({ hostname: "10.96.0.50", port: 443 }, {
    servername: "shop.example.com",
    timeoutMs: 1_000,
    signal: new AbortController().signal,
    handshake,
    preface: probeProxyHeader("v2"),
  });
  await probe(handshake);
  assert.deepEqual(seen, [probeProxyHeader("v2"), undefined]);
});

Deno.test({
  name:
    "tlsProbe with a PROXY header first: a stand-in that insists on one shows its certificate's fingerprint",
  ignore: skipWithout("tls probe with a PROXY header", ["openssl"]),
  fn: async () => {
    await using dir = await tempDir("doctor-tls-");
    const files = await certificateFiles(dir.path, "gateway", ["app.example.com"]);
    await using backend = await startTlsBackend("gateway", files);
    const openssl = await new Deno.Command(requireTool("openssl"), {
      args: ["x509", "-in", files.certPath, "-noout", "-fingerprint", "-sha256"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const fingerprint = new TextDecoder().decode(openssl.stdout).trim().split("=")[1];
    for (const version of ["v1", "v2"] as const) {
      const result = await tlsProbe({ hostname: "127.0.0.1", port: backend.https.port }, {
        servername: "app.example.com",
        timeoutMs: 5_000,
        signal: AbortSignal.timeout(20_000),
        preface: probeProxyHeader(version),
      });
      assert.ok(result.kind === "handshake", JSON.stringify(result));
      assert.equal(result.certificate?.fingerprint, fingerprint, version);
      assert.equal(result.certificate?.coversHost, true, version);
    }
    assert.deepEqual(backend.https.headers.map((header) => [header.version, header.family]), [
      [1, "UNKNOWN"],
      [2, "UNKNOWN"],
    ]);
  },
});

Deno.test("tlsProbe: failures are told apart by phase", async () => {
  const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
  assert.deepEqual(await probe(() => Promise.reject(reset)), { kind: "reset" });
  assert.deepEqual(await probe(() => Promise.reject(new Error("no TLS here"))), {
    kind: "error",
    message: "no TLS here",
  });
  assert.deepEqual(
    await probe((_, options) => {
      options.connected();
      return Promise.reject(new Error("received corrupt message of type InvalidContentType"));
    }),
    { kind: "handshake-failed", message: "received corrupt message of type InvalidContentType" },
  );
  const never = new Promise<never>(() => {});
  assert.deepEqual(await probe(() => never, 30), { kind: "connect-timeout" });
  assert.deepEqual(
    await probe((_, options) => {
      options.connected();
      return never;
    }, 30),
    { kind: "answer-timeout" },
  );
});

Deno.test({
  name:
    "tlsProbe against real peers: nginx's self-signed certificate, a PROXY-insisting nginx, silence, refusal",
  ignore: skipWithout("tls probe against nginx", ["nginx", "openssl"]),
  fn: async () => {
    await using certificate = await selfSignedCertificate();
    await using plain = await startNginxIngress(certificate, { proxyProtocol: false });
    await using insisting = await startNginxIngress(certificate, { proxyProtocol: true });
    await using silent = startListener("silent");
    const at = (port: number, servername: string, timeoutMs = 5_000) =>
      tlsProbe({ hostname: "127.0.0.1", port }, {
        servername,
        timeoutMs,
        signal: AbortSignal.timeout(20_000),
      });
    const covered = await at(plain.httpsPort, "localhost");
    assert.equal(covered.kind, "handshake");
    assert.ok(covered.kind === "handshake");
    assert.match(covered.protocol ?? "", /^TLSv1\.[23]$/);
    assert.deepEqual(covered.certificate?.names, ["localhost"]);
    assert.equal(covered.certificate?.coversHost, true);
    assert.match(covered.certificate?.untrustedBecause ?? "", /SELF_SIGNED/);
    const other = await at(plain.httpsPort, "shop.example.com");
    assert.ok(other.kind === "handshake" && other.certificate?.coversHost === false, JSON.stringify(other));
    const hungUp = await at(insisting.httpsPort, "localhost");
    assert.ok(hungUp.kind === "closed" || hungUp.kind === "reset", JSON.stringify(hungUp));
    for (const version of ["v1", "v2"] as const) {
      const withHeader = await tlsProbe({ hostname: "127.0.0.1", port: insisting.httpsPort }, {
        servername: "localhost",
        timeoutMs: 5_000,
        signal: AbortSignal.timeout(20_000),
        preface: probeProxyHeader(version),
      });
      assert.ok(
        withHeader.kind === "handshake",
        `nginx takes the ${version} header: ${JSON.stringify(withHeader)}`,
      );
      assert.match(withHeader.certificate?.fingerprint ?? "", /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    }
    assert.deepEqual(await at(silent.port, "localhost", 200), { kind: "answer-timeout" });
    assert.deepEqual(await at(refusingPort(), "localhost"), { kind: "refused" });
  },
});
