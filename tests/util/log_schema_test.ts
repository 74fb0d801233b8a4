import assert from "node:assert/strict";
import { logLineProblems } from "../../lib/util/log_schema.ts";
import { startCluster } from "../controller/cluster_fixture.ts";
import { freePort } from "../support/daemons.ts";
import {
  type LogLine,
  parseLogLines,
  runOuroboros,
  startController,
  startProxy,
} from "../support/ouroboros_process.ts";
import { tempDir } from "../support/temp_dir.ts";
import { waitFor } from "../support/wait.ts";
import { KUBERTURE_CONFIG, startPublisher } from "../demo/kuberture_publisher.ts";
import { putApiServerSlice } from "../support/api_server_slice.ts";
import { askFrom, CERT_MANAGER_IP, putClientPods, startResponder } from "../demo/dns_responder.ts";

const HEAD = '"time":"2026-12-04T10:00:00.000Z","level":"INFO","logger":"ouroboros.controller","msg":"m"';

Deno.test("log schema: a line that obeys every rule has no problem", () => {
  assert.deepEqual(
    logLineProblems(
      `{${HEAD},"durationSeconds":0.25,"resyncSeconds":600,"error":"refused","errorName":"Error",` +
        `"errorCode":"ECONNREFUSED","addedHosts":["a.example.com"],"addedHostsMore":3,"value":"Not_Valid!"}`,
    ),
    [],
  );
});

Deno.test("log schema: each broken rule is named", async (t) => {
  const cases: readonly [name: string, fields: string, problem: RegExp][] = [
    ["snake_case key", '"elapsed_time":1', /"elapsed_time" is not camelCase/],
    ["kebab-case key", '"dry-run":true', /"dry-run" is not camelCase/],
    ["milliseconds key", '"elapsedMs":12', /"elapsedMs" is a duration not in seconds/],
    ["nested quoted value", '"outcome":{"host":"\\"a.example\\""}', /"outcome"\.host is quoted/],
    ["quoted item", '"addedHosts":["\\"a.example\\""]', /an item of "addedHosts" is quoted/],
    ["seconds as text", '"drainSeconds":"5"', /"drainSeconds" is not a number/],
    ["Go duration text", '"drainDelay":"5.006s"', /duration as text \(5\.006s\)/],
    ["Go duration text with minutes", '"resync":"10m0s"', /duration as text \(10m0s\)/],
    ["error object", '"error":{"name":"Error","message":"x"}', /"error" is not a string/],
    ["quoted value", '"value":"\\"Not_Valid!\\""', /"value" is quoted inside the JSON/],
    ["(none)", '"markerId":"(none)"', /"markerId" says \(none\)/],
    ["empty string", '"leader":""', /"leader" is empty/],
  ];
  for (const [name, fields, problem] of cases) {
    await t.step(name, () => {
      const problems = logLineProblems(`{${HEAD},${fields}}`);
      assert.ok(problems.some((text) => problem.test(text)), `${problem} not in ${JSON.stringify(problems)}`);
    });
  }
});

Deno.test("log schema: keys inside a nested value are data, not held to camelCase", () => {
  assert.deepEqual(logLineProblems(`{${HEAD},"labels":{"app.kubernetes.io/name":"web"}}`), []);
});

Deno.test("log schema: a line that is not JSON, or lacks the fixed fields in order, is a problem", () => {
  assert.match(logLineProblems("level=INFO msg=hi")[0] ?? "", /not JSON/);
  assert.ok(logLineProblems('{"msg":"m","level":"INFO"}').some((text) => /does not start with/.test(text)));
  assert.ok(
    logLineProblems('{"time":"t","level":"LOUD","logger":"l","msg":"m"}').some((text) =>
      /not a known level/.test(text)
    ),
  );
});

/** Every problem of every line, each prefixed with the line, so a failure shows what was logged. */
function schemaProblems(lines: readonly LogLine[]): string[] {
  return lines.flatMap((line) => {
    const text = JSON.stringify(line);
    return logLineProblems(text).map((problem) => `${problem}\n    in ${text.slice(0, 300)}`);
  });
}

/** The lines at each level, to show a run covered start-up, a change, a warning and an error. */
function levels(lines: readonly LogLine[]): Set<string> {
  return new Set(lines.map((line) => line.level));
}

Deno.test("log schema: the controller's start-up, changes, a refused hostname, a failed write, its recovery and its stop obey it", async () => {
  await using cluster = await startCluster();
  cluster.ingress("shop/web", { tls: ["shop.example.com", "www.shop.example.com"] });
  await using controller = await startController([...cluster.flags, "--mode=coredns", "--log-level=debug"]);
  await controller.explain(() =>
    controller.waitForLog("the first write", (line) => line.msg === "hostnames updated")
  );
  // A failed write (WARN while it is short, retried; recovery is one INFO), a refused hostname (WARN), then
  // a change with both kinds of name. A persistent failure's ERROR needs 30 s: the loop's own tests cover it.
  cluster.server.faults.inject("patch", { type: "status", code: 409, reason: "Conflict" }, {
    path: /configmaps/,
    count: 8,
  });
  cluster.ingress("evil/x", { tls: ['Not_Valid!"\u202e', "new.example.com"] });
  cluster.deleteIngress("shop/web");
  await controller.explain(() =>
    controller.waitForLog("a failed reconcile", (line) => line.msg.startsWith("reconcile failed"), 20_000)
  );
  const update = await controller.explain(() =>
    controller.waitForLog(
      "the change written after the retry",
      (line) => line.msg === "hostnames updated" && line.removed === 2,
      20_000,
    )
  );
  assert.deepEqual(
    [update.addedHosts, update.removedHosts],
    [["new.example.com"], ["shop.example.com", "www.shop.example.com"]],
    "the INFO line names the hostnames added and removed",
  );
  const recovered = controller.logs.find((line) => line.msg === "reconcile recovered");
  assert.equal(
    typeof recovered?.failedForSeconds,
    "number",
    "the recovery says how long it failed, in seconds",
  );
  const refused = controller.logs.find((line) => line.msg.startsWith("hostname refused"));
  assert.equal(refused?.value, 'Not_Valid!"\u202e', "the refused value is raw, not quoted");
  controller.kill("SIGTERM");
  assert.equal((await controller.status).code, 0);
  await controller.waitForLog("the stop line", (line) => line.msg === "controller stopped");
  assert.deepEqual([...levels(controller.logs)].sort(), ["DEBUG", "INFO", "WARN"]);
  assert.deepEqual(schemaProblems(controller.logs), []);
});

Deno.test("log schema: the proxy's start-up, a failed dial and its drain obey it", async () => {
  await using proxy = await startProxy([
    "--target-host=127.0.0.1",
    `--target-http-port=${freePort()}`,
    "--log-level=debug",
  ]);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: proxy.http?.port ?? 0 });
  await conn.write(new TextEncoder().encode("GET / HTTP/1.0\r\n\r\n"));
  await proxy.waitForLog("the failed dial", (line) => line.msg.startsWith("backend dial failed"));
  conn.close();
  proxy.kill("SIGTERM");
  assert.equal((await proxy.status).code, 0);
  await proxy.waitForLog("the stop line", (line) => line.msg === "proxy stopped");
  const starting = proxy.starting;
  assert.equal(typeof starting.shutdownGraceSeconds, "number", "configured durations are seconds");
  assert.ok(levels(proxy.logs).has("WARN"));
  assert.deepEqual(schemaProblems(proxy.logs), []);
});

Deno.test("log schema: a fatal error's line obeys it, its error a string with its name and code", async () => {
  await using temp = await tempDir("ouroboros-log-schema-");
  await Deno.writeTextFile(`${temp.path}/file`, "");
  const result = await runOuroboros([
    "controller",
    "--mode=etc-hosts",
    "--cleanup",
    `--etc-hosts=${temp.path}/file/hosts`,
  ]);
  assert.equal(result.code, 1, result.stderr);
  const lines = parseLogLines(result.stderr);
  const fatal = lines.find((line) => line.level === "FATAL");
  assert.equal(typeof fatal?.error, "string", result.stderr);
  assert.equal(typeof fatal?.errorName, "string");
  assert.deepEqual(schemaProblems(lines), []);
});

Deno.test("log schema: kuberture's start-up, a publish, a reload needing a restart, a refused config and its stop obey it", async () => {
  await using cluster = await startCluster();
  putApiServerSlice(cluster.server, ["192.0.2.10"]);
  await using publisher = await startPublisher(cluster.kubeconfig);
  const kuberture = publisher.process;
  await kuberture.waitForLog("the first publish", (line) => line.msg === "output published");
  putApiServerSlice(cluster.server, ["192.0.2.10", "192.0.2.11"]);
  await kuberture.waitForLog(
    "the change published",
    (line) => line.msg === "output published" && line.addresses === 2,
  );
  await Deno.writeTextFile(publisher.config, KUBERTURE_CONFIG.replace("127.0.0.1:0", "127.0.0.1:1"));
  await kuberture.waitForLog("the restart warning", (line) => line.level === "WARN", 15_000);
  await Deno.writeTextFile(publisher.config, "outputs: [\n");
  await kuberture.waitForLog("the refused config", (line) => line.level === "ERROR", 15_000);
  kuberture.kill("SIGTERM");
  assert.equal((await kuberture.status).code, 0);
  await kuberture.waitForLog("the stop line", (line) => line.msg === "kuberture stopped");
  assert.deepEqual([...levels(kuberture.logs)].filter((level) => level !== "DEBUG").sort(), [
    "ERROR",
    "INFO",
    "WARN",
  ]);
  assert.deepEqual(schemaProblems(kuberture.logs), []);
});

Deno.test("log schema: dns's start-up, a refused hostname, an upstream that does not answer and its stop obey it", async () => {
  await using cluster = await startCluster();
  cluster.service("ouroboros/ouroboros-proxy", ["10.96.0.7"]);
  putClientPods(cluster.server);
  await using responder = await startResponder(cluster.kubeconfig);
  const dns = responder.process;
  await waitFor("dns to be ready", async () => (await dns.get("/readyz")).status === 200, {
    timeoutMs: 20_000,
  });
  cluster.ingress("evil/x", { tls: ['Not_Valid!"'] });
  await dns.waitForLog("the refused hostname", (line) => line.msg.startsWith("hostname refused"), 15_000);
  await responder.upstream[Symbol.asyncDispose]();
  await askFrom(responder, CERT_MANAGER_IP, "elsewhere.example.org").catch(() => []);
  await dns.waitForLog("the SERVFAIL warning", (line) => line.msg.startsWith("no upstream answered"), 15_000);
  dns.kill("SIGTERM");
  assert.equal((await dns.status).code, 0);
  await dns.waitForLog("the stop line", (line) => line.msg === "dns stopped");
  assert.equal(dns.logs.find((line) => line.msg.startsWith("hostname refused"))?.value, 'Not_Valid!"');
  assert.deepEqual(schemaProblems(dns.logs), []);
});
