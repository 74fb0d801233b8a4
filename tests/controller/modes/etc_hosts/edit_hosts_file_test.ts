import assert from "node:assert/strict";
import { applyHostsBlock, removeHostsBlock } from "../../../../lib/controller/modes/etc_hosts/hosts_block.ts";
import {
  editHostsFile,
  type EditHostsFileOptions,
  type HostsFileResult,
} from "../../../../lib/controller/modes/etc_hosts/edit_hosts_file.ts";
import { scanHostsMarkers } from "../../../../lib/controller/modes/etc_hosts/hosts_markers.ts";
import { splitLines } from "../../../../lib/controller/modes/text_lines.ts";
import { requireTool, skipWithout } from "../../../support/tools.ts";
import { waitFor } from "../../../support/wait.ts";
import { DEBIAN, END, expectedBlock, IP, tempHostsFile as hostsFile, withoutBlock } from "./support.ts";

const HOSTS = ["api.example.com", "app.example.com", "shop.example.org"];
const MANY = Array.from({ length: 60 }, (_, index) => `service-${index}.apps.example.com`);

function put(path: string, hosts: readonly string[], options: Omit<EditHostsFileOptions, "signal"> = {}) {
  return editHostsFile(path, (text) => applyHostsBlock(text, { ip: IP, hosts }), {
    signal: AbortSignal.timeout(20_000),
    ...options,
  });
}

async function appendLine(path: string, line: string): Promise<void> {
  await Deno.writeTextFile(path, line, { append: true });
}

function written(result: HostsFileResult): Extract<HostsFileResult, { kind: "written" }> {
  assert.equal(result.kind, "written", result.kind === "refused" ? result.message : `got ${result.kind}`);
  return result as Extract<HostsFileResult, { kind: "written" }>;
}

Deno.test("path safety: a file not named hosts, a symlink, a directory, '..' and a missing file are refused (T-4.7)", async () => {
  await using fixture = await hostsFile(DEBIAN);
  const shadow = `${fixture.dir}/shadow`;
  await Deno.writeTextFile(shadow, "root:*:19000:0:99999:7:::\n");
  const passwd = `${fixture.dir}/passwd`;
  await Deno.writeTextFile(passwd, "root:x:0:0::/root:/bin/sh\n");
  await Deno.mkdir(`${fixture.dir}/link`);
  await Deno.symlink(passwd, `${fixture.dir}/link/hosts`);
  await Deno.mkdir(`${fixture.dir}/dir/hosts`, { recursive: true });

  const cases: ReadonlyArray<readonly [string, string]> = [
    [shadow, "unsafe-path"],
    ["/etc/shadow", "unsafe-path"],
    [`${fixture.dir}/hosts.bak`, "unsafe-path"],
    [`${fixture.dir}/dir/../hosts`, "unsafe-path"],
    [`${fixture.dir}/hosts/`, "unsafe-path"],
    ["", "unsafe-path"],
    [`${fixture.dir}/link/hosts`, "symlink"],
    [`${fixture.dir}/dir/hosts`, "not-regular-file"],
    [`${fixture.dir}/missing/hosts`, "missing-file"],
  ];
  for (const [path, problem] of cases) {
    const result = await put(path, HOSTS);
    assert.equal(result.kind, "refused", path);
    if (result.kind === "refused") assert.equal(result.problem, problem, path);
  }
  assert.equal(await Deno.readTextFile(shadow), "root:*:19000:0:99999:7:::\n");
  assert.equal(await Deno.readTextFile(passwd), "root:x:0:0::/root:/bin/sh\n");
  assert.equal(await Deno.readTextFile(fixture.path), DEBIAN);
});

Deno.test("100 reconciles of an unchanged set write nothing: mtime and inode stay (T-4.9)", async () => {
  await using fixture = await hostsFile(DEBIAN);
  written(await put(fixture.path, HOSTS));
  const past = new Date("2001-02-03T04:05:06Z");
  await Deno.utime(fixture.path, past, past);
  const before = await Deno.stat(fixture.path);
  for (let round = 0; round < 100; round++) {
    assert.equal((await put(fixture.path, HOSTS)).kind, "unchanged");
  }
  const after = await Deno.stat(fixture.path);
  assert.equal(after.mtime?.getTime(), past.getTime());
  assert.equal(after.ino, before.ino);
  assert.equal(await Deno.readTextFile(fixture.path), DEBIAN + expectedBlock(IP, HOSTS));
});

Deno.test("writes happen in place: grow, shrink into slack, remove back to the original bytes, same inode (T-4.1, T-4.5)", async () => {
  await using fixture = await hostsFile(DEBIAN);
  const { ino } = await Deno.stat(fixture.path);

  assert.equal(written(await put(fixture.path, HOSTS)).layout, "extend");
  assert.equal(await Deno.readTextFile(fixture.path), DEBIAN + expectedBlock(IP, HOSTS));

  const shrunk = written(await put(fixture.path, HOSTS.slice(0, 1)));
  assert.equal(shrunk.layout, "overwrite");
  const text = await Deno.readTextFile(fixture.path);
  assert.equal(text.length, (DEBIAN + expectedBlock(IP, HOSTS)).length, "the length is kept");
  assert.equal(text.replace(/ +\n$/, "\n"), DEBIAN + expectedBlock(IP, HOSTS.slice(0, 1)));

  assert.equal(written(await put(fixture.path, [])).layout, "shrink");
  assert.equal(await Deno.readTextFile(fixture.path), DEBIAN);
  assert.equal((await Deno.stat(fixture.path)).ino, ino);
});

Deno.test("bytes that are not UTF-8 outside the block come back unchanged", async () => {
  await using fixture = await hostsFile("");
  const latin1 = Uint8Array.from([
    0x23,
    0x20,
    0xe9,
    0xff,
    0x0a,
    0x31,
    0x2e,
    0x32,
    0x2e,
    0x33,
    0x2e,
    0x34,
    0x20,
    0x78,
    0x0a,
  ]);
  await Deno.writeFile(fixture.path, latin1);
  written(await put(fixture.path, HOSTS));
  written(await put(fixture.path, []));
  assert.deepEqual(await Deno.readFile(fixture.path), latin1);
});

Deno.test("NUL filler left by an interrupted write is dropped and the block completed (T-4.3)", async () => {
  await using fixture = await hostsFile(`${DEBIAN}${expectedBlock(IP, HOSTS)}\u0000\u0000\u0000\u0000`);
  const result = written(await put(fixture.path, HOSTS));
  assert.equal(result.repairedFiller, 4);
  const text = await Deno.readTextFile(fixture.path);
  assert.ok(!text.includes("\u0000"));
  assert.equal(text.replace(/ +\n$/, "\n"), DEBIAN + expectedBlock(IP, HOSTS));
});

Deno.test("a line appended between our read and our write survives, whatever the layout (T-4.4)", async (t) => {
  const plans: ReadonlyArray<readonly [string, readonly string[], readonly string[], string]> = [
    ["extend", [], HOSTS, "afterRead"],
    ["overwrite", HOSTS, HOSTS.slice(0, 1), "afterRead"],
    ["shrink (appended before the truncate)", HOSTS, [], "afterWrite"],
    ["extend (appended after the reserve)", [], MANY, "afterReserve"],
  ];
  for (const [name, from, to, hook] of plans) {
    await t.step(name, async () => {
      await using fixture = await hostsFile(DEBIAN);
      if (from.length > 0) written(await put(fixture.path, from));
      let appended = false;
      const append = async () => {
        if (appended) return;
        appended = true;
        await appendLine(fixture.path, "10.1.2.3 appended.internal\n");
      };
      written(await put(fixture.path, to, { hooks: { [hook]: append } }));
      assert.ok(appended, "the hook ran");
      const text = await Deno.readTextFile(fixture.path);
      assert.ok(!text.includes("\u0000"), "no filler left");
      assert.equal(text.split("10.1.2.3 appended.internal\n").length, 2, "the line is there once");
      assert.equal(withoutBlock(text).replace("10.1.2.3 appended.internal\n", ""), DEBIAN);
      const edit = applyHostsBlock(text, { ip: IP, hosts: to });
      assert.equal(edit.kind, "unchanged", "the block holds the new set");
    });
  }
});

Deno.test("an edit made in place between our read and our write is kept; if it recurs on every attempt, the edit fails (T-4.4)", async (t) => {
  const plans: ReadonlyArray<readonly [string, readonly string[], readonly string[]]> = [
    ["overwrite", HOSTS, HOSTS.slice(0, 1)],
    ["extend", [], MANY],
    ["shrink", HOSTS, []],
  ];
  for (const [name, from, to] of plans) {
    await t.step(name, async () => {
      await using fixture = await hostsFile(DEBIAN);
      if (from.length > 0) written(await put(fixture.path, from));
      let round = 0;
      let edits = 0;
      const meddle = async (rounds: number) => {
        if (round >= rounds) return;
        round++;
        edits++;
        const file = await Deno.open(fixture.path, { write: true });
        await file.write(new TextEncoder().encode(`# edit ${edits}`));
        file.close();
      };
      written(await put(fixture.path, to, { hooks: { afterRead: () => meddle(1) } }));
      const text = await Deno.readTextFile(fixture.path);
      assert.ok(text.startsWith("# edit 1"), "the other writer's edit survives");
      assert.equal(applyHostsBlock(text, { ip: IP, hosts: to }).kind, "unchanged");

      round = 0;
      const result = await put(fixture.path, from, {
        hooks: { afterRead: () => meddle(99) },
        maxAttempts: 3,
      });
      assert.equal(result.kind, "failed");
      if (result.kind === "failed") {
        assert.match(
          result.message,
          /changed under us on each of 3 attempts \(last: .+\); will retry later$/,
        );
      }
      assert.equal(round, 3);
    });
  }
});

Deno.test({
  name: "a writer holding flock(1) on the file makes us wait; we write once it lets go (T-4.4)",
  ignore: skipWithout("flock test", ["flock"]),
  fn: async () => {
    await using fixture = await hostsFile(DEBIAN);
    const holder = new Deno.Command(requireTool("flock"), {
      args: ["--exclusive", fixture.path, "sh", "-c", "echo locked; read line || true"],
      stdin: "piped",
      stdout: "piped",
    }).spawn();
    const reader = holder.stdout.getReader();
    const first = await reader.read();
    assert.match(new TextDecoder().decode(first.value), /locked/);
    const { ino } = await Deno.stat(fixture.path);

    const pending = put(fixture.path, HOSTS);
    await waitFor("our write to queue behind flock(1) in /proc/locks", async () => {
      // Deno's permissions guard /proc, so read it through cat.
      const output = await new Deno.Command("cat", { args: ["/proc/locks"] }).output();
      const locks = new TextDecoder().decode(output.stdout);
      return locks.split("\n").some((line) => line.includes("->") && line.includes(`:${ino} `));
    });
    assert.equal(await Deno.readTextFile(fixture.path), DEBIAN, "nothing written while the lock is held");

    await holder.stdin.close();
    await reader.cancel();
    assert.ok((await holder.status).success);
    written(await pending);
    assert.equal(await Deno.readTextFile(fixture.path), DEBIAN + expectedBlock(IP, HOSTS));
  },
});

Deno.test("a process appending every few ms while we rewrite the block in a loop loses no line (T-4.4)", async () => {
  await using fixture = await hostsFile(DEBIAN);
  const lines = 150;
  const appender = new Deno.Command("sh", {
    args: [
      "-c",
      'i=0; while [ $i -lt "$1" ]; do echo "10.1.0.$((i % 250 + 1)) appended-$i.internal" >> "$0"; i=$((i+1)); sleep 0.003; done',
      fixture.path,
      String(lines),
    ],
  }).spawn();
  let done = false;
  const status = appender.status.then((result) => {
    done = true;
    return result;
  });

  const layouts = new Map<string, number>();
  let round = 0;
  let last: readonly string[] = [];
  while (!done || round < 20) {
    // Sets of varying size and name length, so the block grows past its slack, shrinks into it,
    // or stays the same.
    const count = 1 + ((round * 7) % 9);
    last = Array.from(
      { length: count },
      (_, index) => `r${round % 5}-${"x".repeat(round % 11)}${index}.example.com`,
    );
    const result = await put(fixture.path, last);
    assert.notEqual(result.kind, "refused", result.kind === "refused" ? result.message : "");
    const layout = result.kind === "written" ? result.layout : "unchanged";
    layouts.set(layout, (layouts.get(layout) ?? 0) + 1);
    round++;
  }
  assert.ok((await status).success);

  const text = await Deno.readTextFile(fixture.path);
  assert.ok(!text.includes("\u0000"), "no filler left behind");
  for (let index = 0; index < lines; index++) {
    const line = `10.1.0.${index % 250 + 1} appended-${index}.internal\n`;
    assert.equal(text.split(line).length, 2, `line ${index} is present exactly once`);
  }
  const expectedOthers = DEBIAN +
    Array.from({ length: lines }, (_, index) => `10.1.0.${index % 250 + 1} appended-${index}.internal\n`)
      .join("");
  assert.equal(withoutBlock(text), expectedOthers, "others' lines in order, nothing else outside the block");
  const scan = scanHostsMarkers(text, splitLines(text));
  assert.equal(scan.kind, "present");
  if (scan.kind === "present") assert.deepEqual(scan.entries.map((entry) => entry.host), last);
  assert.ok(
    (layouts.get("extend") ?? 0) > 0 && (layouts.get("overwrite") ?? 0) > 0,
    JSON.stringify([...layouts]),
  );
});

Deno.test("a cleanup writes the original bytes back and a second cleanup writes nothing", async () => {
  await using fixture = await hostsFile(DEBIAN);
  written(await put(fixture.path, MANY));
  written(await put(fixture.path, HOSTS));
  const remove = () => editHostsFile(fixture.path, removeHostsBlock, { signal: AbortSignal.timeout(20_000) });
  assert.deepEqual(written(await remove()).previousHosts, HOSTS);
  assert.equal(await Deno.readTextFile(fixture.path), DEBIAN);
  assert.equal((await remove()).kind, "unchanged");
});

Deno.test("damaged markers: nothing is written, the file keeps its bytes and mtime (T-4.6)", async () => {
  const damaged = `${DEBIAN}${END}\n10.96.0.10 a.example.com\n`;
  await using fixture = await hostsFile(damaged);
  const past = new Date("2001-02-03T04:05:06Z");
  await Deno.utime(fixture.path, past, past);
  const result = await put(fixture.path, HOSTS);
  assert.equal(result.kind, "refused");
  if (result.kind === "refused") {
    assert.equal(result.problem, "end-without-begin");
    assert.ok(result.message.startsWith(`${fixture.path}: `), "the message names the file");
  }
  assert.equal(await Deno.readTextFile(fixture.path), damaged);
  assert.equal((await Deno.stat(fixture.path)).mtime?.getTime(), past.getTime());
});

Deno.test("an aborted signal stops before anything is written", async () => {
  await using fixture = await hostsFile(DEBIAN);
  const controller = new AbortController();
  controller.abort(new Error("shutting down"));
  await assert.rejects(
    editHostsFile(fixture.path, (text) => applyHostsBlock(text, { ip: IP, hosts: HOSTS }), {
      signal: controller.signal,
    }),
    /shutting down/,
  );
  assert.equal(await Deno.readTextFile(fixture.path), DEBIAN);
});

Deno.test("an I/O error is a failure naming the file, for the controller to retry; a bug still rejects", async () => {
  await using fixture = await hostsFile(DEBIAN);
  // A regular file where a directory should be: lstat fails with ENOTDIR, which no refusal covers.
  const result = await put(`${fixture.path}/hosts`, HOSTS);
  assert.equal(result.kind, "failed");
  if (result.kind === "failed") {
    assert.match(result.message, new RegExp(`^cannot open ${fixture.path}/hosts: Not a directory`));
    assert.equal((result.cause as { code?: unknown } | undefined)?.code, "ENOTDIR");
  }

  await assert.rejects(
    editHostsFile(fixture.path, () => {
      throw new TypeError("a bug in the edit");
    }, { signal: AbortSignal.timeout(20_000) }),
    TypeError,
  );
  assert.equal(await Deno.readTextFile(fixture.path), DEBIAN);
});
