/** `.ci/run`'s closing table: the slowest test files of a `deno test --junit-path` report. */

import assert from "node:assert/strict";
import { fileTimes, slowestLines } from "./support/slowest_test_files.ts";

// The shape Deno 2.9 writes: steps are cases named "<test> > <step>", inside their test's time.
const REPORT = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="deno test" tests="5" failures="0" errors="0" time="9.000">
    <testsuite name="./tests/a_test.ts" tests="3" disabled="0" errors="0" failures="0">
        <testcase name="one &gt; two" classname="./tests/a_test.ts" time="1.000" line="1" col="1">
        </testcase>
        <testcase name="one" classname="./tests/a_test.ts" time="1.500" line="1" col="1">
        </testcase>
        <testcase name="one &gt; two &gt; deeper" classname="./tests/a_test.ts" time="0.500" line="1" col="1">
        </testcase>
    </testsuite>
    <testsuite name="./tests/b_test.ts" tests="2" disabled="0" errors="0" failures="0">
        <testcase name="x &gt; y in a name, no such test" classname="./tests/b_test.ts" time="2.000" line="1" col="1">
        </testcase>
        <testcase name="z" classname="./tests/b_test.ts" time="0.250" line="1" col="1">
        </testcase>
    </testsuite>
</testsuites>`;

Deno.test("fileTimes: sums each file's tests, not their steps again; a '>' in a test's own name is kept", () => {
  assert.deepEqual(fileTimes(REPORT), [
    { file: "./tests/b_test.ts", tests: 2, seconds: 2.3 },
    { file: "./tests/a_test.ts", tests: 1, seconds: 1.5 },
  ]);
});

Deno.test("slowestLines: the first N files, slowest first, aligned; an empty report gives none", () => {
  assert.deepEqual(slowestLines(REPORT, 1), ["    2.3 s    2 tests  ./tests/b_test.ts"]);
  assert.deepEqual(slowestLines("<testsuites></testsuites>", 10), []);
});
