/**
 * `deno task soak --minutes=N --seed=S`: rounds of seeded churn and faults against every
 * subcommand, each followed by a quiet period in which the invariants must come to hold; prints
 * one summary line and exits 0 only with zero violations.
 *
 * Method. A round is a churn window (`--window`, default 8 s) of steps drawn by
 * {@linkcode SoakPlanner} (one in six a fault), then every fault in progress is ended and the
 * invariants are polled until all hold or the deadline (`--deadline`, default 30 s) passes; the
 * time they took is the round's convergence. Checked after each quiet period: the Corefile block
 * equals the live objects' accepted hostnames and the text around it is the last hand edit's;
 * kuberture's Service carries the ready addresses; `ouroboros dns` answers the Records client and
 * the hairpin client as the live objects say; no replica wrote outside its leadership (the audit
 * log). Checked all the time: kuberture's target is never emptied once published, no process
 * exits unless the soak killed it, every hairpinned call reaches nginx with the caller's address.
 * RSS of each process after the first convergence and at the end, with a growth bound.
 *
 * Runs against the in-memory API server (tests/support/fake_apiserver); the real apiserver stack
 * is not wired in yet, and the first output line says so.
 *
 * Effects: the whole cluster of {@linkcode SoakWorld}; prints to stdout.
 *
 * @module
 */

import { PUBLIC_ADDRESS } from "../demo/dns_responder.ts";
import { askAFrom } from "../support/dns_tools.ts";
import { percentile } from "../bench/controller_stats.ts";
import { compareIpv4, FAULT_KINDS, type SoakModel, SoakPlanner, type SoakStep } from "./soak_plan.ts";
import { readCorefile, setDifference, type WriterRules, writesOutsideLeadership } from "./soak_checks.ts";
import { KUBERTURE_LEASE, PROXY_CLUSTER_IP, PROXY_FQDN, REPLICAS, SoakWorld } from "./soak_world.ts";
import type { AuditEntry } from "../support/fake_apiserver/mod.ts";

/** RSS growth allowed per process: this much plus the per-hour rate over the run. */
const RSS_FLOOR_MIB = 48;
const RSS_PER_HOUR_MIB = 32;

interface Flags {
  readonly minutes: number;
  readonly seed: number;
  readonly windowMs: number;
  readonly deadlineMs: number;
}

function parseFlags(args: readonly string[]): Flags {
  const values: Record<string, string> = {};
  for (const arg of args) {
    const match = /^--(minutes|seed|window|deadline)=(.+)$/.exec(arg);
    if (match === null) {
      throw new Error(
        `unknown argument ${JSON.stringify(arg)}; accepted: --minutes=N --seed=S --window=S --deadline=S`,
      );
    }
    values[match[1]!] = match[2]!;
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
    deadlineMs: number("deadline", 30) * 1_000,
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
  const read = readCorefile(world.corefile(), PROXY_FQDN);
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

  const published = world.publishedTargets();
  if (published === undefined || !sameList([...published].sort(compareIpv4), model.published)) {
    problems.push(
      `kuberture's Service targets ${JSON.stringify(published)}, expected ${JSON.stringify(model.published)}`,
    );
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

function writerRules(): WriterRules[] {
  const write = (entry: AuditEntry) => entry.method !== "GET";
  return [
    {
      name: "controller",
      users: REPLICAS.controller,
      leasePath: "/apis/coordination.k8s.io/v1/namespaces/ouroboros/leases/ouroboros-controller",
      guarded: (entry) => write(entry) && entry.path.startsWith("/api/v1/namespaces/kube-system/configmaps"),
    },
    {
      name: "kuberture",
      users: REPLICAS.kuberture,
      leasePath:
        `/apis/coordination.k8s.io/v1/namespaces/${KUBERTURE_LEASE.namespace}/leases/${KUBERTURE_LEASE.name}`,
      guarded: (entry) =>
        write(entry) && entry.path.startsWith(`/api/v1/namespaces/${KUBERTURE_LEASE.namespace}/services`),
    },
  ];
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
  say(
    `soak: seed ${flags.seed}, ${flags.minutes} min, rounds of ${flags.windowMs / 1000} s churn then quiet ` +
      `(deadline ${
        flags.deadlineMs / 1000
      } s), against the in-memory API server (the real apiserver stack is ` +
      "not wired into the soak yet)",
  );
  const planner = new SoakPlanner(flags.seed);
  const violations: Violation[] = [];
  const recent: string[] = [];
  let round = 0;
  let stepNumber = 0;
  let events = 0;
  let faults = 0;
  let checks = 0;
  const convergence: number[] = [];
  const violate = (text: string) => {
    violations.push({ round, step: stepNumber, text });
    say(`VIOLATION round ${round} step ${stepNumber}: ${text}`);
  };

  const started = performance.now();
  await using world = await SoakWorld.start((corefile) => readCorefile(corefile, PROXY_FQDN).outside);
  const expectedExits = new WeakSet<object>();
  const watched = new WeakSet<object>();
  let monitoring = true;
  let everPublished = false;
  const monitor = setInterval(() => {
    if (!monitoring) return;
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
    const targets = world.publishedTargets();
    checks++;
    if (targets !== undefined && targets.length > 0) everPublished = true;
    else if (everPublished) violate(`kuberture's Service target was emptied (${JSON.stringify(targets)})`);
  }, 100);
  world.onKill = (process) => expectedExits.add(process);

  const quiet = async (): Promise<void> => {
    await world.heal();
    const from = performance.now();
    let problems: string[] = [];
    while (performance.now() - from < flags.deadlineMs) {
      problems = await quietProblems(world, planner.model);
      if (problems.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    checks += 8;
    if (problems.length === 0) convergence.push((performance.now() - from) / 1000);
    else {
      for (const problem of problems) {
        violate(`not converged ${flags.deadlineMs / 1000} s after the quiet began: ${problem}`);
      }
      say(`  the last steps before it:\n    ${recent.slice(-12).join("\n    ")}`);
    }
    for (const rules of writerRules()) {
      checks++;
      for (const problem of writesOutsideLeadership(world.server.audit, rules)) {
        if (!violations.some((violation) => violation.text === problem)) violate(problem);
      }
    }
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
      if (FAULTS.has(step.kind)) {
        faults++;
        await world.fault(step as Parameters<SoakWorld["fault"]>[0]);
      } else {
        events++;
        const problem = await world.churn(step as Parameters<SoakWorld["churn"]>[0]);
        if (step.kind === "hairpin-call") checks++;
        if (problem !== undefined) violate(problem);
      }
      await new Promise((resolve) => setTimeout(resolve, afterMs));
    }
    await quiet();
    const p50 = percentile(convergence, 50);
    say(
      `round ${round}: ${stepNumber} steps so far, convergence ${convergence.at(-1)?.toFixed(2) ?? "-"} s ` +
        `(p50 ${p50.toFixed(2)} s), ${violations.length} violation(s)`,
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
    `soak: ${events} events, ${faults} faults, ${checks} checks, ${violations.length} violations, ` +
      `convergence p50/p99 ${percentile(convergence, 50).toFixed(2)}/${
        percentile(convergence, 99).toFixed(2)
      } s, ` +
      `RSS start/end ${rss.join(", ")} (bound: ${RSS_FLOOR_MIB} MiB + ${RSS_PER_HOUR_MIB} MiB per hour)`,
  );
  if (violations.length > 0) say(`soak: replay with --seed=${flags.seed}`);
  return violations.length === 0 ? 0 : 1;
}

const FAULTS: ReadonlySet<string> = new Set(FAULT_KINDS);

function say(text: string): void {
  // deno-lint-ignore no-console
  console.log(text);
}

function mib(kib: number | undefined): string {
  return kib === undefined ? "-" : `${(kib / 1024).toFixed(0)} MiB`;
}

if (import.meta.main) Deno.exit(await main());
