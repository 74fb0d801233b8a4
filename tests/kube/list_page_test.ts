import assert from "node:assert/strict";
import { KubeDecodeError } from "../../lib/kube/decode_error.ts";
import { decodeListPage } from "../../lib/kube/list_page.ts";
import { decodeConfigMap } from "../../lib/resources/config_map.ts";

const options = { decode: decodeConfigMap, request: "LIST /api/v1/configmaps" };
const cm = (name: string, data: unknown = { k: "v" }) => ({
  metadata: { name, namespace: "ns", resourceVersion: "7" },
  data,
});

Deno.test("decodeListPage keeps the items that decode, reports the others by key and reason, and the continue token", () => {
  const page = decodeListPage({
    metadata: { resourceVersion: "42", continue: "next" },
    items: [cm("a"), cm("bad", { n: 1 }), { metadata: {} }, cm("b")],
  }, options);
  assert.deepEqual(page.items.map((item) => item.metadata.name), ["a", "b"]);
  assert.equal(page.resourceVersion, "42");
  assert.equal(page.continue, "next");
  assert.deepEqual(page.rejected, [
    { key: "ns/bad", reason: "data.n is a number, not a string" },
    { key: "?", reason: "metadata.name is missing" },
  ]);
});

Deno.test("decodeListPage: the last page has no continue, and absent items are an empty list", () => {
  const page = decodeListPage({ metadata: { resourceVersion: "42", continue: "" } }, options);
  assert.deepEqual(page, { items: [], resourceVersion: "42", rejected: [] });
});

Deno.test("decodeListPage refuses an answer that is not a list, naming the request", async (t) => {
  const cases: [string, unknown, string][] = [
    ["not an object", "<html>", "the answer is not a JSON object"],
    ["no resourceVersion", { items: [] }, "the list has no metadata.resourceVersion"],
    ["items not a list", { metadata: { resourceVersion: "1" }, items: {} }, "items is not a list"],
  ];
  for (const [name, raw, reason] of cases) {
    await t.step(name, () => {
      assert.throws(() => decodeListPage(raw, options), (error) => {
        assert.ok(error instanceof KubeDecodeError);
        assert.equal(error.message, `LIST /api/v1/configmaps: cannot decode the answer: ${reason}`);
        return true;
      });
    });
  }
});
