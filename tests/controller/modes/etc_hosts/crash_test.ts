import assert from "node:assert/strict";
import { applyHostsBlock } from "../../../../lib/controller/modes/etc_hosts/hosts_block.ts";
import { EtcHostsSink } from "../../../../lib/controller/modes/etc_hosts/etc_hosts_sink.ts";
import { DEBIAN, expectedBlock, IP, tempHostsFile as hostsFile } from "./support.ts";
import { runWriter, type WriterResult } from "./writer_process.ts";

const AFTER = "10.9.9.9\tafter-the-block.internal # someone else's, below ours\n";
const HOSTS = ["api.example.com", "app.example.com", "shop.example.org"];
const MANY = Array.from({ length: 80 }, (_, index) => `service-${index}.apps.example.com`);

function assertKilledAt(run: WriterResult, hook: string): void {
  assert.equal(run.signal, "SIGKILL", run.stderr);
  assert.deepEqual(run.reports, [{ paused: hook }], "killed in its first write, before any step finished");
}

/** What every resolver reads: glibc and musl stop a line at NUL, so the text up to the first NUL. */
function resolverView(text: string): string {
  const nul = text.indexOf("\u0000");
  return nul < 0 ? text : text.slice(0, nul);
}

async function repairWithSink(path: string, hosts: readonly string[]): Promise<void> {
  const outcome = await new EtcHostsSink({ path, proxyIp: IP }).reconcile(hosts, AbortSignal.timeout(20_000));
  assert.equal(outcome.kind, "written");
  assert.ok(
    outcome.notices?.some((notice) => notice.level === "warn" && notice.message.includes("NUL bytes")),
    "the repair is said (a WARN notice the controller logs) so an operator learns the last write was interrupted",
  );
}

Deno.test("kill -9 between the write and the truncate of a block removal: never empty, repaired next run (T-4.3)", async () => {
  const before = DEBIAN + expectedBlock(IP, MANY) + AFTER;
  await using fixture = await hostsFile(before);
  const run = await runWriter(
    { path: fixture.path, ip: IP, steps: [{ hosts: [] }], pauseAt: "afterWrite" },
    { killWhenPaused: true },
  );
  assertKilledAt(run, "afterWrite");

  const crashed = await Deno.readTextFile(fixture.path);
  assert.equal(crashed.length, before.length, "the file was not shortened yet");
  assert.equal(resolverView(crashed), DEBIAN + AFTER, "new content, others' lines included, then only NULs");
  const tail = crashed.slice((DEBIAN + AFTER).length);
  assert.equal(tail, "\u0000".repeat(tail.length));

  await repairWithSink(fixture.path, []);
  assert.equal(await Deno.readTextFile(fixture.path), DEBIAN + AFTER);
});

Deno.test("kill -9 between the write and the truncate of a large shrink: the new block is already in place (T-4.3)", async () => {
  const before = DEBIAN + expectedBlock(IP, MANY) + AFTER;
  const after = DEBIAN + expectedBlock(IP, HOSTS) + AFTER;
  await using fixture = await hostsFile(before);
  const run = await runWriter(
    { path: fixture.path, ip: IP, steps: [{ hosts: HOSTS }], pauseAt: "afterWrite" },
    { killWhenPaused: true },
  );
  assertKilledAt(run, "afterWrite");
  const crashed = await Deno.readTextFile(fixture.path);
  assert.equal(crashed.length, before.length);
  assert.equal(resolverView(crashed), after);

  await repairWithSink(fixture.path, HOSTS);
  assert.equal(await Deno.readTextFile(fixture.path), after);
});

Deno.test("kill -9 between the reserve and the write of a growing block: the old content is intact (T-4.3)", async () => {
  const before = DEBIAN + expectedBlock(IP, HOSTS) + AFTER;
  await using fixture = await hostsFile(before);
  const run = await runWriter(
    { path: fixture.path, ip: IP, steps: [{ hosts: MANY }], pauseAt: "afterReserve" },
    { killWhenPaused: true },
  );
  assertKilledAt(run, "afterReserve");
  const crashed = await Deno.readTextFile(fixture.path);
  assert.ok(crashed.length > before.length, "the reserve was appended");
  assert.equal(resolverView(crashed), before, "old content, then only NULs");

  await repairWithSink(fixture.path, MANY);
  const repaired = await Deno.readTextFile(fixture.path);
  assert.equal(repaired, DEBIAN + expectedBlock(IP, MANY) + AFTER);
  assert.equal(applyHostsBlock(repaired, { ip: IP, hosts: MANY }).kind, "unchanged");
});

Deno.test("the writer runs to completion in a child process when nobody kills it", async () => {
  await using fixture = await hostsFile(DEBIAN);
  const run = await runWriter({ path: fixture.path, ip: IP, steps: [{ hosts: HOSTS }, { cleanup: true }] });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(run.reports.map((report) => "outcome" in report ? report.outcome : "?"), [
    "written",
    "removed",
  ]);
  assert.equal(await Deno.readTextFile(fixture.path), DEBIAN);
});
