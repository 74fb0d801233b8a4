import assert from "node:assert/strict";
import { ConfigDocument, isLeftOut } from "../../../lib/kuberture/config/config_document.ts";

Deno.test("problems carry file:line:col of their node, sorted by place, and file-level ones first", () => {
  const doc = new ConfigDocument("a: 1\nb:\n  c: x\n", { path: "f.yaml" });
  const top = doc.mapping(doc.root, "", { keys: ["a", "b"], what: "the file" })!;
  const b = doc.mapping(top.get("b")!.value, "b", { keys: ["c"], what: "b" })!;
  doc.problem(b.get("c")!.value, "b.c", "third");
  doc.problem(top.get("a")!.value, "a", "second");
  doc.problem(undefined, "z", "first");
  doc.problem(undefined, "", "no key path");
  assert.deepEqual(doc.problems, [
    "f.yaml: z: first",
    "f.yaml: no key path",
    "f.yaml:1:4: a: second",
    "f.yaml:3:6: b.c: third",
  ]);
});

Deno.test("a file without a final newline still gets line and column", () => {
  const doc = new ConfigDocument("hello", { path: "f.yaml" });
  doc.mapping(doc.root, "", { keys: ["a"], what: "the file" });
  assert.deepEqual(doc.problems, ['f.yaml:1:1: expected a mapping (the file: a), got the text "hello"']);
});

Deno.test("text takes scalars by their written text and refuses collections", () => {
  const doc = new ConfigDocument("a: 007\nb: true\nc: 'q'\nd: [x]\ne:\n", { path: "f.yaml" });
  const top = doc.mapping(doc.root, "", { keys: ["a", "b", "c", "d", "e"], what: "the file" })!;
  assert.deepEqual(["a", "b", "c", "d", "e"].map((key) => doc.text(top.get(key))), [
    "007",
    "true",
    "q",
    undefined,
    undefined,
  ]);
  assert.deepEqual(doc.problems, ["f.yaml:4:4: d: expected text, got a list"]);
  assert.equal(isLeftOut(top.get("e")), true);
  assert.equal(isLeftOut(top.get("a")), false);
  assert.equal(isLeftOut(undefined), true);
});

Deno.test("unknown keys get a did-you-mean for a near key and a hint for a known mistake", () => {
  const doc = new ConfigDocument("nmae: x\nfoo: 1\nspecial: 2\n", { path: "f.yaml" });
  doc.mapping(doc.root, "", { keys: ["name", "value"], what: "the file", hints: { special: "remove it" } });
  assert.deepEqual(doc.problems, [
    "f.yaml:1:1: nmae: unknown key (did you mean name?); the file accepts name, value",
    "f.yaml:2:1: foo: unknown key; the file accepts name, value",
    "f.yaml:3:1: special: unknown key (remove it); the file accepts name, value",
  ]);
});
