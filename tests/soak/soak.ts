/**
 * `deno task soak --minutes=N --seed=S`: rounds of seeded churn and faults against every
 * subcommand, each followed by a quiet period in which the invariants must come to hold; prints
 * one summary line and exits 0 only with zero violations.
 *
 * Method. A round is a churn window (`--window`, default 8 s) of steps drawn by
 * {@linkcode SoakPlanner} (one in six a fault), then every fault in progress is ended and the
 * invariants are polled until all hold or the deadline (`--deadline`, default 45 s: a
 * reflector that failed through a fault may sleep its whole 30 s backoff cap after it ends) passes; the
 * time they took is the round's convergence. Checked after each quiet period: the Corefile block
 * equals the live objects' accepted hostnames and the text around it is the last hand edit's;
 * kuberture's Service carries the ready addresses; `ouroboros dns` answers the Records client and
 * the hairpin client as the live objects say; no replica wrote outside its leadership (the audit
 * log). Checked all the time: kuberture's target is never emptied once published, no process
 * exits unless the soak killed it, every hairpinned call reaches nginx with the caller's address.
 * RSS of each process after the first convergence and at the end, with a growth bound.
 *
 * Runs against the real apiserver stack (etcd and kube-apiserver built from their Go modules, the
 * chart's RBAC, the processes behind the fault gate: `soak_real_cluster.ts`) or the in-memory API
 * server (`--apiserver=real|fake`; by default the real stack when `deno task real:build` has built
 * it, else the fake; under `CI=true` a missing build is an error, never a quiet fallback). The
 * first output line says which.
 *
 * Stalled watches: a client notices a silent stream only by its own clock: after three of the
 * gaps between the bookmarks it has seen (at least 10 s), or, before it has seen two, at its idle
 * timeout (the watch's 300-600 s plus 30 s); the pace is shared by every watch of a process. The fake bookmarks every second, so the usual deadline is enough;
 * the real apiserver bookmarks about once a minute, so after a stall on the real stack a round's
 * deadline is `--stall-deadline` (default 660 s there: the longest idle timeout plus a margin)
 * and its convergence is reported apart.
 *
 * Effects: the whole cluster of {@linkcode SoakWorld}; prints to stdout.
 *
 * @module
 */

import { PUBLIC_ADDRESS } from "../demo/dns_responder.ts";
import { askAFrom } from "../support/dns_tools.ts";
import { percentile } from "../bench/controller_stats.ts";
import { compareIpv4, isFault, type SoakModel, SoakPlanner, type SoakStep } from "./soak_plan.ts";
import { readCorefile, setDifference, soakWriterRules, type SoakWriters } from "./soak_checks.ts";
import {
  CONTROLLER_LEASE,
  KUBERTURE_LEASE,
  NAMESPACE,
  PROXY_CLUSTER_IP,
  PROXY_FQDN,
  REPLICAS,
  SoakWorld,
} from "./soak_world.ts";
import type { Backend } from "./soak_cluster.ts";
import { binaryPath } from "../real/build.ts";
import { GO_COMPONENTS } from "../real/versions.ts";
import { writesOutsideLeadership } from "../real/single_writer.ts";

/** RSS growth allowed per process: this much plus the per-hour rate over the run. */
const RSS_FLOOR_MIB = 48;
const RSS_PER_HOUR_MIB = 32;

interface Flags {
  readonly minutes: number;
  readonly seed: number;
  readonly windowMs: number;
  readonly deadlineMs: number;
  /** The deadline of a quiet period after a watch stall; `undefined`: the backend's default. */
  readonly stallDeadlineMs: number | undefined;
  /** `undefined`: the real stack when built, else the fake. */
  readonly apiserver: Backend | undefined;
}

const USAGE = "--minutes=N --seed=S --window=S --deadline=S --stall-deadline=S --apiserver=real|fake";

function parseFlags(args: readonly string[]): Flags {
  const values: Record<string, string> = {};
  for (const arg of args) {
    const match = /^--(minutes|seed|window|deadline|stall-deadline|apiserver)=(.+)$/.exec(arg);
    if (match === null) throw new Error(`unknown argument ${JSON.stringify(arg)}; accepted: ${USAGE}`);
    values[match[1]!] = match[2]!;
  }
  const apiserver = values.apiserver;
  if (apiserver !== undefined && apiserver !== "real" && apiserver !== "fake") {
    throw new Error(`--apiserver=${apiserver}: expected real or fake`);
  }
  const number = (key: string, fallback: number, integer = false) => {
    const raw = values[key];
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
      throw new Error(`--${key}=${raw}: expected a positive ${integer ? "integer" : "number"}`);
    }
    return value;
  };
  return {
    minutes: number("minutes", 10),
    seed: number("seed", Math.floor(Math.random() * 2 ** 31), true),
    windowMs: number("window", 8) * 1_000,
    deadlineMs: number("deadline", 45) * 1_000,
    stallDeadlineMs: values["stall-deadline"] === undefined ? undefined : number("stall-deadline", 0) * 1_000,
    apiserver,
  };
}

/** Real-stack stall deadline: the reflector's longest idle timeout (600 s + 30 s) and a margin. */
const REAL_STALL_DEADLINE_MS = 660_000;

/**
 * The backend to run against: the flag's, else the real stack when its components are built.
 * Under CI=true a missing build is an error. Returns the backend and why, for the first line.
 */
async function chooseBackend(flag: Backend | undefined): Promise<{ backend: Backend; why: string }> {
  if (flag !== undefined) return { backend: flag, why: "--apiserver" };
  const missing: string[] = [];
  for (const name of ["etcd", "kube-apiserver"]) {
    const component = GO_COMPONENTS.find((candidate) => candidate.name === name)!;
    const found = await Deno.stat(binaryPath(component)).then((stat) => stat.isFile, () => false);
    if (!found) missing.push(`${name} ${component.version}`);
  }
  if (missing.length === 0) return { backend: "real", why: "its components are built" };
  if (Deno.env.get("CI") === "true") {
    throw new Error(
      `CI=true and the real apiserver stack is not built (${missing.join(", ")} missing from ` +
        ".ci/cache/real): run deno task real:build, or pass --apiserver=fake",
    );
  }
  return {
    backend: "fake",
    why: `the real stack is not built (${missing.join(", ")}; deno task real:build builds it)`,
  };
}

/** One broken promise, with where it was seen. */
interface Violation {
  readonly round: number;
  readonly step: number;
  readonly text: string;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

/** The quiet-period invariants: problems now, `[]` when all hold. */
async function quietProblems(world: SoakWorld, model: SoakModel): Promise<string[]> {
  const problems: string[] = [];
  const read = readCorefile(await world.corefile(), PROXY_FQDN);
  if (read.hosts === undefined) {
    if (model.expectedHosts().length > 0) problems.push("the Corefile has no ouroboros block");
  } else {
    problems.push(...setDifference("the Corefile block", model.expectedHosts(), read.hosts));
    if (read.foreign.length > 0) {
      problems.push(`the Corefile block holds foreign lines ${JSON.stringify(read.foreign)}`);
    }
  }
  if (read.outside !== world.expectedOutside) {
    problems.push("the Corefile outside the block is not as last edited");
  }

  const published = await world.publishedTargets();
  const publishable = model.publishable();
  const sorted = published === undefined ? undefined : [...published].sort(compareIpv4);
  if (sorted === undefined || !publishable.some((set) => sameList(sorted, set))) {
    const expected = publishable.length === 1
      ? JSON.stringify(publishable[0])
      : `one of ${JSON.stringify(publishable)} (no address is ready; it keeps what it last saw)`;
    problems.push(`kuberture's Service targets ${JSON.stringify(published)}, expected ${expected}`);
  }

  const endpoint = { host: world.dns.process.dns.hostname, port: world.dns.process.dns.port };
  const ask = async (source: string, name: string, expected: readonly string[]) => {
    let answer: string[];
    try {
      answer = (await askAFrom(endpoint, { source, name, timeoutMs: 1_000 })).sort(compareIpv4);
    } catch (error) {
      problems.push(`dns: ${name} from ${source}: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    if (!sameList(answer, expected)) {
      problems.push(
        `dns: ${name} from ${source} answered ${JSON.stringify(answer)}, expected ${
          JSON.stringify(expected)
        }`,
      );
    }
  };
  await ask("127.0.0.3", model.records.hostname, [...model.records.ips].sort(compareIpv4));
  // ouroboros dns reads Ingresses only here (Gateway API off by default), so routes' names are not asked.
  const hosts = [...new Set([...model.ingresses.values()].flat().flatMap((host) => host.expected ?? []))]
    .sort();
  const exact = hosts.filter((host) => !host.startsWith("*."));
  const wildcard = hosts.filter((host) => host.startsWith("*."));
  for (const host of exact.slice(0, 3)) await ask("127.0.0.2", host, [PROXY_CLUSTER_IP]);
  for (const host of wildcard.slice(0, 1)) await ask("127.0.0.2", `x${host.slice(1)}`, [PROXY_CLUSTER_IP]);
  for (const host of [...model.dropped].filter((name) => !name.startsWith("*.")).slice(0, 2)) {
    await ask("127.0.0.2", host, [PUBLIC_ADDRESS]);
  }
  return problems;
}

/** The two replicated workloads as the single-writer judge sees them. */
function writers(world: SoakWorld): SoakWriters[] {
  const uids = (pair: "controller" | "kuberture") =>
    new Map(REPLICAS[pair].map((user) => [world.cluster.uidOf(user), user]));
  return [
    {
      name: "controller",
      uids: uids("controller"),
      lease: CONTROLLER_LEASE,
      guarded: { resource: "configmaps", namespace: "kube-system" },
    },
    {
      name: "kuberture",
      uids: uids("kuberture"),
      lease: KUBERTURE_LEASE,
      guarded: { resource: "services", namespace: NAMESPACE },
    },
  ];
}

/** Every guarded write made outside leadership so far, as sentences. */
async function singleWriterProblems(world: SoakWorld): Promise<string[]> {
  const requests = await world.cluster.requests();
  const problems: string[] = [];
  for (const workload of writers(world)) {
    const name = (uid: string | undefined) =>
      uid === undefined ? "nobody's" : `${workload.uids.get(uid) ?? uid}'s`;
    for (const { write, leaseHolder } of writesOutsideLeadership(requests, soakWriterRules(workload))) {
      problems.push(
        `${workload.name}: ${
          workload.uids.get(write.uid) ?? write.uid
        } wrote (${write.verb} ${write.requestURI} ` +
          `received ${write.received}) while the Lease's last write was ${name(leaseHolder)}`,
      );
    }
  }
  return problems;
}

async function rssKib(pid: number): Promise<number | undefined> {
  try {
    // Deno asks for every permission to read /proc; cat reads it (as bench:controller does).
    const output = await new Deno.Command("cat", { args: [`/proc/${pid}/status`], stdout: "piped" }).output();
    const status = new TextDecoder().decode(output.stdout);
    const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return match === null ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

function processes(world: SoakWorld): { name: string; pid: number }[] {
  return [
    ...world.replicas.map((replica) => ({ name: replica.user, pid: replica.process.child.pid })),
    { name: "dns", pid: world.dns.process.child.pid },
    { name: "proxy", pid: world.proxy.child.pid },
  ];
}

async function main(): Promise<number> {
  const flags = parseFlags(Deno.args);
  const { backend, why } = await chooseBackend(flags.apiserver);
  const stallDeadlineMs = flags.stallDeadlineMs ??
    (backend === "real" ? Math.max(REAL_STALL_DEADLINE_MS, flags.deadlineMs) : flags.deadlineMs);
  say(
    `soak: against ${
      backend === "real" ? "the REAL apiserver stack" : "the in-memory (fake) API server"
    } (${why}); seed ${flags.seed}, ${flags.minutes} min, rounds of ${flags.windowMs / 1000} s churn then ` +
      `quiet (deadline ${flags.deadlineMs / 1000} s, ${stallDeadlineMs / 1000} s after a watch stall)`,
  );
  const planner = new SoakPlanner(flags.seed);
  const violations: Violation[] = [];
  const recent: string[] = [];
  let round = 0;
  let stepNumber = 0;
  let events = 0;
  let faults = 0;
  let checks = 0;
  /** Puts the server stored with fewer hosts than planned (it refused some). */
  let refusedByServer = 0;
  const convergence: number[] = [];
  /** Convergence of the quiet periods that followed a watch stall (their deadline is longer). */
  const afterStall: number[] = [];
  let stalled = false;
  const violate = (text: string) => {
    violations.push({ round, step: stepNumber, text });
    say(`VIOLATION round ${round} step ${stepNumber}: ${text}`);
  };

  const started = performance.now();
  await using world = await SoakWorld.start(backend, {
    outsideOf: (corefile) => readCorefile(corefile, PROXY_FQDN).outside,
  });
  say(`soak: ${world.cluster.description} and every process started`);
  const expectedExits = new WeakSet<object>();
  const watched = new WeakSet<object>();
  let monitoring = true;
  let everPublished = false;
  let polling = false;
  const monitor = setInterval(async () => {
    if (!monitoring || polling) return;
    for (const replica of world.replicas) {
      const process = replica.process;
      if (watched.has(process)) continue;
      watched.add(process);
      process.status.then((status) => {
        if (monitoring && !expectedExits.has(process)) {
          violate(`${replica.user} exited on its own (code ${status.code}, signal ${status.signal})`);
        }
      });
    }
    polling = true;
    try {
      const targets = await world.publishedTargets();
      checks++;
      if (targets !== undefined && targets.length > 0) everPublished = true;
      else if (everPublished && monitoring) {
        violate(`kuberture's Service target was emptied (${JSON.stringify(targets)})`);
      }
    } catch {
      // The server could not be read (a restart): nothing seen, nothing judged.
    } finally {
      polling = false;
    }
  }, backend === "real" ? 250 : 100);
  world.onKill = (process) => expectedExits.add(process);

  /** The quiet period; `undefined` when the invariants did not come to hold by the deadline. */
  const quiet = async (): Promise<number | undefined> => {
    await world.heal();
    const deadlineMs = stalled ? stallDeadlineMs : flags.deadlineMs;
    const from = performance.now();
    let problems: string[] = [];
    let waitingSaid = false;
    while (performance.now() - from < deadlineMs) {
      problems = await quietProblems(world, planner.model);
      if (problems.length === 0) break;
      if (!waitingSaid && performance.now() - from > flags.deadlineMs) {
        // Past the usual deadline after a stall: say what is still awaited, so a long round says why.
        waitingSaid = true;
        say(`  still waiting after ${flags.deadlineMs / 1000} s (a watch stall): ${problems.join("; ")}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    checks += 8;
    let took: number | undefined;
    if (problems.length === 0) {
      const published = await world.publishedTargets();
      if (published !== undefined) planner.model.settle(published);
      took = (performance.now() - from) / 1000;
      (stalled ? afterStall : convergence).push(took);
    } else {
      for (const problem of problems) {
        violate(`not converged ${deadlineMs / 1000} s after the quiet began: ${problem}`);
      }
      say(`  the last steps before it:\n    ${recent.slice(-12).join("\n    ")}`);
    }
    stalled = false;
    checks++;
    for (const problem of await singleWriterProblems(world)) {
      if (!violations.some((violation) => violation.text === problem)) violate(problem);
    }
    return took;
  };

  await quiet();
  const rssStart = new Map<string, number | undefined>();
  for (const { name, pid } of processes(world)) rssStart.set(name, await rssKib(pid));

  const endAt = started + flags.minutes * 60_000;
  while (performance.now() < endAt) {
    round++;
    const windowEnd = performance.now() + flags.windowMs;
    while (performance.now() < windowEnd) {
      const step: SoakStep = planner.next();
      stepNumber++;
      const { afterMs, ...action } = step;
      recent.push(`#${stepNumber} ${JSON.stringify(action)}`);
      if (isFault(action)) {
        faults++;
        if (action.kind === "watches-stall") stalled = true;
        await world.fault(action);
      } else {
        events++;
        const outcome = await world.churn(action);
        if (step.kind === "hairpin-call") checks++;
        if (outcome.problem !== undefined) violate(outcome.problem);
        if (outcome.stored !== undefined) {
          // The server refused some names (see soak_world.ts): the model holds what it stored.
          planner.model.apply(outcome.stored);
          refusedByServer++;
          recent.push(`#${stepNumber} stored by the server as ${JSON.stringify(outcome.stored)}`);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, afterMs));
    }
    const afterAStall = stalled;
    const took = await quiet();
    say(
      `round ${round}: ${stepNumber} steps so far, convergence ${took?.toFixed(2) ?? "-"} s` +
        `${afterAStall ? " (after a watch stall)" : ""}, ${violations.length} violation(s)`,
    );
  }

  const hours = (performance.now() - started) / 3_600_000;
  const rss: string[] = [];
  for (const { name, pid } of processes(world)) {
    const end = await rssKib(pid);
    const start = rssStart.get(name);
    const restarted = (world.replicas.find((replica) => replica.user === name)?.starts ?? 1) > 1;
    rss.push(`${name} ${mib(start)}/${mib(end)}${restarted ? " (restarted)" : ""}`);
    const bound = (RSS_FLOOR_MIB + RSS_PER_HOUR_MIB * hours) * 1024;
    if (!restarted && start !== undefined && end !== undefined && end - start > bound) {
      violate(
        `${name}'s RSS grew from ${mib(start)} to ${mib(end)}, more than ${mib(bound)} in ${
          hours.toFixed(2)
        } h`,
      );
    }
  }
  monitoring = false;
  clearInterval(monitor);
  for (const replica of world.replicas) expectedExits.add(replica.process);

  say(
    `soak: ${events} events${
      refusedByServer === 0 ? "" : ` (${refusedByServer} puts stored without hosts the server refused)`
    }, ${faults} faults${
      world.crashLoops === 0
        ? ""
        : ` (${world.crashLoops} killed kuberture replicas refused the invalid config at start)`
    }, ${checks} checks, ${violations.length} violations, ` +
      `convergence p50/p99 ${percentile(convergence, 50).toFixed(2)}/${
        percentile(convergence, 99).toFixed(2)
      } s${
        afterStall.length === 0
          ? ""
          : ` (after a watch stall: ${afterStall.length} round(s), max ${
            Math.max(...afterStall).toFixed(2)
          } s)`
      }, ` +
      `RSS start/end ${rss.join(", ")} (bound: ${RSS_FLOOR_MIB} MiB + ${RSS_PER_HOUR_MIB} MiB per hour)`,
  );
  if (violations.length > 0) {
    say(`soak: replay with --seed=${flags.seed} --apiserver=${backend}`);
    say(`soak: the processes' logs are kept in ${await keepLogs(world)}`);
  }
  return violations.length === 0 ? 0 : 1;
}

/** Writes every process's log lines (a replica started again: its latest run) to a new folder. */
async function keepLogs(world: SoakWorld): Promise<string> {
  const folder = await Deno.makeTempDir({ prefix: "ouroboros-soak-logs-" });
  const runs = [
    ...world.replicas.map((replica) => ({ name: replica.user, logs: replica.process.logs })),
    { name: "dns", logs: world.dns.process.logs },
    { name: "proxy", logs: world.proxy.logs },
  ];
  for (const { name, logs } of runs) {
    await Deno.writeTextFile(`${folder}/${name}.jsonl`, logs.map((line) => JSON.stringify(line)).join("\n"));
  }
  return folder;
}

function say(text: string): void {
  // deno-lint-ignore no-console
  console.log(text);
}

function mib(kib: number | undefined): string {
  return kib === undefined ? "-" : `${(kib / 1024).toFixed(0)} MiB`;
}

if (import.meta.main) Deno.exit(await main());
