/**
 * Throwaway TLS certificates for the fake API server's HTTPS tests, made with the real openssl:
 * a CA and a server certificate for 127.0.0.1 signed by it.
 *
 * @module
 */

import assert from "node:assert/strict";
import { requireTool } from "../support/tools.ts";

async function openssl(dir: string, args: string[]): Promise<void> {
  const output = await new Deno.Command(requireTool("openssl"), {
    args,
    cwd: dir,
    stdout: "null",
    stderr: "piped",
  })
    .output();
  assert.ok(output.success, `openssl ${args[0]}: ${new TextDecoder().decode(output.stderr)}`);
}

/** A throwaway CA and a server certificate for 127.0.0.1 signed by it, written to `dir` (`ca.crt`, …). */
export async function certificates(dir: string): Promise<{ ca: string; cert: string; key: string }> {
  const key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  await openssl(dir, [
    "req",
    "-x509",
    ...key,
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-days",
    "1",
    "-subj",
    "/CN=ca",
  ]);
  await openssl(dir, [
    "req",
    ...key,
    "-keyout",
    "server.key",
    "-out",
    "server.csr",
    "-subj",
    "/CN=127.0.0.1",
  ]);
  await Deno.writeTextFile(`${dir}/server.ext`, "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n");
  await openssl(dir, [
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "server.crt",
    "-days",
    "1",
    "-extfile",
    "server.ext",
  ]);
  const read = (name: string) => Deno.readTextFile(`${dir}/${name}`);
  return { ca: await read("ca.crt"), cert: await read("server.crt"), key: await read("server.key") };
}
