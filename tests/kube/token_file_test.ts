import assert from "node:assert/strict";
import { KubeCredentialError } from "../../lib/kube/credentials.ts";
import { isUnauthorized } from "../../lib/kube/errors.ts";
import { TOKEN_FILE_REFRESH_MS, TokenFileSource } from "../../lib/kube/token_file.ts";
import { Transport } from "../../lib/kube/transport.ts";
import { LogRecorder } from "../support/log_recorder.ts";
import { startAuthServer } from "./auth_server.ts";
import { FakeClock } from "../support/fake_clock.ts";
import { tempDir } from "../support/temp_dir.ts";

async function withTokenFile(fn: (path: string) => Promise<void>): Promise<void> {
  await using dir = await tempDir("ouroboros-token-");
  await fn(`${dir.path}/token`);
}

Deno.test("a rotated token file is picked up about a minute later, not before", () =>
  withTokenFile(async (path) => {
    await Deno.writeTextFile(path, "first\n");
    await using server = startAuthServer(["first", "second"]);
    const clock = new FakeClock();
    using transport = new Transport({
      server: server.url,
      credentials: new TokenFileSource(path, { clock }),
    });
    const get = () => transport.json({ method: "GET", path: "/api" });

    await get();
    await Deno.writeTextFile(path, "second\n");
    clock.advanceSync(TOKEN_FILE_REFRESH_MS - 1);
    await get();
    clock.advanceSync(1);
    await get();
    assert.deepEqual(server.seen, ["Bearer first", "Bearer first", "Bearer second"]);
  }));

Deno.test("after a 401 the token file is re-read at once and the request retried once, and the log says so", () =>
  withTokenFile(async (path) => {
    await Deno.writeTextFile(path, "old");
    await using server = startAuthServer(["old"]);
    const clock = new FakeClock();
    const log = new LogRecorder();
    using transport = new Transport({
      server: server.url,
      credentials: new TokenFileSource(path, { clock }),
      log,
    });
    await transport.json({ method: "GET", path: "/api" });

    // The kubelet rotates the token and the server stops accepting the old one.
    await Deno.writeTextFile(path, "new");
    server.accepted.clear();
    server.accepted.add("new");
    assert.deepEqual(await transport.json({ method: "GET", path: "/api" }), {
      kind: "APIVersions",
      versions: ["v1"],
    });
    assert.deepEqual(server.seen, ["Bearer old", "Bearer old", "Bearer new"]);
    assert.deepEqual(log.entries, [{
      level: "info",
      message: "the API server refused our credentials; refreshing them and retrying once",
      properties: { request: "GET /api", credentials: `token file ${path}` },
    }]);
  }));

Deno.test("a token the server keeps refusing fails with 401 after exactly one retry", () =>
  withTokenFile(async (path) => {
    await Deno.writeTextFile(path, "revoked");
    await using server = startAuthServer([]);
    using transport = new Transport({
      server: server.url,
      credentials: new TokenFileSource(path, { clock: new FakeClock() }),
    });
    const error = await transport.json({ method: "GET", path: "/api" }).then(() => undefined, (e) => e);
    assert.ok(isUnauthorized(error), String(error));
    assert.deepEqual(server.seen, ["Bearer revoked", "Bearer revoked"]);
  }));

Deno.test("when a re-read fails, the previous token is kept with a warning; a first read that fails is an error", () =>
  withTokenFile(async (path) => {
    const clock = new FakeClock();
    const log = new LogRecorder();
    const missing = new TokenFileSource(path, { clock, log });
    const error = await missing.current().then(() => undefined, (e) => e);
    assert.ok(error instanceof KubeCredentialError);
    assert.match(error.message, /cannot read the token file .*token/);

    await Deno.writeTextFile(path, "kept");
    const source = new TokenFileSource(path, { clock, log });
    assert.deepEqual(await source.current(), { authorization: "Bearer kept" });
    assert.equal(log.entries.length, 0, "a first read that fails only throws");
    await Deno.remove(path);
    clock.advanceSync(TOKEN_FILE_REFRESH_MS);
    assert.deepEqual(await source.current(), { authorization: "Bearer kept" });
    assert.deepEqual(log.entries.map((entry) => [entry.level, entry.message, entry.properties.path]), [
      ["warn", "cannot re-read the token file; using the previous token", path],
    ]);
    await Deno.writeTextFile(path, "   \n");
    source.invalidate();
    assert.deepEqual(
      await source.current(),
      { authorization: "Bearer kept" },
      "an empty file is not a token",
    );
  }));
