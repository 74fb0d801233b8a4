import assert from "node:assert/strict";
import { ROOT } from "../support/ouroboros_process.ts";

Deno.test("`deno task demo` shows a direct call rejected and the proxied call carrying the caller's address", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", "-P=test", "tests/demo/demo.ts"],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 0, `demo failed:\n${stdout}\n${new TextDecoder().decode(output.stderr)}`);
  assert.match(stdout, /-> ingress: HTTP\/1\.1 400 Bad Request/);
  const proxied = /(\d+\.\d+\.\d+\.\d+:\d+) -> proxy -> ingress: HTTP\/1\.1 200 OK: hello (\S+):/.exec(
    stdout,
  );
  assert.ok(proxied, `no proxied call in:\n${stdout}`);
  assert.equal(proxied[2], proxied[1], "the ingress stand-in saw a different address than the caller's own");
  assert.match(stdout, /exit status 0/);
  assert.match(stdout, /Demo finished: hairpin fixed\./);
});
