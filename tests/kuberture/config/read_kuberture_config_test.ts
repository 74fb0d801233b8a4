import assert from "node:assert/strict";
import { readKubertureConfig } from "../../../lib/kuberture/config/read_kuberture_config.ts";
import { tempDir } from "../../support/temp_dir.ts";

const VALID = "outputs:\n  - name: api\n    hostname: [api.example.com]\n    serviceName: kuberture-api\n";

Deno.test("readKubertureConfig returns the config and the text it was read from", async () => {
  await using dir = await tempDir("kuberture-read-");
  const path = `${dir.path}/config.yaml`;
  await Deno.writeTextFile(path, VALID);
  const read = readKubertureConfig(path);
  assert.ok(read.ok, JSON.stringify(read));
  assert.equal(read.text, VALID);
  assert.deepEqual(read.config.outputs.map((output) => output.serviceName), ["kuberture-api"]);
});

Deno.test("readKubertureConfig refuses a file that cannot be read, naming the path and why", async (t) => {
  await using dir = await tempDir("kuberture-read-");
  await Deno.writeFile(`${dir.path}/latin1.yaml`, new Uint8Array([0x6f, 0x3a, 0x20, 0xe9, 0x0a]));
  const cases: readonly [string, string, RegExp][] = [
    ["a missing file", `${dir.path}/missing.yaml`, /: cannot be read: No such file or directory/],
    ["a folder", dir.path, /: cannot be read: Is a directory/],
    ["a file that is not UTF-8", `${dir.path}/latin1.yaml`, /: cannot be read: it is not UTF-8 text$/],
  ];
  for (const [name, path, why] of cases) {
    await t.step(name, () => {
      const read = readKubertureConfig(path);
      assert.ok(!read.ok);
      assert.equal(read.text, undefined);
      assert.equal(read.problems.length, 1);
      assert.ok(read.problems[0]!.startsWith(`${path}: cannot be read: `), read.problems[0]);
      assert.match(read.problems[0]!, why);
    });
  }
});

Deno.test("readKubertureConfig passes the parser's problems on, with the text that was refused", async () => {
  await using dir = await tempDir("kuberture-read-");
  const path = `${dir.path}/config.yaml`;
  await Deno.writeTextFile(path, "outputs: []\n");
  const read = readKubertureConfig(path);
  assert.deepEqual(read, {
    ok: false,
    problems: [`${path}:1:10: outputs: the list is empty; give a list of one or more outputs`],
    text: "outputs: []\n",
  });
});
