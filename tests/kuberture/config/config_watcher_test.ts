import assert from "node:assert/strict";
import { ConfigWatcher, type ConfigWatchOutcome } from "../../../lib/kuberture/config/config_watcher.ts";
import { readKubertureConfig } from "../../../lib/kuberture/config/read_kuberture_config.ts";
import { type Clock, systemClock } from "../../../lib/util/clock.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { tempDir } from "../../support/temp_dir.ts";
import { waitFor } from "../../support/wait.ts";

/** A config with one output whose hostname and metrics address the test picks. */
function configText(host: string, metrics = ":8080"): string {
  return [
    "outputs:",
    "  - name: api",
    `    hostname: [${host}]`,
    "    serviceName: kuberture-api",
    `metricsBindAddress: "${metrics}"`,
    "",
  ].join("\n");
}

/** Replaces `path` in one step (write aside, rename), as careful editors and tools do. */
async function replaceFile(path: string, text: string): Promise<void> {
  await Deno.writeTextFile(`${path}.tmp`, text);
  await Deno.rename(`${path}.tmp`, path);
}

interface Running extends AsyncDisposable {
  readonly watcher: ConfigWatcher;
  readonly outcomes: ConfigWatchOutcome[];
  /** The next outcome after the first `seen` that is not `unchanged`. */
  nextChange(seen: number): Promise<ConfigWatchOutcome>;
}

/** Starts a watcher on `path` (which must hold a valid config) and waits for its start-up look. */
async function watch(path: string, options: { clock?: Clock; debounceMs?: number } = {}): Promise<Running> {
  const initial = readKubertureConfig(path);
  assert.ok(initial.ok, JSON.stringify(initial));
  const outcomes: ConfigWatchOutcome[] = [];
  const watcher = new ConfigWatcher(path, {
    initial,
    clock: options.clock ?? systemClock,
    debounceMs: options.debounceMs ?? 20,
    onOutcome: (outcome) => outcomes.push(outcome),
  });
  const stop = new AbortController();
  const running = watcher.run(stop.signal);
  await waitFor("the start-up look", () => outcomes.length > 0);
  assert.deepEqual(outcomes, [{ kind: "unchanged" }]);
  return {
    watcher,
    outcomes,
    nextChange: (seen) =>
      waitFor(
        "a loaded or refused outcome",
        () => outcomes.slice(seen).find((outcome) => outcome.kind !== "unchanged"),
      ),
    [Symbol.asyncDispose]: async () => {
      stop.abort();
      await running;
    },
  };
}

Deno.test("a changed file is loaded, naming the changed keys that need a restart", async () => {
  await using dir = await tempDir("kuberture-watch-");
  const path = `${dir.path}/config.yaml`;
  await Deno.writeTextFile(path, configText("api.example.com"));
  await using running = await watch(path);

  await replaceFile(path, configText("api2.example.com", ":9090"));
  const outcome = await running.nextChange(1);

  assert.equal(outcome.kind, "loaded");
  assert.ok(outcome.kind === "loaded");
  assert.deepEqual(outcome.config.outputs[0]?.hostnames, ["api2.example.com"]);
  assert.equal(outcome.config.metricsBindAddress, ":9090");
  assert.deepEqual(outcome.restartNeeded, ["metricsBindAddress"]);
  assert.equal(running.watcher.config, outcome.config);
});

Deno.test("a ConfigMap update (the ..data symlink swapped to a new folder) is loaded", async () => {
  await using dir = await tempDir("kuberture-watch-");
  // What the kubelet lays out: config.yaml -> ..data/config.yaml, ..data -> ..<timestamp>.
  await Deno.mkdir(`${dir.path}/..2026_01_01_00_00_00.1`);
  await Deno.writeTextFile(`${dir.path}/..2026_01_01_00_00_00.1/config.yaml`, configText("api.example.com"));
  await Deno.symlink("..2026_01_01_00_00_00.1", `${dir.path}/..data`);
  await Deno.symlink("..data/config.yaml", `${dir.path}/config.yaml`);
  const path = `${dir.path}/config.yaml`;
  await using running = await watch(path);

  // Its update: a new folder, a new link beside the old, renamed over it, the old folder removed.
  await Deno.mkdir(`${dir.path}/..2026_01_01_00_01_00.2`);
  await Deno.writeTextFile(
    `${dir.path}/..2026_01_01_00_01_00.2/config.yaml`,
    configText("swapped.example.com"),
  );
  await Deno.symlink("..2026_01_01_00_01_00.2", `${dir.path}/..data_tmp`);
  await Deno.rename(`${dir.path}/..data_tmp`, `${dir.path}/..data`);
  await Deno.remove(`${dir.path}/..2026_01_01_00_00_00.1`, { recursive: true });
  const outcome = await running.nextChange(1);

  assert.ok(outcome.kind === "loaded", JSON.stringify(outcome));
  assert.deepEqual(outcome.config.outputs[0]?.hostnames, ["swapped.example.com"]);
  assert.deepEqual(outcome.restartNeeded, []);
});

Deno.test("an invalid new file is refused with every problem, the old config stays, and the fix is loaded", async () => {
  await using dir = await tempDir("kuberture-watch-");
  const path = `${dir.path}/config.yaml`;
  await Deno.writeTextFile(path, configText("api.example.com"));
  await using running = await watch(path);
  const before = running.watcher.config;

  await replaceFile(path, configText("localhost", ":99999"));
  const refused = await running.nextChange(1);

  assert.deepEqual(refused, {
    kind: "refused",
    problems: [
      `${path}:3:16: outputs[0].hostname[0]: "localhost" is a single label; give a name of at least two labels, ` +
      "such as api.example.com",
      `${path}:5:21: metricsBindAddress: ":99999" is not accepted (port "99999" is not a number from 0 to 65535); ` +
      "give a listen address such as :8080, 0.0.0.0:8080 or [::]:8080, or 0 to turn the listener off",
    ],
  });
  assert.equal(running.watcher.config, before);

  // Another file changing in the folder re-reads the same refused text: no second refusal.
  const seen = running.outcomes.length;
  await Deno.writeTextFile(`${dir.path}/unrelated`, "x");
  await waitFor("the look after the unrelated change", () => running.outcomes.length > seen);
  assert.deepEqual(running.outcomes.slice(seen), [{ kind: "unchanged" }]);

  const fixedAt = running.outcomes.length;
  await replaceFile(path, configText("fixed.example.com"));
  const loaded = await running.nextChange(fixedAt);
  assert.ok(loaded.kind === "loaded", JSON.stringify(loaded));
  assert.deepEqual(loaded.config.outputs[0]?.hostnames, ["fixed.example.com"]);
  assert.deepEqual(loaded.restartNeeded, []);
});

Deno.test("a deleted file is refused until it is back; recreated with the old text it is loaded again", async () => {
  await using dir = await tempDir("kuberture-watch-");
  const path = `${dir.path}/config.yaml`;
  const text = configText("api.example.com");
  await Deno.writeTextFile(path, text);
  await using running = await watch(path);

  await Deno.remove(path);
  const refused = await running.nextChange(1);
  assert.ok(refused.kind === "refused", JSON.stringify(refused));
  assert.equal(refused.problems.length, 1);
  assert.match(refused.problems[0]!, new RegExp(`^${path}: cannot be read: No such file or directory`));

  const seen = running.outcomes.length;
  await replaceFile(path, text);
  const loaded = await running.nextChange(seen);
  assert.ok(loaded.kind === "loaded", JSON.stringify(loaded));
  assert.deepEqual(loaded.config.outputs[0]?.hostnames, ["api.example.com"]);
});

Deno.test("the same text written again, or another file changing, is unchanged", async () => {
  await using dir = await tempDir("kuberture-watch-");
  const path = `${dir.path}/config.yaml`;
  const text = configText("api.example.com");
  await Deno.writeTextFile(path, text);
  await using running = await watch(path);

  await replaceFile(path, text);
  await waitFor("a look after the rewrite", () => running.outcomes.length > 1);
  await Deno.writeTextFile(`${dir.path}/other.yaml`, "x: 1\n");
  await waitFor("a look after the other file", () => running.outcomes.length > 2);

  assert.ok(
    running.outcomes.every((outcome) => outcome.kind === "unchanged"),
    JSON.stringify(running.outcomes),
  );
});

Deno.test("a burst of changes is read once, after the folder has been quiet for the debounce time", async () => {
  await using dir = await tempDir("kuberture-watch-");
  const path = `${dir.path}/config.yaml`;
  await Deno.writeTextFile(path, configText("api.example.com"));
  const clock = new FakeClock();
  await using running = await watch(path, { clock, debounceMs: 100 });

  await replaceFile(path, configText("first.example.com"));
  await replaceFile(path, configText("second.example.com"));
  await replaceFile(path, configText("third.example.com"));
  await waitFor("the debounce wait", () => clock.pending().length === 1);
  await clock.advance(99);
  assert.deepEqual(running.outcomes, [{ kind: "unchanged" }], "read before the folder was quiet for 100 ms");

  // Late events of the burst may restart the wait: keep moving time until the file is read.
  await waitFor("the read after the burst", async () => {
    await clock.advance(100);
    return running.outcomes.length > 1;
  });
  const loaded = running.outcomes.filter((outcome) => outcome.kind === "loaded");
  assert.equal(loaded.length, 1, JSON.stringify(running.outcomes));
  assert.deepEqual(loaded[0]!.kind === "loaded" && loaded[0]!.config.outputs[0]?.hostnames, [
    "third.example.com",
  ]);
});

Deno.test("run stops watching when its signal aborts, and returns at once for an aborted signal", async () => {
  await using dir = await tempDir("kuberture-watch-");
  const path = `${dir.path}/config.yaml`;
  await Deno.writeTextFile(path, configText("api.example.com"));
  const initial = readKubertureConfig(path);
  assert.ok(initial.ok);
  const outcomes: ConfigWatchOutcome[] = [];
  const watcher = new ConfigWatcher(path, {
    initial,
    clock: systemClock,
    onOutcome: (o) => outcomes.push(o),
  });

  await watcher.run(AbortSignal.abort());
  assert.deepEqual(outcomes, []);

  const stop = new AbortController();
  const running = watcher.run(stop.signal);
  await waitFor("the start-up look", () => outcomes.length > 0);
  stop.abort();
  await running; // the test's resource sanitizer fails if the folder watch were still open
  assert.deepEqual(outcomes, [{ kind: "unchanged" }]);
});

Deno.test("run rejects when the folder cannot be watched", async () => {
  await using dir = await tempDir("kuberture-watch-");
  await Deno.writeTextFile(`${dir.path}/config.yaml`, configText("api.example.com"));
  const initial = readKubertureConfig(`${dir.path}/config.yaml`);
  assert.ok(initial.ok);
  const watcher = new ConfigWatcher(`${dir.path}/missing/config.yaml`, {
    initial,
    clock: systemClock,
    onOutcome: () => {},
  });
  await assert.rejects(watcher.run(new AbortController().signal), Deno.errors.NotFound);
});
