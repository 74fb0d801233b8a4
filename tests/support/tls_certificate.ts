/**
 * A self-signed certificate for a set of hostnames or IP addresses, made with the real openssl: for
 * an ingress stand-in that must present a certificate covering the hosts it serves (as an
 * Ingress's TLS Secret would), or an API server serving a CA certificate as its own.
 *
 * Effects: runs openssl, writes two files into `dir`.
 *
 * @module
 */

import { requireTool } from "./tools.ts";

/** The certificate and key files. */
export interface CertificateFiles {
  readonly certPath: string;
  readonly keyPath: string;
}

/**
 * Writes `<name>.crt` and `<name>.key` into `dir`: a P-256 certificate whose SANs are `hosts` (an
 * IPv4 address as an IP SAN), marked `CA:TRUE` with `ca` (openssl's default marking is not relied on).
 */
export async function selfSignedCertificate(
  dir: string,
  name: string,
  hosts: readonly string[],
  options: { readonly ca?: boolean } = {},
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
      `subjectAltName=${
        hosts.map((host) => /^[0-9.]+$/.test(host) ? `IP:${host}` : `DNS:${host}`).join(",")
      }`,
      ...(options.ca === true ? ["-addext", "basicConstraints=critical,CA:TRUE"] : []),
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
