import assert from "node:assert/strict";
import {
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
} from "../support/fake_apiserver/selectors.ts";

function selects(selector: string, labels: Record<string, string> | undefined): boolean {
  const parsed = parseLabelSelector(selector);
  assert.ok(
    parsed.ok,
    `selector ${JSON.stringify(selector)} should parse: ${parsed.ok ? "" : parsed.reason}`,
  );
  return matchesLabels(parsed.value, labels);
}

Deno.test("label selectors: equality, inequality, sets and existence select the objects the API server would", () => {
  const web = { app: "web", tier: "front" };
  const db = { app: "db" };
  const table: [string, Record<string, string> | undefined, boolean][] = [
    ["", web, true],
    ["", undefined, true],
    ["app=web", web, true],
    ["app=web", db, false],
    ["app==web", web, true],
    ["app!=web", web, false],
    ["app!=web", db, true],
    ["tier!=front", db, true], // != also matches objects without the label
    ["app in (web, api)", web, true],
    ["app in (api,db)", web, false],
    ["app notin (web)", web, false],
    ["tier notin (front)", db, true], // notin matches when the label is absent
    ["tier", web, true],
    ["tier", db, false],
    ["!tier", db, true],
    ["!tier", web, false],
    ["app=web,tier=front", web, true],
    ["app=web,tier=back", web, false],
    ["app=web, !tier", web, false],
    ["  app = web ,tier  ", web, true],
    ["app=", { app: "" }, true],
    ["app=", db, false],
    ["example.com/owner=me", { "example.com/owner": "me" }, true],
  ];
  for (const [selector, labels, expected] of table) {
    assert.equal(
      selects(selector, labels),
      expected,
      `${JSON.stringify(selector)} on ${JSON.stringify(labels)}`,
    );
  }
});

Deno.test("label selectors: numeric comparisons match only integer label values", () => {
  assert.equal(selects("shard>2", { shard: "3" }), true);
  assert.equal(selects("shard>2", { shard: "2" }), false);
  assert.equal(selects("shard<2", { shard: "1" }), true);
  assert.equal(selects("shard<2", { shard: "one" }), false);
  assert.equal(selects("shard<2", {}), false);
});

Deno.test("label selectors: malformed text is refused with a reason instead of matching everything", () => {
  for (
    const bad of [
      "app in web",
      "app in ()",
      "app=web,",
      "=web",
      "app=(x)",
      "Bad Key=x",
      "app=a b",
      "app in (a",
    ]
  ) {
    const parsed = parseLabelSelector(bad);
    assert.equal(parsed.ok, false, `${JSON.stringify(bad)} should be refused`);
    if (!parsed.ok) assert.match(parsed.reason, /unable to parse requirement/);
  }
});

Deno.test("field selectors: metadata.name and metadata.namespace with =, == and !=", () => {
  const parse = (text: string) => {
    const parsed = parseFieldSelector(text);
    assert.ok(parsed.ok, `${text}: ${parsed.ok ? "" : parsed.reason}`);
    return parsed.value;
  };
  assert.equal(matchesFields(parse("metadata.name=a"), "a", "x"), true);
  assert.equal(matchesFields(parse("metadata.name==a"), "b", "x"), false);
  assert.equal(matchesFields(parse("metadata.name!=a"), "b", "x"), true);
  assert.equal(matchesFields(parse("metadata.namespace=x,metadata.name=a"), "a", "x"), true);
  assert.equal(matchesFields(parse("metadata.namespace=x,metadata.name=a"), "a", "y"), false);
  assert.equal(matchesFields(parse(""), "anything", "anywhere"), true);
  assert.equal(matchesFields(parse("metadata.name=a\\,b"), "a,b", ""), true, "a backslash escapes a comma");
});

Deno.test("field selectors: fields the server has no index for are refused", () => {
  const parsed = parseFieldSelector("spec.nodeName=n1");
  assert.equal(parsed.ok, false);
  if (!parsed.ok) assert.match(parsed.reason, /field label not supported: spec\.nodeName/);
  assert.equal(parseFieldSelector("metadata.name").ok, false);
});
