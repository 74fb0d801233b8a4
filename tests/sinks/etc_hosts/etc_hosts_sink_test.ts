import assert from "node:assert/strict";
import { EtcHostsSink } from "../../../lib/sinks/etc_hosts/etc_hosts_sink.ts";
import type { Notice, SinkOutcome } from "../../../lib/sinks/sink.ts";
import { DEBIAN, END, expectedBlock, IP, tempHostsFile as hostsFile } from "./support.ts";

const signal = () => AbortSignal.timeout(20_000);

Deno.test("the sink reports written with added/removed counts, then unchanged", async () => {
  await using fixture = await hostsFile(DEBIAN);
  const sink = new EtcHostsSink({ path: fixture.path, proxyIp: IP });
  assert.equal(sink.description, `etc-hosts ${fixture.path} (${IP})`);

  assert.deepEqual(await sink.reconcile(["a.example.com", "b.example.com"], signal()), {
    kind: "written",
    hosts: 2,
    added: 2,
    removed: 0,
  });
  assert.deepEqual(await sink.reconcile(["a.example.com", "b.example.com"], signal()), {
    kind: "unchanged",
    hosts: 2,
  });
  assert.deepEqual(await sink.reconcile(["b.example.com", "c.example.com", "d.example.com"], signal()), {
    kind: "written",
    hosts: 3,
    added: 2,
    removed: 1,
  });
  assert.deepEqual(await sink.reconcile([], signal()), { kind: "written", hosts: 0, added: 0, removed: 3 });
  assert.equal(await Deno.readTextFile(fixture.path), DEBIAN);
});

Deno.test("a new proxy IP rewrites the entries without counting hosts as added or removed", async () => {
  await using fixture = await hostsFile(DEBIAN + expectedBlock("10.0.0.1", ["a.example.com"]));
  const sink = new EtcHostsSink({ path: fixture.path, proxyIp: "fd00::10" });
  assert.deepEqual(await sink.reconcile(["a.example.com"], signal()), {
    kind: "written",
    hosts: 1,
    added: 0,
    removed: 0,
  });
  assert.equal(await Deno.readTextFile(fixture.path), DEBIAN + expectedBlock("fd00::10", ["a.example.com"]));
});

Deno.test("refusals name the file and the fix, and leave it alone (T-4.6, T-4.7)", async (t) => {
  await t.step("invalid proxy IP", async () => {
    await using fixture = await hostsFile(DEBIAN);
    const outcome = await new EtcHostsSink({ path: fixture.path, proxyIp: "10.0.0" }).reconcile([
      "a.example.com",
    ], signal());
    assert.equal(outcome.kind, "refused");
    if (outcome.kind === "refused") {
      assert.equal(outcome.problem, "invalid-ip");
      assert.match(outcome.message, /--proxy-ip/);
    }
    assert.equal(await Deno.readTextFile(fixture.path), DEBIAN);
  });
  await t.step("damaged markers", async () => {
    const damaged = `${DEBIAN}${END}\n`;
    await using fixture = await hostsFile(damaged);
    const outcome = await new EtcHostsSink({ path: fixture.path, proxyIp: IP }).reconcile(
      ["a.example.com"],
      signal(),
    );
    assert.equal(outcome.kind, "refused");
    if (outcome.kind === "refused") {
      assert.equal(outcome.problem, "end-without-begin");
      assert.ok(outcome.message.includes(fixture.path));
      assert.match(outcome.message, /Fix it by hand/);
    }
    assert.equal(await Deno.readTextFile(fixture.path), damaged);
  });
  await t.step("a path not named hosts", async () => {
    await using fixture = await hostsFile(DEBIAN);
    const path = fixture.path.replace(/hosts$/, "passwd");
    const outcome = await new EtcHostsSink({ path, proxyIp: IP }).reconcile(["a.example.com"], signal());
    assert.equal(outcome.kind === "refused" ? outcome.problem : outcome.kind, "unsafe-path");
  });
});

Deno.test("an earlier entry for one of our names is warned about once per change of that set (T-4.5)", async () => {
  await using fixture = await hostsFile(`${DEBIAN}10.0.0.5 app.example.com\n`);
  const sink = new EtcHostsSink({ path: fixture.path, proxyIp: IP });
  const shadowWarnings = (outcome: SinkOutcome): Notice[] =>
    (outcome.notices ?? []).filter((notice) => notice.message.includes("first match"));

  const first = await sink.reconcile(["api.example.com", "app.example.com"], signal());
  assert.deepEqual(shadowWarnings(first), [{
    level: "warn",
    message:
      "an entry above the ouroboros block already names these hosts; resolvers use the first match, so on " +
      "this node they do not reach the proxy; remove or change those entries",
    properties: { path: fixture.path, hosts: ["app.example.com"] },
  }]);
  const repeat = await sink.reconcile(["api.example.com", "app.example.com"], signal());
  assert.deepEqual(repeat, { kind: "unchanged", hosts: 2 }, "said once while the set lasts");

  assert.deepEqual(shadowWarnings(await sink.reconcile(["api.example.com"], signal())), []);
  const back = await sink.reconcile(["api.example.com", "app.example.com"], signal());
  assert.equal(shadowWarnings(back).length, 1, "warned again after the shadowed set changed back");
});

Deno.test("an I/O error is a failed outcome for the controller to retry, an abort rejects", async () => {
  await using fixture = await hostsFile(DEBIAN);
  const path = `${fixture.path}/hosts`;
  const outcome = await new EtcHostsSink({ path, proxyIp: IP }).reconcile(["a.example.com"], signal());
  assert.equal(outcome.kind, "failed");
  if (outcome.kind === "failed") assert.match(outcome.message, new RegExp(`^cannot open ${path}: `));

  const controller = new AbortController();
  controller.abort(new Error("shutting down"));
  await assert.rejects(
    new EtcHostsSink({ path: fixture.path, proxyIp: IP }).reconcile(["a.example.com"], controller.signal),
    /shutting down/,
  );
  assert.equal(await Deno.readTextFile(fixture.path), DEBIAN);
});
