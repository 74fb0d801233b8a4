/**
 * The real `openssl s_server` as a TLS peer that demands a client certificate signed by the
 * test CA (`-Verify 1 -verify_return_error`) and serves files from the PKI folder (`-WWW`), so
 * a successful request proves our client presented a valid certificate.
 *
 * @module
 */

import { requireTool } from "../support/tools.ts";
import type { Pki } from "../support/pki.ts";

/** A running s_server; dispose it to stop it. */
export interface OpensslServer extends AsyncDisposable {
  readonly url: string;
}

/** Starts s_server on a free port and waits until it listens. */
export async function startOpensslServer(pki: Pki): Promise<OpensslServer> {
  const child = new Deno.Command(requireTool("openssl"), {
    args: [
      "s_server",
      "-accept",
      "0",
      "-cert",
      pki.serverCertPath,
      "-key",
      pki.serverKeyPath,
      "-CAfile",
      pki.caPath,
      "-Verify",
      "1",
      "-verify_return_error",
      "-WWW",
    ],
    cwd: pki.dir,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const output = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stop = async () => {
    child.kill();
    await child.status;
    await output.cancel();
  };
  let banner = "";
  const listening = /ACCEPT .*:(\d+)\s/;
  while (!listening.test(banner)) {
    const chunk = await output.read();
    if (chunk.done) {
      await stop();
      throw new Error(`openssl s_server ended before listening: ${banner}`);
    }
    banner += chunk.value;
  }
  const port = Number(listening.exec(banner)?.[1]);
  return { url: `https://127.0.0.1:${port}`, [Symbol.asyncDispose]: stop };
}
