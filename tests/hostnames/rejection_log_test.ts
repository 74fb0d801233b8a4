import assert from "node:assert/strict";
import type { RejectedHostname } from "../../lib/hostnames/desired_set.ts";
import {
  describeRejection,
  formatLoggedValue,
  loggedValueFields,
  MAX_LOGGED_VALUE_LENGTH,
  RejectionLog,
} from "../../lib/hostnames/rejection_log.ts";

function rejected(key: string, resourceVersion: string, value: string): RejectedHostname {
  return {
    source: "Ingress",
    key,
    resourceVersion,
    value,
    reason: "forbidden-character",
    text: "contains '#'",
  };
}

const values = (entries: readonly RejectedHostname[]) =>
  entries.map((entry) => `${entry.key}@${entry.resourceVersion}:${entry.value}`);

Deno.test("RejectionLog warns once per object, resourceVersion and value, and never again while unchanged (T-3.1)", () => {
  const log = new RejectionLog();
  const current = [rejected("shop/web", "1", "a.com#"), rejected("shop/web", "1", "b.com#")];
  assert.deepEqual(values(log.observe(current)), ["shop/web@1:a.com#", "shop/web@1:b.com#"]);
  for (let reconcile = 0; reconcile < 5; reconcile++) assert.deepEqual(log.observe(current), []);
});

Deno.test("RejectionLog warns again when the object changes (a new resourceVersion) (T-3.1)", () => {
  const log = new RejectionLog();
  log.observe([rejected("shop/web", "1", "a.com#"), rejected("blog/web", "9", "a.com#")]);
  const next = [rejected("shop/web", "2", "a.com#"), rejected("blog/web", "9", "a.com#")];
  assert.deepEqual(values(log.observe(next)), ["shop/web@2:a.com#"]);
  assert.deepEqual(log.observe(next), []);
});

Deno.test("RejectionLog tells objects of different kinds with the same key apart", () => {
  const log = new RejectionLog();
  const ingressEntry = rejected("shop/web", "1", "a.com#");
  const routeEntry: RejectedHostname = { ...ingressEntry, source: "HTTPRoute" };
  assert.equal(log.observe([ingressEntry]).length, 1);
  assert.deepEqual(log.observe([ingressEntry, routeEntry]), [routeEntry]);
});

Deno.test("RejectionLog forgets objects that disappeared, so its memory follows the cluster", () => {
  const log = new RejectionLog();
  const many = Array.from({ length: 100 }, (_, index) => rejected(`ns/obj${index}`, "1", "a.com#"));
  assert.equal(log.observe(many).length, 100);
  assert.equal(log.size, 100);
  assert.deepEqual(log.observe(many.slice(0, 3)), []);
  assert.equal(log.size, 3);
  assert.deepEqual(log.observe([]), []);
  assert.equal(log.size, 0);
  // Forgotten means forgotten: if the same refusal shows up again it is reported again.
  assert.equal(log.observe(many.slice(0, 1)).length, 1);
});

Deno.test("RejectionLog reports a duplicate entry within one reconcile once", () => {
  const log = new RejectionLog();
  const entry = rejected("shop/web", "1", "a.com#");
  assert.equal(log.observe([entry, { ...entry }]).length, 1);
  assert.equal(log.size, 1);
});

Deno.test("formatLoggedValue JSON-escapes the value so nothing in it is interpreted (T-3.8)", async (t) => {
  const cases: readonly [string, string][] = [
    ["shop.example.com", '"shop.example.com"'],
    ["evil.com\n}", '"evil.com\\n}"'],
    ["a.example.com\r", '"a.example.com\\r"'],
    ['"quoted"', '"\\"quoted\\""'],
    ["a\\b", '"a\\\\b"'],
    ["a\u001b[31mred", '"a\\u001b[31mred"'],
    ["a\u007fb", '"a\\u007fb"'],
    ["a\u0085b", '"a\\u0085b"'],
    ["bücher", '"b\\u00fccher"'],
    ["a\u2028b\u2029c", '"a\\u2028b\\u2029c"'],
    ["a\u202eb", '"a\\u202eb"'],
    ["\u{1f600}", '"\\ud83d\\ude00"'],
    ["\ud800", '"\\ud800"'],
    ["", '""'],
  ];
  for (const [value, expected] of cases) {
    await t.step(expected, () => {
      const formatted = formatLoggedValue(value);
      assert.equal(formatted, expected);
      assert.match(formatted, /^[\u0020-\u007e]*$/);
      if (!value.includes("\ud800")) assert.equal(JSON.parse(formatted), value, "decodes back to the value");
    });
  }
});

Deno.test("formatLoggedValue cuts a huge value and says by how much", () => {
  const formatted = formatLoggedValue("a".repeat(1_000_000));
  assert.equal(formatted, `"${"a".repeat(256)}" (cut, 999744 more characters)`);
  assert.equal(formatLoggedValue("abcdef", 3), '"abc" (cut, 3 more characters)');
  assert.equal(formatLoggedValue("abc", 3), '"abc"');
});

Deno.test("describeRejection names the object and shows the value escaped on one line", () => {
  const message = describeRejection({
    source: "HTTPRoute",
    key: "shop/r",
    resourceVersion: "7",
    value: "evil.com\n    forward . 6.6.6.6",
    reason: "control-character",
    text: "contains the control character U+000A",
  });
  assert.equal(
    message,
    'HTTPRoute shop/r (resourceVersion 7): hostname "evil.com\\n    forward . 6.6.6.6" refused: ' +
      "contains the control character U+000A",
  );
  assert.ok(!message.includes("\n"));
});

Deno.test("describeRejection escapes an object key that carries control characters (T-3.8)", () => {
  const message = describeRejection({
    ...rejected("shop/web\nFAKE LOG LINE", "1\u001b[2J", "a.com#"),
  });
  assert.ok(!message.includes("\n") && !message.includes("\u001b"), JSON.stringify(message));
  assert.ok(
    message.startsWith('Ingress "shop/web\\nFAKE LOG LINE" (resourceVersion "1\\u001b[2J")'),
    message,
  );
});

Deno.test("loggedValueFields: the value raw, cut to the limit with the cut counted", () => {
  assert.deepEqual(loggedValueFields('Not_Valid!"\n'), { value: 'Not_Valid!"\n' });
  const long = "a".repeat(MAX_LOGGED_VALUE_LENGTH + 7);
  assert.deepEqual(loggedValueFields(long), {
    value: "a".repeat(MAX_LOGGED_VALUE_LENGTH),
    valueCutCharacters: 7,
  });
});
