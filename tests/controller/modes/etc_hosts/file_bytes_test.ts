import assert from "node:assert/strict";
import {
  fileStartsWith,
  osErrorCode,
  readAll,
  sameInode,
  writeAt0,
} from "../../../../lib/controller/modes/etc_hosts/file_bytes.ts";
import { tempHostsFile } from "./support.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("readAll() reads the whole file from offset 0, wherever the file position is, up to a limit", async () => {
  await using fixture = await tempHostsFile("127.0.0.1 localhost\n");
  using file = await Deno.open(fixture.path, { read: true, write: true });
  await file.seek(5, Deno.SeekMode.Start);
  assert.deepEqual(await readAll(file, 1024), bytes("127.0.0.1 localhost\n"));
  assert.deepEqual(await readAll(file, 20), bytes("127.0.0.1 localhost\n"), "exactly the limit is fine");
  assert.equal(await readAll(file, 19), undefined, "one byte over the limit");
});

Deno.test("fileStartsWith() accepts lines appended after the prefix, nothing else", async () => {
  await using fixture = await tempHostsFile("a\nb\n");
  using file = await Deno.open(fixture.path, { read: true, write: true });
  assert.ok(await fileStartsWith(file, bytes("a\nb\n"), { limit: 1024 }));
  await Deno.writeTextFile(fixture.path, "c\n", { append: true });
  assert.ok(await fileStartsWith(file, bytes("a\nb\n"), { limit: 1024 }), "an append does not matter");
  assert.ok(!await fileStartsWith(file, bytes("a\nx\n"), { limit: 1024 }), "a changed byte does");
  assert.ok(!await fileStartsWith(file, bytes("a\nb\nc\nd\n"), { limit: 1024 }), "a shorter file does");
  assert.ok(!await fileStartsWith(file, bytes("a\n"), { limit: 4 }), "a file over the limit never matches");
});

Deno.test("writeAt0() overwrites from offset 0 and leaves the bytes after it", async () => {
  await using fixture = await tempHostsFile("0123456789\n");
  using file = await Deno.open(fixture.path, { read: true, write: true });
  await file.seek(0, Deno.SeekMode.End);
  await writeAt0(file, bytes("abc"));
  assert.equal(await Deno.readTextFile(fixture.path), "abc3456789\n");
});

Deno.test("sameInode() tells the open file from a file renamed onto its path", async () => {
  await using fixture = await tempHostsFile("a\n");
  using file = await Deno.open(fixture.path, { read: true });
  assert.ok(sameInode(await Deno.lstat(fixture.path), await file.stat()));
  await Deno.writeTextFile(`${fixture.dir}/other`, "b\n");
  await Deno.rename(`${fixture.dir}/other`, fixture.path);
  assert.ok(!sameInode(await Deno.lstat(fixture.path), await file.stat()));
});

Deno.test("osErrorCode() names what the operating system reported, and nothing else", async () => {
  const missing = await Deno.lstat("/nonexistent-ouroboros/hosts").then(() => undefined, (error) => error);
  assert.equal(osErrorCode(missing), "ENOENT");
  assert.equal(osErrorCode(new TypeError("x is undefined")), undefined, "a bug");
  const aborted = new AbortController();
  aborted.abort();
  assert.equal(
    osErrorCode(aborted.signal.reason),
    undefined,
    "an abort (a DOMException with a numeric code)",
  );
  assert.equal(osErrorCode({ code: "ENOSPC" }), undefined, "not an Error");
  assert.equal(osErrorCode(Object.assign(new Error("custom"), { code: "not-errno" })), undefined);
});
