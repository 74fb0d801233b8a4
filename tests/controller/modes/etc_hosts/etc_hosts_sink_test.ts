import assert from "node:assert/strict";
import { EtcHostsSink } from "../../../../lib/controller/modes/etc_hosts/etc_hosts_sink.ts";
import type { Notice, SinkOutcome } from "../../../../lib/controller/modes/sink.ts";
import { applyPatch } from "../../../support/apply_patch.ts";
import { DEBIAN, END, expectedBlock, FIXTURES, IP, tempHostsFile as hostsFile } from "./support.ts";

const signal = () => AbortSignal.timeout(20_000);

/**
 * Reconciles `hosts` and returns the outcome without its diff, having checked that the diff takes
 * the file as it was to the file as it is now, under a header naming the file.
 */
async function reconcileChecked(
  sink: EtcHostsSink,
  path: string,
  hosts: readonly string[],
): Promise<unknown> {
  const before = await Deno.readTextFile(path);
  const outcome = await sink.reconcile(hosts, signal());
  if (outcome.kind !== "written" && outcome.kind !== "previewed") return outcome;
  const { diff = "", names, ...rest } = outcome;
  assert.deepEqual([names?.added.length, names?.removed.length], [outcome.added, outcome.removed]);
  assert.ok(diff.startsWith(`--- a/${path.slice(1)}\n+++ b/${path.slice(1)}\n`), diff);
  const after = outcome.kind === "written" ? await Deno.readTextFile(path) : undefined;
  if (after !== undefined) assert.equal(applyPatch(before, diff), after);
  return rest;
}

Deno.test("the sink reports written with added/removed counts and the diff, then unchanged", async () => {
  await using fixture = await hostsFile(DEBIAN);
  const sink = new EtcHostsSink({ path: fixture.path, proxyIp: IP });
  assert.equal(sink.description, `etc-hosts ${fixture.path} (${IP})`);
  const reconcile = (hosts: readonly string[]) => reconcileChecked(sink, fixture.path, hosts);

  assert.deepEqual(await reconcile(["a.example.com", "b.example.com"]), {
    kind: "written",
    hosts: 2,
    added: 2,
    removed: 0,
  });
  assert.deepEqual(await reconcile(["a.example.com", "b.example.com"]), { kind: "unchanged", hosts: 2 });
  assert.deepEqual(await reconcile(["b.example.com", "c.example.com", "d.example.com"]), {
    kind: "written",
    hosts: 3,
    added: 2,
    removed: 1,
  });
  assert.deepEqual(await reconcile([]), { kind: "written", hosts: 0, added: 0, removed: 3 });
  assert.equal(await Deno.readTextFile(fixture.path), DEBIAN);
});

Deno.test("a new proxy IP rewrites the entries without counting hosts as added or removed", async () => {
  await using fixture = await hostsFile(DEBIAN + expectedBlock("10.0.0.1", ["a.example.com"]));
  const sink = new EtcHostsSink({ path: fixture.path, proxyIp: "fd00::10" });
  assert.deepEqual(await reconcileChecked(sink, fixture.path, ["a.example.com"]), {
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

Deno.test("dry run: every fixture is previewed with the diff a write makes; bytes and mtime stay", async (t) => {
  for (const { name, text } of FIXTURES) {
    await t.step(name, async () => {
      await using fixture = await hostsFile(text);
      const stat = await Deno.stat(fixture.path);
      const sink = new EtcHostsSink({ path: fixture.path, proxyIp: IP, dryRun: true });
      const hosts = ["a.example.com", "b.example.com"];
      const preview = await sink.reconcile(hosts, signal());
      assert.ok(preview.kind === "previewed", preview.kind);
      assert.deepEqual(await sink.reconcile(hosts, signal()), preview, "the same preview again");
      assert.deepEqual(await Deno.readFile(fixture.path), new TextEncoder().encode(text));
      assert.equal((await Deno.stat(fixture.path)).mtime?.getTime(), stat.mtime?.getTime());

      const written = await new EtcHostsSink({ path: fixture.path, proxyIp: IP }).reconcile(hosts, signal());
      assert.ok(written.kind === "written");
      assert.equal(preview.diff, written.diff, "the preview is the diff of the real write");
      assert.deepEqual(
        [preview.hosts, preview.added, preview.removed],
        [written.hosts, written.added, written.removed],
      );
    });
  }
});

Deno.test("dry run: a matching block is unchanged, a removal is previewed, refusals stay refusals", async () => {
  const withBlock = DEBIAN + expectedBlock(IP, ["a.example.com"]);
  await using fixture = await hostsFile(withBlock);
  const sink = new EtcHostsSink({ path: fixture.path, proxyIp: IP, dryRun: true });
  assert.deepEqual(await sink.reconcile(["a.example.com"], signal()), { kind: "unchanged", hosts: 1 });
  const removal = await sink.reconcile([], signal());
  assert.ok(removal.kind === "previewed");
  assert.equal(applyPatch(withBlock, removal.diff), DEBIAN);
  const refused = await new EtcHostsSink({ path: fixture.path, proxyIp: "10.0.0", dryRun: true }).reconcile(
    ["b.example.com"],
    signal(),
  );
  assert.equal(refused.kind === "refused" ? refused.problem : refused.kind, "invalid-ip");
  assert.equal(await Deno.readTextFile(fixture.path), withBlock);
});

Deno.test("dry run: a block in place with NUL filler after it (an interrupted write) is previewed as the repair", async () => {
  const clean = DEBIAN + expectedBlock(IP, ["a.example.com"]);
  await using fixture = await hostsFile(`${clean}\u0000\u0000\u0000`);
  const preview = await new EtcHostsSink({ path: fixture.path, proxyIp: IP, dryRun: true }).reconcile(
    ["a.example.com"],
    signal(),
  );
  assert.ok(preview.kind === "previewed", preview.kind);
  await new EtcHostsSink({ path: fixture.path, proxyIp: IP }).reconcile(["a.example.com"], signal());
  const repaired = await Deno.readTextFile(fixture.path);
  assert.equal(repaired.trimEnd(), clean.trimEnd(), "the filler became END-line padding");
  assert.equal(
    applyPatch(`${clean}\u0000\u0000\u0000`, preview.diff),
    repaired,
    "the preview shows those bytes",
  );
});
