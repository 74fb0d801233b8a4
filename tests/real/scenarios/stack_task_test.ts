/**
 * `deno task stack` as a person uses it: the task's own command starts the real stack and prints
 * a `KUBECONFIG` line and a controller command; kubectl with that kubeconfig creates an Ingress;
 * the printed controller flags (run under the controller's permission set, as `deno task
 * controller` does) write the Corefile block, and the stack's CoreDNS answers the host with the
 * proxy's ClusterIP; Ctrl-C (SIGINT) then stops everything: exit 0, the files removed, the
 * apiserver gone.
 *
 * @module
 */

import assert from "node:assert/strict";
import { taskCommand } from "../../support/deno_json.ts";
import { queryDns } from "../../support/dns_tools.ts";
import { installKubeTools, requireKubeTools } from "../../support/kubectl.ts";
import { ingressManifest } from "../../support/ingress_manifest.ts";
import { startController } from "../../support/ouroboros_process.ts";
import { waitFor } from "../../support/wait.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("real: deno task stack — a KUBECONFIG line and a controller command that work, and Ctrl-C stops it all", async () => {
  const kubectlPath = requireKubeTools(await installKubeTools()).kubectl;
  const [tool, ...args] = taskCommand("stack").split(/\s+/);
  assert.equal(tool, "deno");
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let output = "";
  const drained = Promise.all([child.stdout, child.stderr].map(async (stream) => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) output += chunk;
  }));
  let stopped = false;
  try {
    await waitFor("the stack to say it is up", () => output.includes("Ctrl-C stops it all"), {
      timeoutMs: 180_000,
      intervalMs: 200,
    }).catch((error) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${output.slice(-3_000)}`);
    });
    const kubeconfig = /export KUBECONFIG=(\S+)/.exec(output)?.[1];
    const dir = /files in (\S+)\)/.exec(output)?.[1];
    const printed = /deno task controller ((?:.|\\\n)+?)\n\n/.exec(output)?.[1];
    assert.ok(kubeconfig !== undefined && dir !== undefined && printed !== undefined, output);
    const dnsHost = /on (\S+):53 \(dig/.exec(output)?.[1];
    assert.ok(dnsHost !== undefined, output);

    const kubectl = async (argv: readonly string[], stdin?: string) => {
      const run = new Deno.Command(kubectlPath, {
        args: [`--kubeconfig=${kubeconfig}`, ...argv],
        stdin: stdin === undefined ? "null" : "piped",
        stdout: "piped",
        stderr: "piped",
        env: { HOME: dir },
      }).spawn();
      if (stdin !== undefined) {
        const writer = run.stdin.getWriter();
        await writer.write(new TextEncoder().encode(stdin));
        await writer.close();
      }
      const result = await run.output();
      const text = new TextDecoder();
      return { code: result.code, stdout: text.decode(result.stdout), stderr: text.decode(result.stderr) };
    };
    const created = await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify(ingressManifest({
        namespace: "default",
        name: "shop",
        tls: { hosts: ["shop.example.com"], secretName: "shop-tls" },
        ruleHosts: ["shop.example.com"],
        service: { name: "shop", port: 80 },
      })),
    );
    assert.equal(created.code, 0, created.stderr);
    const proxyIp = (await kubectl([
      "get",
      "service",
      "-n",
      "ouroboros",
      "ouroboros-proxy",
      "-o",
      "jsonpath={.spec.clusterIP}",
    ])).stdout.trim();
    assert.match(proxyIp, /^\d+\.\d+\.\d+\.\d+$/);

    // The printed flags, as `deno task controller` would run them.
    const flags = printed.replace(/\\\n/g, " ").trim().split(/\s+/);
    await using controller = await startController(flags);
    await controller.explain(() =>
      waitFor("CoreDNS to answer the host with the proxy's ClusterIP", async () => {
        const [reply] = await queryDns({ host: dnsHost, port: 53 }, [{ name: "shop.example.com" }], {
          timeoutSeconds: 1,
        });
        return (reply?.answers ?? []).some((answer) => answer.data === proxyIp);
      }, { timeoutMs: 60_000, intervalMs: 500 })
    );
    controller.kill("SIGTERM");
    await controller.status;

    child.kill("SIGINT");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const status = await Promise.race([
      child.status,
      new Promise<undefined>((resolve) => timer = setTimeout(resolve, 60_000, undefined)),
    ]);
    clearTimeout(timer);
    if (status === undefined) {
      child.kill("SIGKILL");
      await child.status;
      stopped = true;
      assert.fail(`the stack did not stop within 60 s of SIGINT:\n${output.slice(-2_000)}`);
    }
    stopped = true;
    await drained;
    assert.equal(status.code, 0, output.slice(-2_000));
    assert.match(output, /stopping/);
    assert.equal(await exists(dir), false, "the stack's files are removed");
    const after = await kubectl(["get", "namespaces", "--request-timeout=5s"]);
    assert.notEqual(after.code, 0, "the apiserver still answers after Ctrl-C");
  } finally {
    if (!stopped) {
      child.kill("SIGINT");
      await child.status;
      await drained;
    }
  }
});
