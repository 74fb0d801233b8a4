/**
 * The doctor's TLS probe: a handshake with a chosen SNI, reporting whether it completed and the
 * certificate shown (its names and SHA-256 fingerprint). Uses `node:tls` without chain
 * verification (`Deno.connectTls` cannot skip it, and ingress default certificates are often
 * self-signed); trust and coverage are reported. With a `preface` (a PROXY header), those bytes
 * go first on the TCP connection and the handshake follows, as the proxy does for an ingress.
 *
 * Pure: {@linkcode certificateNames}, {@linkcode certificateCovers}. Effects: {@linkcode tlsProbe}
 * opens one TLS connection.
 *
 * @module
 */

import net from "node:net";
import tls from "node:tls";
import { classifyProbeFailure, type ProbeFailure, type ProbePhase } from "./probe_failure.ts";
import { probeDeadline, untilAborted } from "./probe_deadline.ts";

/** The certificate the other side showed, as far as the report needs it. */
export interface CertificateSummary {
  readonly commonName?: string;
  /** See {@linkcode certificateNames}. */
  readonly names: readonly string[];
  readonly coversHost: boolean;
  /** SHA-256 of the certificate, colon-separated upper-case hex (`9F:BA:…`): who presented it. */
  readonly fingerprint?: string;
  /** Why the chain did not verify (`DEPTH_ZERO_SELF_SIGNED_CERT`, …); absent when it did. */
  readonly untrustedBecause?: string;
}

/** The result of one {@linkcode tlsProbe}. */
export type TlsProbeResult =
  | {
    readonly kind: "handshake";
    readonly protocol?: string;
    readonly certificate?: CertificateSummary;
  }
  | ProbeFailure;

/** What a completed handshake showed, before it is judged. */
export interface TlsHandshake {
  readonly protocol?: string;
  readonly commonName?: string;
  /** `subjectaltname` as `node:tls` writes it: `DNS:a.example.com, IP Address:10.0.0.1`. */
  readonly subjectAltName?: string;
  /** `fingerprint256` as `node:tls` writes it. */
  readonly fingerprint256?: string;
  readonly authorized: boolean;
  readonly authorizationError?: string;
}

/** Performs one handshake; calls `connected` once TCP is up (the answer phase begins). */
export type TlsHandshaker = (
  target: { readonly hostname: string; readonly port: number },
  options: {
    readonly servername: string;
    readonly signal: AbortSignal;
    readonly connected: () => void;
    /** Bytes written on the TCP connection before the handshake (a PROXY header). */
    readonly preface?: Uint8Array;
  },
) => Promise<TlsHandshake>;

/** The names a certificate covers: its `DNS:` subject alternative names, else its common name. */
export function certificateNames(
  commonName: string | undefined,
  subjectAltName: string | undefined,
): string[] {
  const dns = (subjectAltName ?? "").split(",").map((entry) => entry.trim())
    .filter((entry) => entry.startsWith("DNS:")).map((entry) => entry.slice(4).toLowerCase());
  if (dns.length > 0) return dns;
  return commonName === undefined || commonName === "" ? [] : [commonName.toLowerCase()];
}

/**
 * Whether one of `names` covers `host`; a `*.` wildcard stands for exactly one leftmost label.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { certificateCovers } from "./tls_probe.ts";
 *
 * assert.equal(certificateCovers("shop.example.com", ["*.example.com"]), true);
 * assert.equal(certificateCovers("a.shop.example.com", ["*.example.com"]), false);
 * ```
 */
export function certificateCovers(host: string, names: readonly string[]): boolean {
  const wanted = host.toLowerCase().replace(/\.$/, "");
  return names.some((raw) => {
    const name = raw.toLowerCase().replace(/\.$/, "");
    if (name === wanted) return true;
    if (!name.startsWith("*.")) return false;
    const dot = wanted.indexOf(".");
    return dot > 0 && wanted.slice(dot + 1) === name.slice(2);
  });
}

function firstString(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  return Array.isArray(value) && typeof value[0] === "string" ? value[0] : undefined;
}

/** What a finished handshake on `socket` showed. */
function shownBy(socket: tls.TLSSocket): TlsHandshake {
  const peer = socket.getPeerCertificate();
  const commonName = firstString(peer.subject?.CN);
  const protocol = socket.getProtocol();
  const authorizationError = socket.authorizationError === undefined || socket.authorizationError === null
    ? undefined
    : String(socket.authorizationError);
  return {
    authorized: socket.authorized,
    ...(protocol === null ? {} : { protocol }),
    ...(commonName === undefined ? {} : { commonName }),
    ...(typeof peer.subjectaltname === "string" ? { subjectAltName: peer.subjectaltname } : {}),
    ...(typeof peer.fingerprint256 === "string" && peer.fingerprint256 !== ""
      ? { fingerprint256: peer.fingerprint256 }
      : {}),
    ...(authorizationError === undefined ? {} : { authorizationError }),
  };
}

/**
 * The default handshaker: `node:tls` without chain verification, `http/1.1` offered by ALPN. With
 * a preface, a plain TCP connection first, the preface written once it is up, then TLS over it.
 */
const nodeHandshake: TlsHandshaker = (target, options) =>
  new Promise((resolve, reject) => {
    const tlsOptions = {
      servername: options.servername,
      rejectUnauthorized: false,
      ALPNProtocols: ["http/1.1"],
    };
    const sockets: { destroy(): void }[] = [];
    const stop = () => sockets.forEach((socket) => socket.destroy());
    options.signal.addEventListener("abort", stop, { once: true });
    const settle = (action: () => void) => {
      options.signal.removeEventListener("abort", stop);
      stop();
      action();
    };
    const closed = () =>
      settle(() =>
        reject(Object.assign(new Error("closed before the handshake finished"), { name: "UnexpectedEof" }))
      );
    const handshake = (socket: tls.TLSSocket) => {
      sockets.push(socket);
      socket.once("secureConnect", () => {
        const shown = shownBy(socket);
        settle(() => resolve(shown));
      });
      socket.once("error", (error) => settle(() => reject(error)));
      socket.once("close", closed);
    };
    const { preface } = options;
    if (preface === undefined) {
      const socket = tls.connect({ host: target.hostname, port: target.port, ...tlsOptions });
      socket.once("connect", options.connected);
      handshake(socket);
      return;
    }
    const raw = net.connect({ host: target.hostname, port: target.port });
    sockets.push(raw);
    raw.on("error", (error) => settle(() => reject(error)));
    raw.once("connect", () => {
      options.connected();
      raw.write(preface);
      handshake(tls.connect({ socket: raw, ...tlsOptions }));
    });
  });

/** Where to probe and how. */
export interface TlsProbeOptions {
  /** The SNI name, and the name the certificate is matched against. */
  readonly servername: string;
  /** Connect and handshake together. */
  readonly timeoutMs: number;
  /** The check's deadline. */
  readonly signal: AbortSignal;
  /** @default `node:tls` without chain verification */
  readonly handshake?: TlsHandshaker;
  /** Bytes to send before the handshake: a PROXY header, for an ingress reached directly. */
  readonly preface?: Uint8Array;
}

/** Performs a TLS handshake with `servername` as SNI; never rejects. */
export async function tlsProbe(
  target: { readonly hostname: string; readonly port: number },
  options: TlsProbeOptions,
): Promise<TlsProbeResult> {
  using deadline = probeDeadline(options.signal, options.timeoutMs);
  const state: { phase: ProbePhase } = { phase: "connect" };
  const handshake = options.handshake ?? nodeHandshake;
  try {
    const shown = await untilAborted(
      handshake(target, {
        servername: options.servername,
        signal: deadline.signal,
        connected: () => state.phase = "answer",
        ...(options.preface === undefined ? {} : { preface: options.preface }),
      }),
      deadline.signal,
    );
    const names = certificateNames(shown.commonName, shown.subjectAltName);
    const untrustedBecause = shown.authorized ? undefined : shown.authorizationError ?? "not verified";
    return {
      kind: "handshake",
      ...(shown.protocol === undefined ? {} : { protocol: shown.protocol }),
      certificate: {
        ...(shown.commonName === undefined ? {} : { commonName: shown.commonName }),
        names,
        coversHost: certificateCovers(options.servername, names),
        ...(shown.fingerprint256 === undefined ? {} : { fingerprint: shown.fingerprint256.toUpperCase() }),
        ...(untrustedBecause === undefined ? {} : { untrustedBecause }),
      },
    };
  } catch (error) {
    if (deadline.signal.aborted) return deadline.failure(state.phase);
    const failure = classifyProbeFailure(error, state.phase);
    // Connected, then an error that is no hang-up: the other side spoke, but not TLS.
    return failure.kind === "error" && state.phase === "answer"
      ? { kind: "handshake-failed", message: failure.message }
      : failure;
  }
}
