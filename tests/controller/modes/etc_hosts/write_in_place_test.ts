import assert from "node:assert/strict";
import { decodeHostsBytes, planWrite } from "../../../../lib/controller/modes/etc_hosts/hosts_layout.ts";
import {
  writeInPlace,
  type WriteInPlaceHooks,
} from "../../../../lib/controller/modes/etc_hosts/write_in_place.ts";
import { DEBIAN, expectedBlock, IP, tempHostsFile } from "./support.ts";

const HOSTS = ["api.example.com", "app.example.com", "shop.example.org"];
const MANY = Array.from({ length: 40 }, (_, index) => `service-${index}.apps.example.com`);
const APPENDED = "10.1.2.3 appended.internal\n";

/** Plans `current` → `desired` and lays it over a file holding `current`; returns the result and the file after. */
async function lay(
  current: string,
  desired: string,
  hooks: (path: string) => WriteInPlaceHooks = () => ({}),
) {
  await using fixture = await tempHostsFile(current);
  const plan = planWrite(current, desired);
  if (plan.kind === "none") throw new Error("expected a write plan: the texts are the same");
  const { ino } = await Deno.stat(fixture.path);
  using file = await Deno.open(fixture.path, { read: true, write: true });
  const result = await writeInPlace(file, plan, {
    path: fixture.path,
    current,
    maxBytes: 1 << 20,
    hooks: hooks(fixture.path),
  });
  const after = decodeHostsBytes(await Deno.readFile(fixture.path));
  assert.equal((await Deno.stat(fixture.path)).ino, ino, "the same inode");
  return { plan, result, after };
}

Deno.test("writeInPlace() lays every kind of plan over the file in place", async (t) => {
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ["extend", DEBIAN, DEBIAN + expectedBlock(IP, HOSTS)],
    ["overwrite", DEBIAN + expectedBlock(IP, HOSTS), DEBIAN + expectedBlock(IP, HOSTS.slice(0, 2))],
    ["shrink", DEBIAN + expectedBlock(IP, HOSTS), DEBIAN],
  ];
  for (const [kind, current, desired] of cases) {
    await t.step(kind, async () => {
      const { plan, result, after } = await lay(current, desired);
      assert.equal(plan.kind, kind);
      assert.deepEqual(result, { kind: "done" });
      assert.equal(after, plan.text);
    });
  }
});

Deno.test("writeInPlace() writes nothing over bytes another process changed since the read", async () => {
  const current = DEBIAN + expectedBlock(IP, HOSTS);
  await using fixture = await tempHostsFile(current);
  const changed = current.replace("127.0.0.1", "127.0.0.2");
  await Deno.writeTextFile(fixture.path, changed);
  const plan = planWrite(current, DEBIAN + expectedBlock(IP, HOSTS.slice(0, 1)));
  if (plan.kind !== "overwrite") throw new Error(`expected an overwrite plan, got ${plan.kind}`);
  using file = await Deno.open(fixture.path, { read: true, write: true });
  const result = await writeInPlace(file, plan, { path: fixture.path, current, maxBytes: 1 << 20 });
  assert.deepEqual(result, {
    kind: "interrupted",
    why: "another process changed the file between our read and our write",
    stranded: 0,
  });
  assert.equal(await Deno.readTextFile(fixture.path), changed);
});

Deno.test("writeInPlace() keeps a line appended after the reserve, and stops a shrink that would cut one", async (t) => {
  await t.step("extend: the append lands after our reserve and survives the write", async () => {
    const desired = DEBIAN + expectedBlock(IP, MANY);
    const { result, after } = await lay(DEBIAN, desired, (path) => ({
      afterReserve: () => Deno.writeTextFile(path, APPENDED, { append: true }),
    }));
    assert.deepEqual(result, { kind: "done" });
    assert.equal(after, desired + APPENDED);
  });
  await t.step("shrink: an append before the truncate leaves the new text, NULs and the line", async () => {
    const current = DEBIAN + expectedBlock(IP, MANY);
    const { plan, result, after } = await lay(current, DEBIAN, (path) => ({
      afterWrite: () => Deno.writeTextFile(path, APPENDED, { append: true }),
    }));
    if (plan.kind !== "shrink") throw new Error(`expected a shrink plan, got ${plan.kind}`);
    assert.deepEqual(result, {
      kind: "interrupted",
      why: "another process appended before we could truncate",
      stranded: plan.filler,
    });
    assert.equal(
      after,
      DEBIAN + "\u0000".repeat(plan.filler) + APPENDED,
      "nothing cut; the next pass drops the NULs",
    );
  });
});
