/**
 * A self-signed certificate for a set of hostnames, made with the real openssl, for an ingress
 * stand-in that must present a certificate covering the hosts it serves (as an Ingress's TLS
 * Secret would).
 *
 * Effects: runs openssl, writes two files into `dir`.
 *
 * @module
 */

import { requireTool } from "../support/tools.ts";

/** The certificate and key files. */
export interface CertificateFiles {
  readonly certPath: string;
  readonly keyPath: string;
}

/** Writes `<name>.crt` and `<name>.key` into `dir`: a P-256 certificate whose SANs are `hosts`. */
export async function selfSignedCertificate(
  dir: string,
  name: string,
  hosts: readonly string[],
): Promise<CertificateFiles> {
  const certPath = `${dir}/${name}.crt`;
  const keyPath = `${dir}/${name}.key`;
  const output = await new Deno.Command(requireTool("openssl"), {
    args: [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      keyPath,
      "-out",
      certPath,
      "-days",
      "2",
      "-subj",
      `/CN=${hosts[0] ?? name}`,
      "-addext",
      `subjectAltName=${hosts.map((host) => `DNS:${host}`).join(",")}`,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(`openssl could not make a certificate: ${new TextDecoder().decode(output.stderr)}`);
  }
  return { certPath, keyPath };
}
