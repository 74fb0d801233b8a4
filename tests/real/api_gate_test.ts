/**
 * The soak's fault gate (`api_gate.ts`) in front of the in-memory API server: what a client sees
 * of each fault. The soak proves it against the real apiserver; these pin each behaviour down.
 *
 * @module
 */

import assert from "node:assert/strict";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { makePki } from "../support/pki.ts";
import { startApiGate } from "./api_gate.ts";

const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";

function configMap(name: string): Record<string, unknown> {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { namespace: "default", name }, data: {} };
}

async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, wanted: string): Promise<string> {
  let text = "";
  while (!text.includes(wanted)) {
    const chunk = await reader.read();
    if (chunk.done) throw new Error(`the stream ended before ${wanted}: ${text}`);
    text += new TextDecoder().decode(chunk.value);
  }
  return text;
}

Deno.test("api gate: a 500 burst is answered as Status objects, then requests pass again", async () => {
  await using pki = await makePki();
  await using server = await startFakeApiServer();
  await using gate = startApiGate({ upstream: server.url, caPem: pki.caPem });
  gate.failNext({ code: 500, count: 2 });
  for (let i = 0; i < 2; i++) {
    const refused = await fetch(`${gate.url}${CONFIGMAPS}`);
    assert.equal(refused.status, 500);
    assert.equal((await refused.json()).reason, "InternalError");
  }
  const passed = await fetch(`${gate.url}${CONFIGMAPS}`);
  assert.equal(passed.status, 200);
  assert.equal((await passed.json()).kind, "ConfigMapList");
});

Deno.test("api gate: a cut watch ends mid-line, so the client sees a broken stream, and the gate goes on", async () => {
  await using pki = await makePki();
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  await using gate = startApiGate({ upstream: server.url, caPem: pki.caPem });
  const watch = await fetch(`${gate.url}${CONFIGMAPS}?watch=true&resourceVersion=0`);
  assert.equal(watch.status, 200);
  const reader = watch.body!.getReader();
  server.create(configMap("first"));
  await readUntil(reader, '"first"');
  gate.cutWatches();
  let rest = "";
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) break;
    rest += new TextDecoder().decode(chunk.value);
  }
  assert.ok(
    !rest.endsWith("\n") && rest.length > 0,
    `the last line is left half-written: ${JSON.stringify(rest)}`,
  );
  assert.throws(() => JSON.parse(rest.split("\n").at(-1)!), "the fragment does not decode");
  const again = await fetch(`${gate.url}${CONFIGMAPS}`);
  assert.equal(again.status, 200);
  await again.body?.cancel();
});

Deno.test("api gate: a partitioned identity's read waits for the heal; other identities pass meanwhile", async () => {
  await using pki = await makePki();
  await using server = await startFakeApiServer();
  await using gate = startApiGate({ upstream: server.url, caPem: pki.caPem });
  gate.partition("token-a");
  assert.ok(gate.partitioned("token-a"));
  let answered = false;
  const held = fetch(`${gate.url}${CONFIGMAPS}`, { headers: { Authorization: "Bearer token-a" } }).then(
    (response) => {
      answered = true;
      return response;
    },
  );
  const other = await fetch(`${gate.url}${CONFIGMAPS}`, { headers: { Authorization: "Bearer token-b" } });
  assert.equal(other.status, 200);
  await other.body?.cancel();
  assert.equal(answered, false, "the partitioned read is still unanswered after another identity's answer");
  gate.heal("token-a");
  const response = await held;
  assert.equal(response.status, 200);
  await response.body?.cancel();
});
