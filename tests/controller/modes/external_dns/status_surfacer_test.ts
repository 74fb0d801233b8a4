/**
 * The DNSEndpoint status surfacer as a pure function: which listed objects it warns about (grace
 * period, missing, lagging, invalid, caught up), the repeat window, and what it remembers.
 */

import assert from "node:assert/strict";
import type { ObservedGeneration } from "../../../../lib/resources/dns_endpoint.ts";
import type {
  ObservedRecord,
  RecordProgress,
} from "../../../../lib/controller/modes/external_dns/observed_record.ts";
import {
  type StatusProblem,
  type SurfaceInput,
  surfacerKey,
  surfaceStatus,
} from "../../../../lib/controller/modes/external_dns/status_surfacer.ts";

const NS = "ouroboros";
/** 2026-01-01T00:00:00Z. */
const T0 = Date.UTC(2026, 0, 1);
/** An arbitrary monotonic origin, unrelated to wall time. */
const C0 = 5_000;

const absent: ObservedGeneration = { kind: "absent" };
const observed = (value: number): ObservedGeneration => ({ kind: "value", value });

/** Overrides of a record's progress; `null` leaves the field out. */
interface ProgressCase {
  readonly generation?: number | null;
  readonly createdAt?: string | null;
  readonly observedGeneration?: ObservedGeneration;
}

/** A listed DNSEndpoint created at T0, generation 1, no status; `"none"` gives no progress (a Service). */
function record(name: string, overrides: ProgressCase | "none" = {}): ObservedRecord {
  const base = { name, uid: `uid-${name}`, resourceVersion: "7", labels: {}, annotations: {}, spec: {} };
  if (overrides === "none") return base;
  const generation = overrides.generation === undefined ? 1 : overrides.generation;
  const createdAt = overrides.createdAt === undefined ? new Date(T0).toISOString() : overrides.createdAt;
  const progress: RecordProgress = {
    ...(generation === null ? {} : { generation }),
    ...(createdAt === null ? {} : { createdAt }),
    observedGeneration: overrides.observedGeneration ?? absent,
  };
  return { ...base, progress };
}

function input(listed: readonly ObservedRecord[], overrides: Partial<SurfaceInput> = {}): SurfaceInput {
  return {
    namespace: NS,
    listed,
    deleted: [],
    now: { wallMs: T0 + 61_000, clockMs: C0 },
    previous: new Map(),
    ...overrides,
  };
}

function problems(result: ReturnType<typeof surfaceStatus>): [string, StatusProblem][] {
  return result.notices.map((notice) => [notice.name, notice.problem]);
}

Deno.test("surfaceStatus: which objects get a warning, one pass, nothing remembered", async (t) => {
  const cases: readonly {
    readonly name: string;
    readonly progress: ProgressCase | "none";
    readonly ageMs: number;
    readonly want: StatusProblem | undefined;
  }[] = [
    { name: "no status, inside the grace period", progress: {}, ageMs: 59_999, want: undefined },
    { name: "no status, exactly at the grace period", progress: {}, ageMs: 60_000, want: "missing" },
    { name: "no status, past the grace period", progress: {}, ageMs: 61_000, want: "missing" },
    {
      name: "lagging inside the grace period",
      progress: { generation: 3, observedGeneration: observed(2) },
      ageMs: 30_000,
      want: undefined,
    },
    {
      name: "lagging past the grace period",
      progress: { generation: 3, observedGeneration: observed(2) },
      ageMs: 61_000,
      want: "lagging",
    },
    {
      name: "caught up",
      progress: { generation: 3, observedGeneration: observed(3) },
      ageMs: 600_000,
      want: undefined,
    },
    {
      name: "observed ahead of the generation",
      progress: { generation: 3, observedGeneration: observed(4) },
      ageMs: 600_000,
      want: undefined,
    },
    {
      name: "no generation known: nothing to compare",
      progress: { generation: null, observedGeneration: observed(1) },
      ageMs: 600_000,
      want: undefined,
    },
    {
      name: "invalid is reported at once, even inside the grace period",
      progress: { observedGeneration: { kind: "invalid", raw: '"3"' } },
      ageMs: 1_000,
      want: "invalid",
    },
    {
      name: "no creation time counts as past the grace period",
      progress: { createdAt: null },
      ageMs: 0,
      want: "missing",
    },
    {
      name: "unreadable creation time counts as past it",
      progress: { createdAt: "yesterday" },
      ageMs: 0,
      want: "missing",
    },
    { name: "no progress (a Service) is never checked", progress: "none", ageMs: 600_000, want: undefined },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const listed = [record("ep", c.progress)];
      const result = surfaceStatus(input(listed, { now: { wallMs: T0 + c.ageMs, clockMs: C0 } }));
      assert.deepEqual(problems(result), c.want === undefined ? [] : [["ep", c.want]]);
      assert.deepEqual(
        [...result.next],
        c.want === undefined ? [] : [[surfacerKey("ep", c.want), C0]],
        "only what was reported is remembered, at clock time",
      );
    });
  }
});

Deno.test("surfaceStatus: messages name the object, the numbers and the likely causes", () => {
  const { notices } = surfaceStatus(input([
    record("missing"),
    record("lagging", { generation: 5, observedGeneration: observed(3) }),
    record("invalid", { observedGeneration: { kind: "invalid", raw: "1.5" } }),
  ]));
  assert.equal(notices.length, 3);
  const [missing, lagging, invalid] = notices;
  assert.match(
    missing!.message,
    /^DNSEndpoint ouroboros\/missing has no status\.observedGeneration after 60s/,
  );
  assert.match(missing!.message, /external-dns may not be running/);
  assert.match(missing!.message, /may not watch namespace ouroboros/);
  assert.match(missing!.message, /RBAC to update DNSEndpoint status/);
  assert.deepEqual(missing!.properties, {
    dnsEndpoint: "ouroboros/missing",
    specGeneration: 1,
    problem: "missing",
  });
  assert.match(
    lagging!.message,
    /^DNSEndpoint ouroboros\/lagging is at generation 5 .* observed generation 3/,
  );
  assert.match(
    lagging!.message,
    /external-dns may be unhealthy or its DNS provider is rejecting the records/,
  );
  assert.deepEqual(lagging!.properties, {
    dnsEndpoint: "ouroboros/lagging",
    specGeneration: 5,
    problem: "lagging",
    observedGeneration: 3,
  });
  assert.match(
    invalid!.message,
    /^DNSEndpoint ouroboros\/invalid has status\.observedGeneration 1\.5, which is not an integer/,
  );
});

Deno.test("surfaceStatus: one warning per object and problem per five minutes", () => {
  const listed = [record("a")];
  const first = surfaceStatus(input(listed));
  assert.deepEqual(problems(first), [["a", "missing"]]);

  const within = surfaceStatus(
    input(listed, { now: { wallMs: T0 + 361_000, clockMs: C0 + 299_999 }, previous: first.next }),
  );
  assert.deepEqual(problems(within), [], "inside the window: not repeated");
  assert.deepEqual([...within.next], [[surfacerKey("a", "missing"), C0]], "the first report's time is kept");

  const after = surfaceStatus(
    input(listed, { now: { wallMs: T0 + 361_001, clockMs: C0 + 300_000 }, previous: within.next }),
  );
  assert.deepEqual(problems(after), [["a", "missing"]], "the window is over: reported again");
  assert.deepEqual([...after.next], [[surfacerKey("a", "missing"), C0 + 300_000]]);
});

Deno.test("surfaceStatus: the window is per problem, so a new problem of the same object is reported", () => {
  const first = surfaceStatus(input([record("a")]));
  const lagging = [record("a", { generation: 2, observedGeneration: observed(1) })];
  const second = surfaceStatus(
    input(lagging, { now: { wallMs: T0 + 70_000, clockMs: C0 + 9_000 }, previous: first.next }),
  );
  assert.deepEqual(problems(second), [["a", "lagging"]]);
  assert.deepEqual(
    new Map(second.next),
    new Map([[surfacerKey("a", "missing"), C0], [surfacerKey("a", "lagging"), C0 + 9_000]]),
    "a live object's earlier report is kept until its window ends",
  );
});

Deno.test("surfaceStatus: the memory is pruned to the live set and to unexpired reports", () => {
  const previous = new Map([
    [surfacerKey("gone", "missing"), C0],
    [surfacerKey("deleted", "missing"), C0],
    [surfacerKey("caught-up", "lagging"), C0],
    [surfacerKey("old", "missing"), C0 - 300_000],
  ]);
  const result = surfaceStatus(input([
    record("deleted"),
    record("caught-up", { generation: 2, observedGeneration: observed(2) }),
    record("old", { generation: 1, observedGeneration: observed(1) }),
  ], { deleted: ["deleted"], previous }));
  assert.deepEqual(problems(result), []);
  assert.deepEqual(
    [...result.next],
    [[surfacerKey("caught-up", "lagging"), C0]],
    "objects no longer listed or deleted by the pass are forgotten, and so are expired reports",
  );
});

Deno.test("surfaceStatus: objects the pass deleted are not reported", () => {
  const result = surfaceStatus(input([record("stale"), record("kept")], { deleted: ["stale"] }));
  assert.deepEqual(problems(result), [["kept", "missing"]]);
  assert.deepEqual([...result.next.keys()], [surfacerKey("kept", "missing")]);
});

Deno.test("surfaceStatus: grace and repeat window can be tuned", () => {
  const listed = [record("a")];
  const now = { wallMs: T0 + 10_000, clockMs: C0 };
  assert.deepEqual(problems(surfaceStatus(input(listed, { now }), { graceMs: 10_000 })), [["a", "missing"]]);
  const first = surfaceStatus(input(listed), { repeatMs: 1_000 });
  const second = surfaceStatus(
    input(listed, { now: { wallMs: T0 + 62_000, clockMs: C0 + 1_000 }, previous: first.next }),
    {
      repeatMs: 1_000,
    },
  );
  assert.deepEqual(problems(second), [["a", "missing"]]);
});

Deno.test("surfaceStatus: an object this controller just changed is given the grace period again (no false lag warning)", () => {
  const lagging = record("changed", { generation: 3, observedGeneration: observed(2) });
  const missing = record("fresh");
  const invalid = record("odd", { observedGeneration: { kind: "invalid", raw: '"two"' } });
  const settling = new Set(["changed", "fresh", "odd"]);
  assert.deepEqual(
    problems(surfaceStatus(input([lagging, missing, invalid], { settling }))),
    [["odd", "invalid"]],
    "an invalid status is reported even while settling",
  );
  assert.deepEqual(
    problems(surfaceStatus(input([lagging, missing, invalid]))),
    [["changed", "lagging"], ["fresh", "missing"], ["odd", "invalid"]],
  );
});
