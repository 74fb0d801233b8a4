import assert from "node:assert/strict";
import { ROOT } from "../support/ouroboros_process.ts";
import { KUBEADM } from "../sinks/coredns/fixtures/corefiles.ts";

const FQDN = "ouroboros-proxy.ouroboros.svc.cluster.local.";

/** Runs `deno task demo`'s command and returns its exit status and output. */
async function runDemo(): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", "-P=test", "tests/demo/demo.ts"],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: output.code, stdout: decoder.decode(output.stdout), stderr: decoder.decode(output.stderr) };
}

/** The hostnames of every block the demo printed, in the order printed. */
function printedBlocks(stdout: string): string[][] {
  const blocks: string[][] = [];
  let current: string[] | undefined;
  for (const line of stdout.split("\n")) {
    const text = /^\s+\+ (.*)$/.exec(line)?.[1]?.trim();
    if (text === undefined) continue;
    if (text === "# === BEGIN ouroboros (do not edit by hand) ===") current = [];
    else if (text === "# === END ouroboros ===") {
      if (current !== undefined) blocks.push(current);
      current = undefined;
    } else {
      const [verb, field, host, target] = text.split(/\s+/);
      assert.equal(`${verb} ${field} ${target}`, `rewrite name ${FQDN}`, `unexpected block line ${text}`);
      current?.push(host ?? "");
    }
  }
  return blocks;
}

Deno.test("`deno task demo`: the Corefile block follows the Ingresses, and only the proxied call gets through with the caller's address", async () => {
  const { code, stdout, stderr } = await runDemo();
  assert.equal(code, 0, `demo failed:\n${stdout}\n${stderr}`);

  assert.match(stdout, /The Corefile \(resourceVersion \d+\) has no ouroboros block yet\./);
  assert.deepEqual(
    printedBlocks(stdout),
    [
      ["blog.example.com", "shop.example.com", "www.shop.example.com"],
      ["api.example.com", "blog.example.com", "shop.example.com", "www.shop.example.com"],
      ["api.example.com", "shop.example.com", "www.shop.example.com"],
    ],
    "one printed version per step (initial TLS hosts, after the add, after the delete); never the plain-HTTP wiki.example.com",
  );

  // The first version is printed whole: outside the markers it is kubeadm's Corefile, byte for byte.
  const whole = stdout.split("\n").filter((line) => /^\s+\| /.test(line)).map((line) =>
    line.replace(/^\s+\| /, "")
  );
  assert.equal(whole.join("\n") + "\n", KUBEADM);

  assert.match(stdout, /-> ingress: HTTP\/1\.1 400 Bad Request: rejected/);
  const proxied = /(\d+\.\d+\.\d+\.\d+:\d+) -> proxy -> ingress: HTTP\/1\.1 200 OK: hello (\S+):/.exec(
    stdout,
  );
  assert.ok(proxied, `no proxied call in:\n${stdout}`);
  assert.equal(proxied[2], proxied[1], "the ingress stand-in saw a different address than the caller's own");

  assert.match(stdout, /controller exit status 0\n/);
  assert.match(stdout, /proxy {6}exit status 0\n/);
  assert.match(stdout, /Demo finished:/);
  assert.doesNotMatch(stdout, /FAILED/);
});
