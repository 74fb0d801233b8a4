import assert from "node:assert/strict";
import { cleanupHostsFile } from "../../../../lib/controller/modes/etc_hosts/cleanup_hosts_file.ts";
import { blockMarkers } from "../../../../lib/controller/modes/markers.ts";
import { DEBIAN, END, expectedBlock, IP, tempHostsFile as hostsFile } from "./support.ts";

const signal = () => AbortSignal.timeout(20_000);

Deno.test("cleanupHostsFile removes the block (no proxy IP needed), then finds nothing to remove", async () => {
  await using fixture = await hostsFile(DEBIAN + expectedBlock(IP, ["a.example.com", "b.example.com"]));
  assert.deepEqual(await cleanupHostsFile(fixture.path, { signal: signal() }), { kind: "removed", hosts: 2 });
  assert.equal(await Deno.readTextFile(fixture.path), DEBIAN);
  assert.deepEqual(await cleanupHostsFile(fixture.path, { signal: signal() }), { kind: "absent" });
});

Deno.test("cleanupHostsFile removes only its own release's block", async () => {
  const edge = blockMarkers("edge");
  const ours = `${edge.begin}\n${IP} a.example.com\n${edge.end}\n`;
  const original = DEBIAN + expectedBlock(IP, ["b.example.com"]);
  await using fixture = await hostsFile(original + ours);
  assert.deepEqual(await cleanupHostsFile(fixture.path, { signal: signal(), markers: edge }), {
    kind: "removed",
    hosts: 1,
  });
  assert.equal(await Deno.readTextFile(fixture.path), original);
});

Deno.test("cleanupHostsFile refuses a damaged block instead of guessing what to delete", async () => {
  const damaged = `${DEBIAN}${expectedBlock(IP, ["a.example.com"])}${END}\n`;
  await using fixture = await hostsFile(damaged);
  const result = await cleanupHostsFile(fixture.path, { signal: signal() });
  assert.equal(result.kind === "refused" ? result.problem : result.kind, "duplicate-end");
  assert.equal(await Deno.readTextFile(fixture.path), damaged);
});

Deno.test("cleanupHostsFile returns an I/O error as a failure and writes nothing", async () => {
  await using fixture = await hostsFile(DEBIAN);
  const result = await cleanupHostsFile(`${fixture.path}/hosts`, { signal: signal() });
  assert.equal(result.kind, "failed");
  if (result.kind === "failed") assert.match(result.message, /^cannot open .*: Not a directory/);
  assert.equal(await Deno.readTextFile(fixture.path), DEBIAN);
});
