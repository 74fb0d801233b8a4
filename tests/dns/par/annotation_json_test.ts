import assert from "node:assert/strict";
import { readAnnotationJson } from "../../../lib/dns/par/annotation_json.ts";

Deno.test("readAnnotationJson: an object, or why the text is not one", () => {
  assert.deepEqual(readAnnotationJson('{"a":[1]}'), { a: [1] });
  assert.equal(readAnnotationJson("{"), "is not JSON");
  assert.equal(readAnnotationJson(""), "is not JSON");
  for (const text of ["[]", "null", '"x"', "3"]) {
    assert.equal(readAnnotationJson(text), "is not a JSON object", text);
  }
});
