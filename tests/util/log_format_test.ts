import assert from "node:assert/strict";
import type { LogLevel, LogRecord } from "@logtape/logtape";
import { formatJsonLine, formatTextLine, plainValue } from "../../lib/util/log_format.ts";

const TIME = Date.UTC(2026, 11, 2, 10, 0, 0, 123);

function record(
  message: readonly unknown[],
  properties: Record<string, unknown> = {},
  level: LogLevel = "info",
): LogRecord {
  return {
    category: ["ouroboros", "proxy"],
    level,
    message,
    rawMessage: message.filter((_, i) => i % 2 === 0).join("{}"),
    timestamp: TIME,
    properties,
  };
}

function coded(message: string, code: string, name = "Error"): Error {
  const error = new Error(message) as Error & { code: string };
  error.name = name;
  error.code = code;
  return error;
}

Deno.test("JSON lines carry time, level, logger, msg, then the properties", async (t) => {
  const cases: readonly { name: string; record: LogRecord; line: Record<string, unknown> }[] = [
    {
      name: "a dial failure",
      record: record(["backend dial failed; closing the client connection"], {
        backend: "ingress:80",
        cause: "connection-refused",
        suppressed: 12,
      }, "warning"),
      line: {
        time: "2026-12-02T10:00:00.123Z",
        level: "WARN",
        logger: "ouroboros.proxy",
        msg: "backend dial failed; closing the client connection",
        backend: "ingress:80",
        cause: "connection-refused",
        suppressed: 12,
      },
    },
    {
      name: "an error property becomes its message, with its name beside it",
      record: record(["accept failed"], { error: new TypeError("bad thing") }, "error"),
      line: {
        time: "2026-12-02T10:00:00.123Z",
        level: "ERROR",
        logger: "ouroboros.proxy",
        msg: "accept failed",
        error: "bad thing",
        errorName: "TypeError",
      },
    },
    {
      name: "an error with a code keeps the code beside the message",
      record: record(["dial failed"], {
        error: coded("Connection refused (os error 111)", "ECONNREFUSED", "ConnectionRefused"),
      }),
      line: {
        time: "2026-12-02T10:00:00.123Z",
        level: "INFO",
        logger: "ouroboros.proxy",
        msg: "dial failed",
        error: "Connection refused (os error 111)",
        errorName: "ConnectionRefused",
        errorCode: "ECONNREFUSED",
      },
    },
    {
      name: "an error under another key gets that key's Name and Code",
      record: record(["dial failed"], { cause: new RangeError("too far") }),
      line: {
        time: "2026-12-02T10:00:00.123Z",
        level: "INFO",
        logger: "ouroboros.proxy",
        msg: "dial failed",
        cause: "too far",
        causeName: "RangeError",
      },
    },
    {
      name: "empty fields are left out: absent means none",
      record: record(["stopped"], { signal: undefined, leader: "", count: 0, flag: false }),
      line: {
        time: "2026-12-02T10:00:00.123Z",
        level: "INFO",
        logger: "ouroboros.proxy",
        msg: "stopped",
        count: 0,
        flag: false,
      },
    },
    {
      name: "a hostile value is kept raw, its invisible characters escaped in the JSON text",
      record: record(["refused"], { value: "Not_Valid!\u202e\u001b[31m" }),
      line: {
        time: "2026-12-02T10:00:00.123Z",
        level: "INFO",
        logger: "ouroboros.proxy",
        msg: "refused",
        value: "Not_Valid!\u202e\u001b[31m",
      },
    },
    {
      name: "bigints, errors and nested values anywhere are made plain",
      record: record(["stats"], {
        bytes: 12n,
        nested: { total: 3n, errors: [new Error("a"), { deep: new RangeError("b") }] },
      }),
      line: {
        time: "2026-12-02T10:00:00.123Z",
        level: "INFO",
        logger: "ouroboros.proxy",
        msg: "stats",
        bytes: "12",
        nested: {
          total: "3",
          errors: [{ name: "Error", message: "a" }, { deep: { name: "RangeError", message: "b" } }],
        },
      },
    },
    {
      name: "properties cannot overwrite the fixed keys",
      record: record(["real message"], {
        msg: "forged",
        level: "DEBUG",
        time: "never",
        logger: "x",
        extra: 1,
      }),
      line: {
        time: "2026-12-02T10:00:00.123Z",
        level: "INFO",
        logger: "ouroboros.proxy",
        msg: "real message",
        extra: 1,
      },
    },
    {
      name: "interpolated values are rendered into msg",
      record: record(["listening on ", "127.0.0.1:8080", " with ", { tls: false }, ""]),
      line: {
        time: "2026-12-02T10:00:00.123Z",
        level: "INFO",
        logger: "ouroboros.proxy",
        msg: 'listening on 127.0.0.1:8080 with {"tls":false}',
      },
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const text = formatJsonLine(c.record);
      assert.ok(text.endsWith("\n"));
      assert.equal(text.indexOf("\n"), text.length - 1, "exactly one line");
      const parsed = JSON.parse(text) as Record<string, unknown>;
      assert.deepEqual(parsed, c.line);
      assert.deepEqual(Object.keys(parsed).slice(0, 4), ["time", "level", "logger", "msg"]);
    });
  }
});

Deno.test("every logtape level gets its label", async (t) => {
  const labels: readonly [LogLevel, string][] = [
    ["trace", "TRACE"],
    ["debug", "DEBUG"],
    ["info", "INFO"],
    ["warning", "WARN"],
    ["error", "ERROR"],
    ["fatal", "FATAL"],
  ];
  for (const [level, label] of labels) {
    await t.step(level, () => {
      assert.equal((JSON.parse(formatJsonLine(record(["x"], {}, level))) as { level: string }).level, label);
      assert.match(formatTextLine(record(["x"], {}, level)), new RegExp(` level=${label} `));
    });
  }
});

Deno.test("text lines are key=value with values quoted only when needed", () => {
  const line = formatTextLine(
    record(["backend dial failed; closing the client connection"], {
      backend: "ingress:80",
      cause: "connection-refused",
      suppressed: 0,
    }, "warning"),
  );
  assert.equal(
    line,
    "time=2026-12-02T10:00:00.123Z level=WARN logger=ouroboros.proxy " +
      'msg="backend dial failed; closing the client connection" backend=ingress:80 cause=connection-refused ' +
      "suppressed=0\n",
  );
});

Deno.test("text values that could fake a key, a line or a terminal escape are quoted", async (t) => {
  const cases: readonly [value: unknown, printed: string][] = [
    ["plain", "plain"],
    ["250µs✓", "250µs✓"], // printable non-ASCII needs no quotes
    ["two words", '"two words"'],
    ["tab\there", '"tab\\there"'],
    ['say "hi"', '"say \\"hi\\""'],
    ["a=b", '"a=b"'],
    ["C:\\temp", '"C:\\\\temp"'],
    ["line\nforged=1", '"line\\nforged=1"'],
    ["\u001b[31mred", '"\\u001b[31mred"'],
    ["del\u007f", '"del\\u007f"'],
    ["next\u0085line", '"next\\u0085line"'],
    ["zero\u200bwidth", '"zero\\u200bwidth"'],
    ["line\u2028separator", '"line\\u2028separator"'],
    ["private\u{F0000}use", '"private\\udb80\\udc00use"'],
    [42, "42"],
    [true, "true"],
    [null, "null"],
    [{ a: 1 }, '"{\\"a\\":1}"'],
    [[1, 2], "[1,2]"],
  ];
  for (const [value, printed] of cases) {
    await t.step(JSON.stringify(String(value)), () => {
      const line = formatTextLine(record(["m"], { value }));
      assert.ok(line.endsWith(` value=${printed}\n`), `got: ${line}`);
      assert.equal(line.indexOf("\n"), line.length - 1, "exactly one line");
      // A quoted value reads back, with JSON string rules, as exactly what was logged.
      if (printed.startsWith('"') && typeof value === "string") assert.equal(JSON.parse(printed), value);
    });
  }
});

Deno.test("JSON lines hold no raw control or invisible character", () => {
  const text = formatJsonLine(record(["m\u202e"], { value: "a\u200bb\u{F0000}", line: "x\u2028y" }));
  assert.doesNotMatch(text.slice(0, -1), /[\p{C}\u2028\u2029]/u);
  assert.ok(text.includes("a\\u200bb\\udb80\\udc00"), text);
  assert.deepEqual(JSON.parse(text).value, "a\u200bb\u{F0000}");
});

Deno.test("text lines: an error is its message with its name beside it; empty fields are left out", () => {
  const line = formatTextLine(record(["m"], { error: new Error("boom"), empty: "", gone: undefined }));
  assert.ok(line.endsWith(" msg=m error=boom errorName=Error\n"), `got: ${line}`);
});

Deno.test("plainValue does not loop on values that contain themselves", () => {
  const loop: Record<string, unknown> = { name: "a" };
  loop.self = loop;
  assert.deepEqual(plainValue(loop), { name: "a", self: "[Circular]" });
  const shared = { n: 1n };
  // The same object twice side by side is not a cycle.
  assert.deepEqual(plainValue([shared, shared]), [{ n: "1" }, { n: "1" }]);
  const date = new Date(TIME);
  assert.equal(plainValue(date), date, "class instances are left to their own toJSON");
  assert.ok(formatJsonLine(record(["m"], { loop })).includes('"self":"[Circular]"'));
});
