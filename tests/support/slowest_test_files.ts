/**
 * The slowest test files of a `deno test --junit-path` report, so `.ci/run` can end by saying
 * where the suite's time goes. A file's time is the sum of its tests' times; steps (JUnit cases
 * named `<test> > <step>`) are inside their test's time and are not counted again. Pure parsing
 * of Deno's own report; `import.meta.main` prints the table for a report path.
 *
 * @module
 */

/** One test file's share of a run. */
export interface FileTime {
  readonly file: string;
  readonly tests: number;
  readonly seconds: number;
}

const ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function unescape(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ENTITIES[name]!);
}

/** Every file of the report with its tests' summed time, slowest first. */
export function fileTimes(junit: string): FileTime[] {
  const cases = new Map<string, { name: string; seconds: number }[]>();
  for (const match of junit.matchAll(/<testcase name="([^"]*)" classname="([^"]*)" time="([0-9.]+)"/g)) {
    const [, name, file, seconds] = match;
    const list = cases.get(unescape(file!)) ?? [];
    list.push({ name: unescape(name!), seconds: Number(seconds) });
    cases.set(unescape(file!), list);
  }
  return [...cases].map(([file, list]) => {
    const names = new Set(list.map((entry) => entry.name));
    const tests = list.filter((entry) => {
      for (let at = entry.name.indexOf(" > "); at >= 0; at = entry.name.indexOf(" > ", at + 1)) {
        if (names.has(entry.name.slice(0, at))) return false;
      }
      return true;
    });
    const seconds = tests.reduce((sum, entry) => sum + entry.seconds, 0);
    return { file, tests: tests.length, seconds: Math.round(seconds * 10) / 10 };
  }).sort((a, b) => b.seconds - a.seconds || a.file.localeCompare(b.file));
}

/** The report's `count` slowest files as lines to print. */
export function slowestLines(junit: string, count: number): string[] {
  return fileTimes(junit).slice(0, count).map((entry) =>
    `${entry.seconds.toFixed(1).padStart(7)} s  ${String(entry.tests).padStart(3)} tests  ${entry.file}`
  );
}

if (import.meta.main) {
  const [path, count = "10"] = Deno.args;
  const encoder = new TextEncoder();
  if (path === undefined) {
    await Deno.stderr.write(encoder.encode("usage: slowest_test_files.ts <junit.xml> [count]\n"));
    Deno.exit(2);
  }
  const lines = slowestLines(await Deno.readTextFile(path), Number(count));
  await Deno.stdout.write(encoder.encode(lines.map((line) => `${line}\n`).join("")));
}
