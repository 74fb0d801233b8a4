import assert from "node:assert/strict";
import { ROOT } from "../support/ouroboros_process.ts";
import { KUBEADM } from "../controller/modes/coredns/fixtures/corefiles.ts";

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

/** The text between a step's heading (`N. `) and the next heading or part title. */
function step(stdout: string, number: number): string {
  const start = stdout.indexOf(`\n${number}. `);
  assert.ok(start >= 0, `no step ${number} in:\n${stdout}`);
  const rest = stdout.slice(start + 1);
  const end = rest.slice(1).search(/\n(\d+\. |Part \d|Demo )/);
  return end < 0 ? rest : rest.slice(0, end + 1);
}

/** The first capture group of `pattern` in `text`, failing with the text when absent. */
function capture(text: string, pattern: RegExp): string {
  const found = pattern.exec(text)?.[1];
  assert.ok(found !== undefined, `${pattern} not found in:\n${text}`);
  return found;
}

Deno.test("`deno task demo`: a preview first, then the Corefile block follows the Ingresses through a failover, only the proxied call gets through with the caller's address, kuberture publishes the API server's addresses, and one proxy sends an Ingress's and a Gateway's hostnames each to its own ingress stand-in", async () => {
  const { code, stdout, stderr } = await runDemo();
  assert.equal(code, 0, `demo failed:\n${stdout}\n${stderr}`);

  const initialVersion = capture(
    stdout,
    /The Corefile \(resourceVersion (\d+)\) has no ouroboros block yet\./,
  );
  assert.deepEqual(
    printedBlocks(stdout),
    [
      ["blog.example.com", "shop.example.com", "www.shop.example.com"],
      ["api.example.com", "blog.example.com", "shop.example.com", "www.shop.example.com"],
      ["api.example.com", "shop.example.com", "www.shop.example.com"],
      ["api.example.com", "news.example.com", "shop.example.com", "www.shop.example.com"],
    ],
    "one printed version per step (initial TLS hosts, after the add, after the delete, after the failover); never the plain-HTTP wiki.example.com",
  );

  // The preview: the diff it printed adds exactly the first block, exit status 3, nothing written.
  const preview = step(stdout, 2);
  const diff = preview.split("\n").flatMap((line) => /^\s+> (.*)$/.exec(line)?.[1] ?? []);
  assert.deepEqual(diff.slice(0, 2), [
    "--- a/kube-system/coredns[Corefile]",
    "+++ b/kube-system/coredns[Corefile]",
  ]);
  assert.deepEqual(
    diff.slice(2).filter((line) => /^[+-]/.test(line)),
    [
      "+    # === BEGIN ouroboros (do not edit by hand) ===",
      ...["blog", "shop", "www.shop"].map((host) => `+    rewrite name ${host}.example.com ${FQDN}`),
      "+    # === END ouroboros ===",
    ],
    "the preview adds the block of step 4 and removes nothing",
  );
  assert.match(preview, /\n {3}exit status 3: it would change the Corefile/);
  assert.equal(
    capture(preview, /The Corefile is untouched: resourceVersion (\d+), still no block\./),
    initialVersion,
    "the preview changed the ConfigMap's resourceVersion",
  );

  // Two replicas: exactly one leads, the other stands by, both ready; only the leader writes.
  const election = step(stdout, 3);
  const [, leader = "", standby = ""] =
    /\n {3}(a|b) leads \(the Lease's holder is \1_\w+\); (a|b) stands by\./
      .exec(election) ?? [];
  assert.ok(leader !== "" && standby !== "" && leader !== standby, `no single leader in:\n${election}`);
  assert.match(election, new RegExp(`\n {3}${leader} log: INFO leadership acquired`));
  assert.match(election, new RegExp(`\n {3}${standby} log: INFO following the leader.* leader=${leader}_`));
  assert.doesNotMatch(election, new RegExp(`${standby} log: INFO leadership acquired`));
  const health = step(stdout, 4);
  assert.match(health, new RegExp(`\n {3}${leader} GET /readyz -> 200 ok; ouroboros_leader 1 `));
  assert.match(health, new RegExp(`\n {3}${standby} GET /readyz -> 200 ok; ouroboros_leader 0 `));
  assert.match(
    step(stdout, 6),
    new RegExp(`ConfigMap writes so far, (\\d+) of them by ${leader}, 0 by ${standby}\\.`),
  );

  // The failover: the leader is killed, the standby takes the Lease (not before it expired) and
  // writes the Ingress added meanwhile.
  const failover = step(stdout, 9);
  assert.match(failover, new RegExp(`^9\\. SIGKILL to the leader, ${leader} `));
  assert.match(failover, new RegExp(`\n {3}${leader} exit: killed by SIGKILL\n`));
  assert.match(failover, new RegExp(`\n {3}${standby} log: INFO leadership acquired`));
  const unrenewed = Number(
    capture(
      failover,
      new RegExp(`\n {3}${standby} took the Lease (\\d+\\.\\d+) s after ${leader}'s last renewal`),
    ),
  );
  assert.ok(
    unrenewed >= 3,
    `the standby took over ${unrenewed} s after the last renewal, before the 3 s lease expired`,
  );
  const seconds = Number(
    capture(
      failover,
      new RegExp(
        `Failover: the change was in the Corefile (\\d+\\.\\d+) s after the kill, written by ${standby}\\.`,
      ),
    ),
  );
  assert.ok(seconds > 0, `the change was written ${seconds} s after the kill`);
  assert.match(failover, new RegExp(`\n {3}${standby} GET /readyz -> 200 ok; ouroboros_leader 1 `));

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
  const stop = step(stdout, 10);
  assert.match(stop, new RegExp(`^10\\. SIGTERM to ${standby} and the proxy`));
  assert.match(stop, /controller log: INFO leadership released\n/);
  assert.match(stop, /The Lease's holder is empty\./);

  // kuberture: the headless Service it writes names the API server's addresses, before and after
  // the EndpointSlice changes; SIGTERM ends it with 0.
  const published = step(stdout, 11);
  assert.match(published, /\n {3}Service kuberture\/kuberture-api, clusterIP None:\n/);
  assert.match(
    published,
    /\n {5}annotation external-dns\.alpha\.kubernetes\.io\/hostname: api\.k8s\.example\.com\n/,
  );
  assert.match(published, /\n {5}annotation external-dns\.alpha\.kubernetes\.io\/target: 192\.0\.2\.10\n/);
  assert.match(published, /\n {5}annotation external-dns\.alpha\.kubernetes\.io\/ttl: 60\n/);
  assert.match(published, /\n {5}label app\.kubernetes\.io\/managed-by: kuberture\n/);
  assert.match(
    step(stdout, 12),
    /\n {5}annotation external-dns\.alpha\.kubernetes\.io\/target: 192\.0\.2\.10,192\.0\.2\.11\n/,
  );
  // Each step prints its own log lines: the second publish in step 12, dns's start and stop in 14 and 15.
  assert.match(
    step(stdout, 12),
    /\n {3}kuberture log: INFO output published output=api name=kuberture-api addresses=2\n/,
  );
  assert.match(step(stdout, 14), /\n {3}dns log: INFO dns starting /);
  assert.match(step(stdout, 15), /\n {3}dns log: INFO dns stopped\n/);
  assert.match(step(stdout, 5), /\n {3}\w log: INFO hostnames updated .*addedHosts=api\.example\.com\n/);
  assert.match(step(stdout, 6), /\n {3}\w log: INFO hostnames updated .*removedHosts=blog\.example\.com\n/);
  const stopped = step(stdout, 13);
  assert.match(stopped, /\n {3}kuberture log: INFO kuberture stopped signal=SIGTERM\n/);
  assert.match(stopped, /\n {3}kuberture exit status 0\n/);
  // Routing: the controller's table sends the Ingress's and the Gateway's hostnames to their own
  // LoadBalancer Services; through the proxy each reaches its own stand-in, an unknown one the default.
  const table = step(stdout, 19);
  assert.match(
    table,
    /\n {3}controller log: INFO hostnames updated target=.*routes ouroboros\/ouroboros-routes\[routes\.json\]/,
  );
  assert.match(
    table,
    /\n {3}app\.example\.com +-> envoy-gateway-system\/envoy-public +127\.0\.0\.1:\d+, PROXY v2\n/,
  );
  for (const host of ["api", "news", "shop", "www.shop"]) {
    assert.match(
      table,
      new RegExp(
        `\\n {3}${
          host.replace(".", "\\.")
        }\\.example\\.com +-> ingress-nginx/ingress-nginx-controller +127\\.0\\.0\\.1:\\d+, PROXY v1\\n`,
      ),
    );
  }
  assert.doesNotMatch(table, /wiki\.example\.com/, "a plain-HTTP Ingress is not hairpinned, so not routed");
  const routed = step(stdout, 20);
  assert.match(routed, /\n {3}proxy log: INFO route table loaded routes=5 /);
  for (
    const [host, owner, standIn, version] of [
      ["shop", "Ingress shop/web", "ingress-nginx", "v1"],
      ["app", "Gateway web/public", "envoy-gateway", "v2"],
      ["unknown", "no route", "default-backend", "v1"],
    ]
  ) {
    assert.match(
      routed,
      new RegExp(
        `\\n {3}${host}\\.example\\.com +\\(${owner}\\) +-> proxy -> ${standIn}: HTTP/1\\.1 200 OK\\n +its PROXY ` +
          `${version} header named [\\d.:]+, the caller's own address\\n`,
      ),
    );
  }
  for (
    const route of ["ingress-nginx/ingress-nginx-controller", "envoy-gateway-system/envoy-public", "default"]
  ) {
    assert.match(routed, new RegExp(`\\n {5}\\{route="${route}"\\} 1\\n`));
  }
  assert.match(step(stdout, 21), /\n {3}controller exit status 0, proxy exit status 0\n/);
  assert.doesNotMatch(stdout, / ERROR /, "a controller, the proxy or kuberture logged an ERROR");
  assert.match(stdout, /Demo finished:/);
  assert.doesNotMatch(stdout, /FAILED/);
});
