/**
 * `@kubernetes/client-node` as a second, independent client of the fake API server: its typed
 * read and list, its `Watch` receiving an event, its Lease calls and its server-side apply. The
 * client runs in a child process (`client_node_probe.ts`, see there why); the test drives the
 * fake and checks what it saw.
 */

import assert from "node:assert/strict";
import { type FakeApiServer, startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { ROOT } from "../support/ouroboros_process.ts";

const PROBE = new URL("./client_node_probe.ts", import.meta.url).pathname;

/** Starts the probe; its stdout is read line by line as JSON. */
function probe(
  server: FakeApiServer,
  command: "read" | "watch" | "lease" | "apply",
  env: Record<string, string> = {},
) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", "-P=test", PROBE, server.url, command],
    cwd: ROOT,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderr = new Response(child.stderr).text();
  let buffer = "";
  const next = async (): Promise<Record<string, unknown>> => {
    while (!buffer.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error(`the client-node probe ended early: ${await stderr}`);
      buffer += value;
    }
    const newline = buffer.indexOf("\n");
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    return JSON.parse(line);
  };
  const finish = async () => {
    await lines.cancel();
    const status = await child.status;
    return { code: status.code, stderr: await stderr };
  };
  return { next, finish, kill: () => child.kill("SIGKILL") };
}

Deno.test("client-node reads and lists ConfigMaps from the fake with their metadata intact", async () => {
  await using server = await startFakeApiServer();
  const stored = server.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "settings", namespace: "x", labels: { app: "demo" } },
    data: { greeting: "hello" },
  });
  server.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "other", namespace: "x" } });
  const run = probe(server, "read");
  try {
    const seen = await run.next();
    const metadata = stored.metadata as { resourceVersion: string; uid: string };
    assert.deepEqual(seen, {
      read: {
        data: { greeting: "hello" },
        resourceVersion: metadata.resourceVersion,
        uid: metadata.uid,
        creationTimestampIsDate: true,
      },
      list: { names: ["settings"], resourceVersion: server.resourceVersion() },
      missing: 404,
    });
  } finally {
    const { code, stderr } = await run.finish();
    assert.equal(code, 0, stderr);
  }
  assert.ok(server.audit.every((entry) => entry.userAgent.startsWith("kubernetes-client-javascript")));
});

Deno.test("client-node's Watch receives an ADDED event for an object created after it started", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  const run = probe(server, "watch", { PROBE_RESOURCE_VERSION: server.resourceVersion() });
  try {
    assert.deepEqual(await run.next(), { started: true });
    assert.equal(server.openWatches(), 1);
    server.create({
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: { name: "web", namespace: "shop" },
      spec: { rules: [{ host: "web.example" }] },
    });
    assert.deepEqual(await run.next(), { event: { type: "ADDED", name: "web" } });
  } catch (error) {
    run.kill();
    throw error;
  } finally {
    const { code, stderr } = await run.finish();
    assert.equal(code, 0, stderr);
  }
  const watch = server.audit.find((entry) => entry.watch)!;
  assert.equal(watch.query.allowWatchBookmarks, "true");
});

Deno.test("client-node's Lease calls: a racing create loses with 409, a stale replace is 409, a plain Date is refused", async () => {
  await using server = await startFakeApiServer();
  const run = probe(server, "lease");
  let winner = "";
  try {
    const seen = await run.next();
    const racers = seen.racers as [string, unknown][];
    assert.deepEqual(racers.map(([, code]) => code).sort(), [409, "ok"], "exactly one create won");
    winner = racers.find(([, code]) => code === "ok")![0];
    assert.deepEqual(seen, {
      racers,
      read: { holder: winner, renewTime: "2026-12-03T13:37:03.123000Z" },
      renewed: { renewTime: "2026-12-03T13:37:05.456000Z", resourceVersionMoved: true },
      stale: 409,
      // client-node serialises a plain Date with milliseconds, which the real server cannot parse
      // as a MicroTime; its V1MicroTime exists for this.
      plainDate: 400,
    });
  } finally {
    const { code, stderr } = await run.finish();
    assert.equal(code, 0, stderr);
  }
  const lease = server.get("coordination.k8s.io/v1", "Lease", "kube-system", "election")!;
  assert.deepEqual(lease.spec, {
    holderIdentity: winner,
    leaseDurationSeconds: 15,
    acquireTime: "2026-12-03T13:37:03.123000Z",
    renewTime: "2026-12-03T13:37:05.456000Z",
    leaseTransitions: 0,
  });
  assert.equal(server.get("coordination.k8s.io/v1", "Lease", "kube-system", "plain-date"), undefined);
});

Deno.test("client-node's server-side apply: created, refused on another manager's field, then forced", async () => {
  await using server = await startFakeApiServer();
  const run = probe(server, "apply");
  try {
    assert.deepEqual(await run.next(), {
      created: [["kuberture", "Apply"]],
      conflict: 409,
      forced: { target: "198.51.100.7", managers: [["kuberture", "Apply"], ["other", "Apply"]] },
    });
  } finally {
    const { code, stderr } = await run.finish();
    assert.equal(code, 0, stderr);
  }
  const patches = server.audit.filter((entry) => entry.method === "PATCH");
  assert.deepEqual(patches.map((entry) => [entry.status, entry.query.fieldManager, entry.query.force]), [
    [201, "kuberture", "false"],
    [409, "other", "false"],
    [200, "other", "true"],
  ]);
});
