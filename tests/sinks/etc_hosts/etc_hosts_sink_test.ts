import assert from "node:assert/strict";
import { cleanupHostsFile, EtcHostsSink } from "../../../lib/sinks/etc_hosts/etc_hosts_sink.ts";
import { captureLogs } from "../../support/log_capture.ts";
import { DEBIAN, END, expectedBlock, IP } from "./support.ts";

async function hostsFile(text: string): Promise<{ path: string } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "ouroboros-sink-" });
  await Deno.writeTextFile(`${dir}/hosts`, text);
  return { path: `${dir}/hosts`, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

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
  using logs = captureLogs("info");
  await using fixture = await hostsFile(`${DEBIAN}10.0.0.5 app.example.com\n`);
  const sink = new EtcHostsSink({ path: fixture.path, proxyIp: IP });
  const shadowWarnings = () => logs.at("WARN").filter((line) => line.msg.includes("first match"));

  await sink.reconcile(["api.example.com", "app.example.com"], signal());
  await sink.reconcile(["api.example.com", "app.example.com"], signal());
  assert.equal(shadowWarnings().length, 1);
  assert.deepEqual(shadowWarnings()[0]?.hosts, ["app.example.com"]);

  await sink.reconcile(["api.example.com"], signal());
  await sink.reconcile(["api.example.com", "app.example.com"], signal());
  assert.equal(shadowWarnings().length, 2, "warned again after the shadowed set changed back");
});

Deno.test("cleanupHostsFile removes the block (no proxy IP needed), then finds nothing to remove", async () => {
  await using fixture = await hostsFile(DEBIAN + expectedBlock(IP, ["a.example.com", "b.example.com"]));
  assert.deepEqual(await cleanupHostsFile(fixture.path, signal()), { kind: "removed", hosts: 2 });
  assert.equal(await Deno.readTextFile(fixture.path), DEBIAN);
  assert.deepEqual(await cleanupHostsFile(fixture.path, signal()), { kind: "absent" });
});

Deno.test("cleanupHostsFile refuses a damaged block instead of guessing what to delete", async () => {
  const damaged = `${DEBIAN}${expectedBlock(IP, ["a.example.com"])}${END}\n`;
  await using fixture = await hostsFile(damaged);
  const result = await cleanupHostsFile(fixture.path, signal());
  assert.equal(result.kind === "refused" ? result.problem : result.kind, "duplicate-end");
  assert.equal(await Deno.readTextFile(fixture.path), damaged);
});
