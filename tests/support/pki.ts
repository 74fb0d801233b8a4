/**
 * Throwaway certificates for TLS tests, made with the real openssl: a CA, a server certificate
 * for 127.0.0.1 and localhost signed by it, a client certificate signed by it, and an unrelated
 * second CA (to prove a wrong CA fails closed).
 *
 * @module
 */

import { type TempDir, tempDir } from "./temp_dir.ts";
import { requireTool } from "./tools.ts";

/** PEM texts and the files they were written to; disposing it removes the files. */
export interface Pki extends AsyncDisposable {
  readonly dir: string;
  readonly caPem: string;
  readonly caPath: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly serverCertPath: string;
  readonly serverKeyPath: string;
  readonly clientCert: string;
  readonly clientKey: string;
  readonly clientCertPath: string;
  readonly clientKeyPath: string;
  /** A CA that signed nothing here. */
  readonly otherCaPem: string;
}

async function openssl(dir: string, args: string[]): Promise<void> {
  const output = await new Deno.Command(requireTool("openssl"), {
    args,
    cwd: dir,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(`openssl ${args.join(" ")} failed: ${new TextDecoder().decode(output.stderr)}`);
  }
}

async function selfSignedCa(dir: string, name: string): Promise<void> {
  await openssl(dir, [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-keyout",
    `${name}.key`,
    "-out",
    `${name}.crt`,
    "-days",
    "2",
    "-subj",
    `/CN=${name}`,
  ]);
}

async function signed(dir: string, name: string, subject: string, extensions: string): Promise<void> {
  await openssl(dir, [
    "req",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-keyout",
    `${name}.key`,
    "-out",
    `${name}.csr`,
    "-subj",
    `/CN=${subject}`,
  ]);
  await Deno.writeTextFile(`${dir}/${name}.ext`, extensions);
  await openssl(dir, [
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    `${name}.crt`,
    "-days",
    "2",
    "-extfile",
    `${name}.ext`,
  ]);
}

/** Creates the certificates in a new temporary folder, removed when the result is disposed. */
export async function makePki(): Promise<Pki> {
  const temp = await tempDir("ouroboros-pki-");
  try {
    return await issue(temp);
  } catch (error) {
    await temp[Symbol.asyncDispose]();
    throw error;
  }
}

async function issue(temp: TempDir): Promise<Pki> {
  const dir = temp.path;
  await selfSignedCa(dir, "ca");
  await selfSignedCa(dir, "other-ca");
  await signed(
    dir,
    "server",
    "localhost",
    "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
  );
  await signed(
    dir,
    "client",
    "ouroboros-test-client",
    "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n",
  );
  const read = (name: string) => Deno.readTextFile(`${dir}/${name}`);
  return {
    dir,
    caPem: await read("ca.crt"),
    caPath: `${dir}/ca.crt`,
    serverCert: await read("server.crt"),
    serverKey: await read("server.key"),
    serverCertPath: `${dir}/server.crt`,
    serverKeyPath: `${dir}/server.key`,
    clientCert: await read("client.crt"),
    clientKey: await read("client.key"),
    clientCertPath: `${dir}/client.crt`,
    clientKeyPath: `${dir}/client.key`,
    otherCaPem: await read("other-ca.crt"),
    [Symbol.asyncDispose]: () => temp[Symbol.asyncDispose](),
  };
}
