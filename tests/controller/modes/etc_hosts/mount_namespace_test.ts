/**
 * The DaemonSet's real situation, reproduced in a private user and mount namespace: the node's
 * hosts file bind-mounted as a single file, on a read-only parent, on a full filesystem. The
 * writer runs as a child process inside the namespace (`writer_process.ts`).
 */

import assert from "node:assert/strict";
import { applyHostsBlock } from "../../../../lib/controller/modes/etc_hosts/hosts_block.ts";
import { applyPatch } from "../../../support/apply_patch.ts";
import { DEBIAN, expectedBlock, IP } from "./support.ts";
import { runWriter, skipWithoutNamespaces, type WriterResult } from "./writer_process.ts";

const HOSTS = ["api.example.com", "app.example.com", "shop.example.org"];
const MANY = Array.from({ length: 60 }, (_, index) => `service-${index}.apps.example.com`);
const ignore = await skipWithoutNamespaces("bind-mount tests (T-4.1, T-4.2, T-4.8)");

interface Layout extends AsyncDisposable {
  readonly root: string;
  /** The node's real file, as the host sees it. */
  readonly node: string;
}

async function layout(): Promise<Layout> {
  const root = await Deno.makeTempDir({ prefix: "ouroboros-ns-" });
  await Deno.mkdir(`${root}/node`);
  await Deno.mkdir(`${root}/pod/etc`, { recursive: true });
  await Deno.writeTextFile(`${root}/node/hosts`, DEBIAN);
  // The mount point, as kubelet creates it for a hostPath of type File.
  await Deno.writeTextFile(`${root}/pod/etc/hosts`, "");
  return {
    root,
    node: `${root}/node/hosts`,
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

function outcomes(run: WriterResult): string[] {
  assert.equal(run.code, 0, run.stderr);
  return run.reports.flatMap((report) =>
    "outcome" in report ? [report.detail === "" ? report.outcome : `${report.outcome}: ${report.detail}`] : []
  );
}

function renameProbe(run: WriterResult): { create: string; rename: string } {
  const probe = run.reports.find((report) => "probe" in report);
  assert.ok(probe !== undefined && "probe" in probe, run.stderr);
  return { create: probe.create, rename: probe.rename };
}

Deno.test({
  name: "T-4.1 single-file bind mount: rename onto it fails with EBUSY, the in-place write works, same inode",
  ignore,
  fn: async () => {
    await using dirs = await layout();
    const { ino } = await Deno.stat(dirs.node);
    const target = `${dirs.root}/pod/etc/hosts`;
    const run = await runWriter(
      {
        path: target,
        ip: IP,
        renameProbe: `${dirs.root}/pod/etc/.ouroboros-hosts-tmp`,
        steps: [{ hosts: HOSTS }, { hosts: MANY }, { hosts: HOSTS.slice(0, 1) }, { hosts: HOSTS }],
      },
      { namespaceSetup: `mount --bind '${dirs.node}' '${target}'` },
    );
    assert.deepEqual(
      renameProbe(run),
      { create: "ok", rename: "EBUSY" },
      "the original's write path fails here",
    );
    assert.deepEqual(outcomes(run), ["written", "written", "written", "written"]);
    const inside = run.reports.flatMap((report) => "ino" in report ? [report.ino] : []);
    assert.deepEqual(inside, [ino, ino, ino, ino], "the mounted file keeps its inode");

    const text = await Deno.readTextFile(dirs.node);
    assert.equal(
      applyHostsBlock(text, { ip: IP, hosts: HOSTS }).kind,
      "unchanged",
      "the node's file has the block",
    );
    assert.ok(text.startsWith(DEBIAN));
    assert.equal((await Deno.stat(dirs.node)).ino, ino);
    assert.equal(
      await Deno.readTextFile(`${dirs.root}/pod/etc/hosts`),
      "",
      "the mount stayed in the namespace",
    );

    const cleanup = await runWriter(
      { path: target, ip: IP, steps: [{ cleanup: true }] },
      { namespaceSetup: `mount --bind '${dirs.node}' '${target}'` },
    );
    assert.deepEqual(outcomes(cleanup), ["removed"]);
    assert.equal(
      await Deno.readTextFile(dirs.node),
      DEBIAN,
      "cleanup gives the node its original bytes back",
    );
  },
});

Deno.test({
  name: "T-4.2 read-only parent directory: no temp file can exist, the in-place write still works",
  ignore,
  fn: async () => {
    await using dirs = await layout();
    const etc = `${dirs.root}/pod/etc`;
    const setup = `mount --bind '${etc}' '${etc}' && mount -o remount,bind,ro '${etc}' && ` +
      `mount --bind '${dirs.node}' '${etc}/hosts'`;
    const run = await runWriter(
      {
        path: `${etc}/hosts`,
        ip: IP,
        renameProbe: `${etc}/.ouroboros-hosts-tmp`,
        steps: [{ hosts: MANY }, { hosts: HOSTS }, { hosts: [] }, { hosts: HOSTS }],
      },
      { namespaceSetup: setup },
    );
    assert.deepEqual(renameProbe(run), { create: "EROFS", rename: "not tried" });
    assert.deepEqual(outcomes(run), ["written", "written", "written", "written"]);
    assert.equal(await Deno.readTextFile(dirs.node), DEBIAN + expectedBlock(IP, HOSTS));
    const names = [];
    for await (const entry of Deno.readDir(etc)) names.push(entry.name);
    assert.deepEqual(names, ["hosts"], "no temp file was left next to the target");
  },
});

Deno.test({
  name: "a read-only bind mount of the file itself is refused with a clear reason, nothing changes",
  ignore,
  fn: async () => {
    await using dirs = await layout();
    const target = `${dirs.root}/pod/etc/hosts`;
    const run = await runWriter(
      { path: target, ip: IP, steps: [{ hosts: HOSTS }] },
      { namespaceSetup: `mount --bind '${dirs.node}' '${target}' && mount -o remount,bind,ro '${target}'` },
    );
    const [outcome] = outcomes(run);
    assert.match(
      outcome ?? "",
      /^refused: not-writable: .*Read-only file system.*hostPath mount must be read-write/,
    );
    assert.equal(await Deno.readTextFile(dirs.node), DEBIAN);
  },
});

Deno.test({
  name:
    "dry run: a read-only bind mount of the file is previewed, not refused: the file is never opened for writing",
  ignore,
  fn: async () => {
    await using dirs = await layout();
    const target = `${dirs.root}/pod/etc/hosts`;
    const run = await runWriter(
      { path: target, ip: IP, steps: [{ hosts: HOSTS }, { hosts: HOSTS }], dryRun: true },
      { namespaceSetup: `mount --bind '${dirs.node}' '${target}' && mount -o remount,bind,ro '${target}'` },
    );
    const steps = run.reports.flatMap((report) => "outcome" in report ? [report] : []);
    assert.deepEqual(steps.map((step) => step.outcome), ["previewed", "previewed"], run.stderr);
    assert.equal(applyPatch(DEBIAN, steps[0]?.detail ?? ""), DEBIAN + expectedBlock(IP, HOSTS));
    assert.equal(await Deno.readTextFile(dirs.node), DEBIAN);
  },
});

Deno.test({
  name:
    "T-4.8 ENOSPC on a full tmpfs: the write fails (for the controller to retry), the old content is intact, shrinking still works",
  ignore,
  fn: async () => {
    await using dirs = await layout();
    const big = Array.from({ length: 150 }, (_, index) => `service-${index}.apps.example.com`);
    const seed = DEBIAN + expectedBlock(IP, big.slice(0, 70));
    assert.ok(seed.length > 2048 && seed.length < 4096, `seed is ${seed.length} bytes: inside one page`);
    await Deno.writeTextFile(dirs.node, seed);
    const tiny = `${dirs.root}/pod/etc`;
    // 8 KiB of tmpfs: one page for the hosts file, one for a file that fills the rest.
    const setup = `mount -t tmpfs -o size=8k tmpfs '${tiny}' && cp '${dirs.node}' '${tiny}/hosts' && ` +
      `head -c 4096 /dev/zero > '${tiny}/fill'`;
    const run = await runWriter(
      { path: `${tiny}/hosts`, ip: IP, steps: [{ hosts: big }, { hosts: HOSTS }, { hosts: [] }] },
      { namespaceSetup: setup },
    );
    assert.equal(run.code, 0, run.stderr);
    const steps = run.reports.flatMap((report) => "outcome" in report ? [report] : []);
    assert.equal(steps.length, 3);
    const [grow, shrink, remove] = steps;
    assert.equal(grow?.outcome, "failed", "a failed outcome, not a rejection");
    assert.match(grow?.detail ?? "", /cannot grow .* No space left on device/);
    assert.equal(grow?.content, seed, "the old content is intact, with no filler left behind");
    assert.equal(shrink?.outcome, "written", "a shrink needs no new space");
    assert.equal(applyHostsBlock(shrink?.content ?? "", { ip: IP, hosts: HOSTS }).kind, "unchanged");
    assert.equal(remove?.outcome, "written");
    assert.equal(remove?.content, DEBIAN);
  },
});
