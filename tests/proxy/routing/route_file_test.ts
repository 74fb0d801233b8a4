/**
 * `--routes-file` in process, on the real file system: the table read at start, a ConfigMap-style
 * symlink swap picked up through the folder watch, an invalid table refused with one ERROR and a
 * count while the last good one keeps serving, and a start that can never get a table refused.
 */

import assert from "node:assert/strict";
import { ConfigError } from "../../../lib/cli/options.ts";
import { createProxyMetrics } from "../../../lib/proxy/proxy_metrics.ts";
import { RouteFile, routeFileFolder } from "../../../lib/proxy/routing/route_file.ts";
import { renderRouteTable, type RouteTable } from "../../../lib/routes/route_table.ts";
import { systemClock } from "../../../lib/util/clock.ts";
import { LogRecorder } from "../../support/log_recorder.ts";
import { tempDir } from "../../support/temp_dir.ts";
import { waitFor } from "../../support/wait.ts";

function table(host: string): RouteTable {
  return {
    routes: [{ host, backend: "gateway" }],
    backends: new Map([["gateway", {
      address: "10.96.0.12",
      httpPort: 80,
      httpsPort: 443,
      proxyProtocol: "v2",
    }]]),
  };
}

/** Writes `text` the way the kubelet updates a ConfigMap volume: a new folder, then one symlink rename. */
async function kubeletWrite(folder: string, text: string, generation: number): Promise<void> {
  const data = `${folder}/..${generation}`;
  await Deno.mkdir(data);
  await Deno.writeTextFile(`${data}/routes.json`, text);
  await Deno.symlink(`..${generation}`, `${folder}/..data_tmp`);
  await Deno.rename(`${folder}/..data_tmp`, `${folder}/..data`);
  try {
    await Deno.lstat(`${folder}/routes.json`);
  } catch {
    await Deno.symlink("..data/routes.json", `${folder}/routes.json`);
  }
}

Deno.test("route file: read at start, swapped through the folder watch, an invalid table keeps the last good one", async () => {
  await using dir = await tempDir("ouroboros-routes-");
  await kubeletWrite(dir.path, renderRouteTable(table("app.example.com")), 1);
  const log = new LogRecorder();
  const metrics = createProxyMetrics({ rss: () => 0, version: "test", routing: true });
  const file = RouteFile.load(`${dir.path}/routes.json`, { clock: systemClock, log, metrics });
  assert.deepEqual(file.table, table("app.example.com"));
  const applied: RouteTable[] = [];
  const stop = new AbortController();
  const running = file.run(stop.signal, (next) => applied.push(next));
  try {
    await kubeletWrite(dir.path, renderRouteTable(table("shop.example.com")), 2);
    await waitFor("the swapped table", () => applied.length === 1);
    assert.deepEqual(applied[0], table("shop.example.com"));
    assert.equal(metrics.routeTableRoutes.labels({}).value, 1);

    await kubeletWrite(
      dir.path,
      '{"version": 1, "routes": [{"host": "x", "backend": "gone"}], "backends": {}}',
      3,
    );
    const refused = await waitFor("the ERROR", () => log.find("error", "route table is invalid").at(0));
    assert.deepEqual(refused.properties.problems, [
      '$.routes[0].host: "x" has a single label; only names with a dot can be public hostnames',
      '$.routes[0].backend: "gone" is not in $.backends; give the name of one of its backends',
    ]);
    assert.equal(refused.properties.serving, "the last good table");
    assert.equal(metrics.routeTableLoads.labels({ result: "invalid" }).value, 1);
    assert.equal(applied.length, 1, "nothing applied: the last good table stays");

    await kubeletWrite(dir.path, renderRouteTable(table("api.example.com")), 4);
    await waitFor("the good table after the bad one", () => applied.length === 2);
    assert.deepEqual(applied[1], table("api.example.com"));
    assert.equal(log.find("error", "route table is invalid").length, 1, "one ERROR per bad table");
    assert.equal(metrics.routeTableLoads.labels({ result: "ok" }).value, 3);
  } finally {
    stop.abort();
    await running;
  }
});

Deno.test("route file: none yet at start is a WARN and the default target; a missing folder fails the start", async () => {
  await using dir = await tempDir("ouroboros-routes-");
  const log = new LogRecorder();
  const metrics = createProxyMetrics({ rss: () => 0, version: "test", routing: true });
  const file = RouteFile.load(`${dir.path}/routes.json`, { clock: systemClock, log, metrics });
  assert.equal(file.table, undefined);
  assert.equal(
    log.find("warn", "route table not found; every connection goes to the default target").length,
    1,
  );
  const applied: RouteTable[] = [];
  const stop = new AbortController();
  const running = file.run(stop.signal, (next) => applied.push(next));
  await Deno.writeTextFile(`${dir.path}/routes.json`, renderRouteTable(table("app.example.com")));
  await waitFor("the table once it appears", () => applied.length === 1);
  stop.abort();
  await running;

  const missing = `${dir.path}/nope/routes.json`;
  assert.throws(
    () => RouteFile.load(missing, { clock: systemClock, log, metrics }),
    (error: unknown) =>
      error instanceof ConfigError && error.problems.length === 1 &&
      error.problems[0]!.startsWith(`--routes-file ${missing}: its folder ${dir.path}/nope does not exist`),
  );
});

Deno.test("routeFileFolder: the folder a path's file lives in", () => {
  assert.equal(routeFileFolder("/etc/ouroboros/routes/routes.json"), "/etc/ouroboros/routes");
  assert.equal(routeFileFolder("/routes.json"), "/");
  assert.equal(routeFileFolder("routes.json"), ".");
});
