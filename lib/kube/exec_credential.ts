/**
 * The ExecCredential protocol both ways: the `KUBERNETES_EXEC_INFO` handed to a credential
 * plugin, and its answer (a token or a client certificate, maybe with an expiry).
 *
 * Pure: no I/O.
 *
 * @module
 */

import { FieldError, Fields } from "../resources/fields.ts";
import type { ClientCertificate } from "./credentials.ts";
import type { ExecApiVersion } from "./kubeconfig.ts";
import { asObject, type Decoded } from "../resources/json.ts";

/** The cluster details a plugin may ask for (`provideClusterInfo: true`). */
export interface ExecClusterInfo {
  readonly server: string;
  /** PEM; sent base64-encoded as `certificate-authority-data`. */
  readonly certificateAuthorityPem?: string;
  readonly insecureSkipTlsVerify: boolean;
}

/** What a plugin returned. */
export interface ExecResult {
  readonly token?: string;
  readonly clientCertificate?: ClientCertificate;
  /** Unix milliseconds; absent: valid until refused. */
  readonly expiresAt?: number;
}

/** The JSON for `KUBERNETES_EXEC_INFO`; `interactive` is false, as we never have a terminal. */
export function execInfo(apiVersion: ExecApiVersion, cluster?: ExecClusterInfo): string {
  const spec: Record<string, unknown> = { interactive: false };
  if (cluster !== undefined) {
    spec.cluster = {
      server: cluster.server,
      ...(cluster.certificateAuthorityPem === undefined
        ? {}
        : { "certificate-authority-data": btoa(cluster.certificateAuthorityPem) }),
      ...(cluster.insecureSkipTlsVerify ? { "insecure-skip-tls-verify": true } : {}),
    };
  }
  return JSON.stringify({ apiVersion, kind: "ExecCredential", spec });
}

interface ExecCredentialWire {
  status?: {
    token?: string;
    clientCertificateData?: string;
    clientKeyData?: string;
    expirationTimestamp?: string;
  };
}

/** Decodes a plugin's standard output: an ExecCredential of the configured `apiVersion`. */
export function parseExecCredential(stdout: string, apiVersion: ExecApiVersion): Decoded<ExecResult> {
  let document: unknown;
  try {
    document = JSON.parse(stdout);
  } catch {
    return { ok: false, reason: "the plugin's output is not JSON" };
  }
  const root = asObject(document);
  if (root === undefined) return { ok: false, reason: "the plugin's output is not a JSON object" };
  if (root.kind !== "ExecCredential") {
    return {
      ok: false,
      reason: `the plugin's output has kind ${JSON.stringify(root.kind)}, not "ExecCredential"`,
    };
  }
  if (root.apiVersion !== apiVersion) {
    return {
      ok: false,
      reason: `the plugin answered with apiVersion ${
        JSON.stringify(root.apiVersion)
      }, but the kubeconfig asks for ${JSON.stringify(apiVersion)}`,
    };
  }
  try {
    const status = new Fields<ExecCredentialWire>(root, "").object("status");
    const token = status.optionalString("token");
    const cert = status.optionalString("clientCertificateData");
    const key = status.optionalString("clientKeyData");
    const expiry = status.optionalString("expirationTimestamp");
    if ((cert === undefined || cert === "") !== (key === undefined || key === "")) {
      return {
        ok: false,
        reason: "status has clientCertificateData without clientKeyData, or the other way round",
      };
    }
    const hasToken = token !== undefined && token !== "";
    const hasCert = cert !== undefined && cert !== "" && key !== undefined && key !== "";
    if (!hasToken && !hasCert) {
      return { ok: false, reason: "status has neither a token nor clientCertificateData and clientKeyData" };
    }
    let expiresAt: number | undefined;
    if (expiry !== undefined && expiry !== "") {
      expiresAt = Date.parse(expiry);
      if (Number.isNaN(expiresAt) || !/^\d{4}-\d{2}-\d{2}T/.test(expiry)) {
        return {
          ok: false,
          reason: `status.expirationTimestamp is not an RFC 3339 time: ${JSON.stringify(expiry)}`,
        };
      }
    }
    return {
      ok: true,
      value: {
        ...(hasToken ? { token } : {}),
        ...(hasCert ? { clientCertificate: { cert, key } } : {}),
        ...(expiresAt === undefined ? {} : { expiresAt }),
      },
    };
  } catch (error) {
    if (error instanceof FieldError) return { ok: false, reason: error.message };
    throw error;
  }
}
