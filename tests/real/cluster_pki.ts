/**
 * The key material a real kube-apiserver needs, made with the real openssl: a cluster CA, a
 * serving certificate for the loopback address (and the in-cluster names, so a kubeconfig naming
 * either verifies), and the key pair that signs ServiceAccount tokens (the apiserver refuses to
 * start without one, although the suite authenticates with static tokens).
 *
 * Effects: runs openssl, writes files into the given folder.
 *
 * @module
 */

import { requireTool } from "../support/tools.ts";

/** Paths of the files made. */
export interface ClusterPki {
  readonly caPath: string;
  readonly caPem: string;
  readonly serverCertPath: string;
  readonly serverKeyPath: string;
  readonly serviceAccountKeyPath: string;
  readonly serviceAccountPublicKeyPath: string;
}

async function openssl(dir: string, args: readonly string[]): Promise<void> {
  const output = await new Deno.Command(requireTool("openssl"), {
    args: [...args],
    cwd: dir,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(`openssl ${args.join(" ")} failed: ${new TextDecoder().decode(output.stderr)}`);
  }
}

const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];

/** Makes the CA, the serving certificate and the ServiceAccount key pair in `dir`. */
export async function makeClusterPki(dir: string): Promise<ClusterPki> {
  await openssl(dir, [
    "req",
    "-x509",
    ...EC,
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-days",
    "3",
    "-subj",
    "/CN=ouroboros-real-ca",
  ]);
  await openssl(dir, [
    "req",
    ...EC,
    "-keyout",
    "apiserver.key",
    "-out",
    "apiserver.csr",
    "-subj",
    "/CN=kube-apiserver",
  ]);
  await Deno.writeTextFile(
    `${dir}/apiserver.ext`,
    [
      "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc",
      "basicConstraints=CA:FALSE",
      "extendedKeyUsage=serverAuth",
      "",
    ].join("\n"),
  );
  await openssl(dir, [
    "x509",
    "-req",
    "-in",
    "apiserver.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "apiserver.crt",
    "-days",
    "3",
    "-extfile",
    "apiserver.ext",
  ]);
  await openssl(dir, ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "sa.key"]);
  await openssl(dir, ["pkey", "-in", "sa.key", "-pubout", "-out", "sa.pub"]);
  return {
    caPath: `${dir}/ca.crt`,
    caPem: await Deno.readTextFile(`${dir}/ca.crt`),
    serverCertPath: `${dir}/apiserver.crt`,
    serverKeyPath: `${dir}/apiserver.key`,
    serviceAccountKeyPath: `${dir}/sa.key`,
    serviceAccountPublicKeyPath: `${dir}/sa.pub`,
  };
}
