/**
 * Pure core of the proxy benchmark (`deno task bench:proxy`): the sample store, the figure and
 * ratio tables, the goal verdicts, and the small calculations the orchestration needs
 * (descriptor budgets, process trees). No I/O here, so `proxy_bench_test.ts` covers it with
 * table tests while the benchmark itself never runs in the test suite.
 *
 * Decisions:
 * - Every figure is the median over interleaved rounds; an added latency is the median of a
 *   path minus the median of direct, so noise in one round cannot flip its sign alone.
 * - Goals compare "ours" (N workers when the proxy offers `--workers`, else the one
 *   configuration) with HAProxy at threads = CPUs, as the issue sets them; bulk throughput is
 *   compared with the figure recorded in docs/performance.md because HAProxy is not the bar there.
 *
 * @module
 */

import { figure, median, ratio } from "./bench_report.ts";

/** What kind of program carries a path; direct has no program between client and backend. */
export type PathKind = "ours" | "haproxy" | "go" | "direct";

/** The id of ours at one worker with `--routes-file`. */
export const ROUTED_PATH = "ours-1-routed";

/** One way from the load generators to the backends. */
export interface PathInfo {
  /** Stable key, such as `ours-2` or `haproxy-1`. */
  readonly id: string;
  /** Column heading, such as `ours w=2`. */
  readonly label: string;
  readonly kind: PathKind;
  /** Workers (ours) or threads (HAProxy); absent for Go and direct. */
  readonly threads?: number;
}

/** Samples per metric and path, in the order they were taken. */
export class Samples {
  readonly #samples = new Map<string, number[]>();

  /** Records one sample of `metric` on `path`. */
  add(metric: string, path: string, value: number): void {
    const key = `${metric}\u0000${path}`;
    const list = this.#samples.get(key) ?? [];
    list.push(value);
    this.#samples.set(key, list);
  }

  /** Every sample of `metric` on `path` (empty when none). */
  values(metric: string, path: string): readonly number[] {
    return this.#samples.get(`${metric}\u0000${path}`) ?? [];
  }

  /** The median of `metric` on `path`; NaN when there is no sample. */
  median(metric: string, path: string): number {
    return median(this.values(metric, path));
  }
}

/** A row of the figures table: how to read one number per path. */
export interface MetricRow {
  readonly label: string;
  /** The figure of `path`: usually a median; NaN when not applicable. */
  readonly value: (path: PathInfo) => number;
}

/** A metric row that reads the median of `metric`, NaN for direct unless `direct` is set. */
export function medianRow(
  label: string,
  metric: string,
  options: { samples: Samples; direct?: boolean },
): MetricRow {
  return {
    label,
    value: (path) =>
      path.kind === "direct" && options.direct === false
        ? Number.NaN
        : options.samples.median(metric, path.id),
  };
}

/** The latency a path adds: its median `metric` minus direct's; NaN for direct itself. */
export function addedLatency(samples: Samples, metric: string, direct: string): (path: PathInfo) => number {
  return (path) =>
    path.kind === "direct" ? Number.NaN : samples.median(metric, path.id) - samples.median(metric, direct);
}

/** Rows of figures, one column per path, ready for `renderTable`. */
export function figureRows(rows: readonly MetricRow[], paths: readonly PathInfo[]): string[][] {
  return rows.map((row) => [row.label, ...paths.map((path) => figure(row.value(path)))]);
}

/**
 * Rows of ratios of every path except `reference` to `reference` (e.g. to HAProxy at
 * threads = CPUs, or to direct); `-` where either figure is missing or the reference is not
 * positive.
 */
export function ratioRows(
  rows: readonly MetricRow[],
  paths: readonly PathInfo[],
  reference: PathInfo,
): string[][] {
  const others = paths.filter((path) => path.id !== reference.id);
  return rows.map((
    row,
  ) => [row.label, ...others.map((path) => ratio(row.value(path), row.value(reference)))]);
}

/** One goal's verdict. */
export interface Goal {
  readonly pass: boolean;
  readonly text: string;
}

/** The figures the goals are judged on, all medians of one run. */
export interface GoalInputs {
  readonly samples: Samples;
  /** Our configuration the goals judge (N workers when available). */
  readonly ours: PathInfo;
  /** HAProxy at threads = CPUs. */
  readonly haproxy: PathInfo;
  readonly direct: PathInfo;
  /** Concurrencies of the connection-rate test, e.g. [1, 4, 16]. */
  readonly rateClients: readonly number[];
  /** Concurrencies of the keep-alive latency test, e.g. [1, 8]. */
  readonly latencyClients: readonly number[];
  /** Idle-memory metrics with their labels, e.g. [["idleSmall", "1,000"], ["idleLarge", "9,900"]]. */
  readonly idle: readonly (readonly [string, string])[];
  /** Bulk throughput recorded in docs/performance.md (MiB/s), the floor for today's figures. */
  readonly bulkBaseline: { readonly download: number; readonly upload: number; readonly date: string };
}

function verdict(pass: boolean, text: string): Goal {
  return { pass, text };
}

/**
 * The goals as verdicts: connection rate ≥ HAProxy's at every concurrency, added p99 ≤
 * HAProxy's at every concurrency, idle memory per connection ≤ 2× HAProxy's at every count,
 * bulk throughput not below the figure in docs/performance.md. A goal whose figures are missing is a MISS:
 * an absent measurement proves nothing.
 */
export function judgeGoals(inputs: GoalInputs): Goal[] {
  const { samples, ours, haproxy, direct } = inputs;
  const m = (metric: string, path: PathInfo) => samples.median(metric, path.id);
  const known = (...values: number[]) => values.every(Number.isFinite);
  const goals: Goal[] = [];
  for (const clients of inputs.rateClients) {
    const a = m(`rate@${clients}`, ours);
    const b = m(`rate@${clients}`, haproxy);
    goals.push(verdict(
      known(a, b) && a >= b,
      `connection rate at ${clients} client(s) >= HAProxy's: ${figure(a)} vs ${figure(b)} conn/s (${
        ratio(a, b)
      })`,
    ));
  }
  for (const clients of inputs.latencyClients) {
    const a = m(`p99@${clients}`, ours) - m(`p99@${clients}`, direct);
    const b = m(`p99@${clients}`, haproxy) - m(`p99@${clients}`, direct);
    goals.push(verdict(
      known(a, b) && a <= b,
      `added p99 at ${clients} keep-alive client(s) <= HAProxy's: ${figure(a)} vs ${figure(b)} ms`,
    ));
  }
  for (const [metric, count] of inputs.idle) {
    const a = m(metric, ours);
    const b = m(metric, haproxy);
    goals.push(verdict(
      known(a, b) && a <= 2 * b,
      `idle memory at ${count} connections <= 2x HAProxy's: ${figure(a)} vs ${figure(b)} KiB/conn (${
        ratio(a, b)
      })`,
    ));
  }
  for (const kind of ["download", "upload"] as const) {
    const a = m(kind, ours);
    const floor = inputs.bulkBaseline[kind];
    goals.push(verdict(
      known(a) && a >= floor,
      `${kind} throughput not below docs/performance.md's ${
        figure(floor)
      } MiB/s (${inputs.bulkBaseline.date}): ${figure(a)} MiB/s (${ratio(a, floor)})`,
    ));
  }
  return goals;
}

/** A goal as the line the benchmark prints. */
export function goalLine(goal: Goal): string {
  return `${goal.pass ? "PASS" : "MISS"}  ${goal.text}`;
}

/**
 * How many idle connections fit a process's descriptor limit, rounded down to 100: what is left
 * after the descriptors it holds at rest and a reserve, divided by what one connection takes
 * (2 for a relay; more where the runtime adds pipes per connection, as Go's splice does).
 */
export function feasibleConnections(
  limit: number,
  options: { base: number; reserve: number; perConnection: number },
): number {
  if (!(options.perConnection > 0)) return 0;
  const fit = Math.floor((limit - options.base - options.reserve) / options.perConnection);
  return Math.max(0, Math.floor(fit / 100) * 100);
}

/**
 * The process `root` and all its descendants, from `ps -e -o pid=,ppid=` output: a proxy that
 * runs its workers as child processes is measured whole (threads are in /proc/<pid> already).
 */
export function processTree(psOutput: string, root: number): number[] {
  const children = new Map<number, number[]>();
  for (const line of psOutput.split("\n")) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (pid === undefined || ppid === undefined || !Number.isInteger(pid) || !Number.isInteger(ppid)) {
      continue;
    }
    const list = children.get(ppid) ?? [];
    list.push(pid);
    children.set(ppid, list);
  }
  const tree: number[] = [];
  const pending = [root];
  while (pending.length > 0) {
    const pid = pending.shift() as number;
    if (tree.includes(pid)) continue;
    tree.push(pid);
    pending.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** Whether `ouroboros proxy --help` offers the workers flag (another branch adds it). */
export function helpOffersWorkers(helpText: string): boolean {
  return /^\s*--workers[=\s]/m.test(helpText);
}

/** What routing costs: one row per metric, routed / unrouted at one worker (issue 30's goal). */
export interface RoutingCost {
  readonly label: string;
  readonly unrouted: number;
  readonly routed: number;
  /** routed / unrouted; higher is better for every metric listed but p99. */
  readonly ratio: number;
}

/**
 * The cost of routing, from the medians of the routed path and the same proxy without a table
 * (`ours-1`, or `ours` when workers are not offered); empty when either path is missing.
 */
export function routingCost(
  samples: Samples,
  metrics: readonly (readonly [string, string])[],
): RoutingCost[] {
  const base = samples.values(metrics[0]?.[0] ?? "", "ours-1").length > 0 ? "ours-1" : "ours";
  return metrics.flatMap(([metric, label]) => {
    const unrouted = median(samples.values(metric, base));
    const routed = median(samples.values(metric, ROUTED_PATH));
    return Number.isFinite(unrouted) && Number.isFinite(routed) && unrouted > 0
      ? [{ label, unrouted, routed, ratio: routed / unrouted }]
      : [];
  });
}

/** Inputs of {@linkcode judgeWorkersDefault}. */
export interface WorkersDefaultInputs {
  readonly samples: Samples;
  /** The CPUs the proxies were given (the cgroup quota with `--cpus`, else the machine's). */
  readonly cpus: number;
  /** What `--workers=0` (the default) runs on those CPUs: `defaultWorkers(cpus)`. */
  readonly defaultWorkers: number;
  readonly rateClients: readonly number[];
  /** Idle-memory metrics with their labels, as for the HAProxy goals. */
  readonly idle: readonly (readonly [string, string])[];
}

/**
 * Issue 32's rule for the `--workers` default: on the CPUs of this run it must never lose to
 * `--workers=1`, neither in connection rate nor in idle memory. When the default is one worker
 * the two are the same configuration, which the verdict says instead of comparing a path with
 * itself; otherwise the default's path (`ours-<n>`) is judged against `ours-1`.
 */
export function judgeWorkersDefault(inputs: WorkersDefaultInputs): Goal[] {
  const { samples, cpus, defaultWorkers: n } = inputs;
  const where = `at ${cpus} CPU(s) the default runs ${n} worker(s)`;
  if (n === 1) return [verdict(true, `${where}: it is --workers=1, so it cannot lose to it`)];
  const m = (metric: string, workers: number) => samples.median(metric, `ours-${workers}`);
  const goals: Goal[] = [];
  for (const clients of inputs.rateClients) {
    const [a, b] = [m(`rate@${clients}`, n), m(`rate@${clients}`, 1)];
    goals.push(verdict(
      Number.isFinite(a) && Number.isFinite(b) && a >= b,
      `${where}; its connection rate at ${clients} client(s) >= --workers=1's: ${figure(a)} vs ${
        figure(b)
      } conn/s (${ratio(a, b)})`,
    ));
  }
  for (const [metric, count] of inputs.idle) {
    const [a, b] = [m(metric, n), m(metric, 1)];
    goals.push(verdict(
      Number.isFinite(a) && Number.isFinite(b) && a <= b,
      `${where}; its idle memory at ${count} connections <= --workers=1's: ${figure(a)} vs ${
        figure(b)
      } KiB/conn (${ratio(a, b)})`,
    ));
  }
  return goals;
}
