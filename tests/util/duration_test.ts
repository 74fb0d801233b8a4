import assert from "node:assert/strict";
import { formatDuration, MAX_DURATION_MS, parseDuration } from "../../lib/util/duration.ts";
import { duration } from "../../lib/cli/kinds.ts";

// Every spelling below is one Go's time.ParseDuration accepts, with the value it gives, so
// values from existing manifests keep their meaning.
const ACCEPTED: readonly [string, number][] = [
  ["5s", 5_000],
  ["1m30s", 90_000],
  ["250ms", 250],
  ["1.5h", 5_400_000],
  ["0", 0],
  ["0s", 0],
  ["-0", 0],
  ["+0", 0],
  ["-0s", 0],
  ["+5s", 5_000],
  ["-5s", -5_000],
  ["1h2m3s4ms", 3_723_004],
  ["1µs", 0.001],
  ["1μs", 0.001], // Greek mu, the other spelling Go accepts
  ["1us", 0.001],
  ["1500ns", 0.0015],
  [".5s", 500],
  ["5.s", 5_000],
  ["1h0m0s", 3_600_000],
  ["2562047h", 2_562_047 * 3_600_000], // just under Go's int64 nanosecond limit
];

const REJECTED: readonly string[] = [
  "5", // a unit is required
  "",
  "s",
  "5x",
  "1m 30s",
  " 5s",
  "5s ",
  "--1s",
  "+-1s",
  ".s",
  "-",
  "+",
  "00",
  "1e3s",
  "1h-5m",
  "1mus",
  "1hm",
  "5S",
  "2562048h", // overflows Go's int64 nanoseconds
];

Deno.test("parseDuration accepts Go duration syntax", async (t) => {
  for (const [text, expected] of ACCEPTED) {
    await t.step(JSON.stringify(text), () => {
      const parsed = parseDuration(text);
      assert.ok(parsed !== undefined, `${text} should parse`);
      // Sub-millisecond units are multiplied out, so allow floating-point rounding only there.
      assert.ok(Math.abs(parsed - expected) < 1e-9, `${text}: got ${parsed}, expected ${expected}`);
      if (expected === 0) assert.ok(Object.is(parsed, 0), `${text} must be +0, got ${parsed}`);
    });
  }
});

Deno.test("parseDuration rejects what Go rejects", async (t) => {
  for (const text of REJECTED) {
    await t.step(JSON.stringify(text), () => {
      assert.equal(parseDuration(text), undefined);
    });
  }
});

Deno.test("parseDuration refuses anything longer than Go can hold", () => {
  assert.ok(MAX_DURATION_MS > 2_562_047 * 3_600_000);
  assert.equal(parseDuration("9999999999999999999999h"), undefined);
  assert.equal(parseDuration(`${Math.ceil(MAX_DURATION_MS) + 1}ms`), undefined);
  assert.equal(parseDuration(`${Math.floor(MAX_DURATION_MS)}ms`), Math.floor(MAX_DURATION_MS));
});

Deno.test("formatDuration prints Go's spelling and parses back to the same value", async (t) => {
  const cases: readonly [number, string][] = [
    [0, "0s"],
    [1, "1ms"],
    [250, "250ms"],
    [999, "999ms"],
    [1_000, "1s"],
    [1_500, "1.5s"],
    [1_000.000_001, "1.000000001s"], // nanoseconds are kept past one second, as Go prints them
    [2_000, "2s"],
    [5_000, "5s"],
    [30_000, "30s"],
    [59_000, "59s"],
    [60_000, "1m0s"],
    [90_000, "1m30s"],
    [600_000, "10m0s"],
    [3_600_000, "1h0m0s"],
    [5_400_000, "1h30m0s"],
    [3_723_004, "1h2m3.004s"],
    [86_400_000, "24h0m0s"],
    [0.5, "500µs"],
    [0.001, "1µs"],
    [0.0015, "1.5µs"],
    [0.000_001, "1ns"],
    [-5_000, "-5s"],
    [-90_000, "-1m30s"],
    [-0.25, "-250µs"],
  ];
  for (const [ms, text] of cases) {
    await t.step(`${ms} ms`, () => {
      assert.equal(formatDuration(ms), text);
      const back = parseDuration(text);
      assert.ok(back !== undefined && Math.abs(back - ms) < 1e-9, `${text} parsed back as ${back}`);
    });
  }
});

Deno.test("the duration option kind rejects zero and negatives unless zero is allowed", async (t) => {
  const positive = duration();
  const zeroOk = duration({ allowZero: true });
  const cases: readonly { raw: string; positive: number | "bad"; zeroOk: number | "bad" }[] = [
    { raw: "5s", positive: 5_000, zeroOk: 5_000 },
    { raw: "250ms", positive: 250, zeroOk: 250 },
    { raw: "0", positive: "bad", zeroOk: 0 },
    { raw: "0s", positive: "bad", zeroOk: 0 },
    { raw: "0ms", positive: "bad", zeroOk: 0 },
    { raw: "-0s", positive: "bad", zeroOk: 0 },
    { raw: "-1s", positive: "bad", zeroOk: "bad" },
    { raw: "-1ns", positive: "bad", zeroOk: "bad" },
    { raw: "soon", positive: "bad", zeroOk: "bad" },
    { raw: "5", positive: "bad", zeroOk: "bad" },
    { raw: "", positive: "bad", zeroOk: "bad" },
  ];
  for (const c of cases) {
    await t.step(JSON.stringify(c.raw), () => {
      for (const [kind, expected] of [[positive, c.positive], [zeroOk, c.zeroOk]] as const) {
        const parsed = kind.parse(c.raw);
        if (expected === "bad") {
          assert.equal(parsed.ok, false, `${c.raw} should be refused`);
        } else {
          assert.deepEqual(parsed, { ok: true, value: expected });
        }
      }
    });
  }
  assert.match(positive.accepted, /greater than 0/);
  assert.match(zeroOk.accepted, /0 or more/);
  const negative = zeroOk.parse("-1s");
  assert.ok(!negative.ok && negative.reason !== undefined && /negative/.test(negative.reason));
});

Deno.test("the duration option kind refuses durations longer than a timer can wait", () => {
  // setTimeout fires after 1 ms for anything above 2^31-1 ms, so 1000h would mean "at once".
  const kind = duration();
  assert.deepEqual(kind.parse("596h"), { ok: true, value: 596 * 3_600_000 });
  for (const raw of ["597h", "1000h", "2562047h"]) {
    const parsed = kind.parse(raw);
    assert.ok(!parsed.ok, `${raw} should be refused`);
    assert.match(parsed.reason ?? "", /at most 596h31m23\.647s/);
  }
});
