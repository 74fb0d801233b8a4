/**
 * The soak's judges: read what the cluster holds and say how it differs from what it should hold.
 * Each returns problems as sentences naming the objects involved; an empty list is a pass.
 *
 * Decisions a reader could not guess:
 * - The Corefile block is read with a parser of its own (two line shapes: `rewrite name <host>
 *   <fqdn>` and the one-label wildcard `regex`), not ouroboros's, so a wrong rule is seen.
 * - The single-writer judge works on the in-memory API server's audit log, which is appended in
 *   the order requests were applied: every successful write to a guarded object must come from
 *   the user whose successful Lease write came last before it.
 *
 * Pure: texts and audit entries in, problems out.
 *
 * @module
 */

import type { AuditEntry } from "../support/fake_apiserver/mod.ts";

const BEGIN = "# === BEGIN ouroboros (do not edit by hand) ===";
const END = "# === END ouroboros ===";
const WILDCARD_HEAD = "^[^.]+\\.";
const WILDCARD_TAIL = "\\.$";

/** A Corefile split into our block's hostnames and everything around it. */
export interface ReadCorefile {
  /** The hostnames, in stored order; `undefined` without a block. */
  readonly hosts: readonly string[] | undefined;
  /** Block lines that are neither rule shape. */
  readonly foreign: readonly string[];
  /** The text with the block (markers included) taken out. */
  readonly outside: string;
}

/** Reads `corefile` as ouroboros's block and the rest; rules must point at `fqdn`. */
export function readCorefile(corefile: string, fqdn: string): ReadCorefile {
  const lines = corefile.split("\n");
  const begin = lines.findIndex((line) => line.trim() === BEGIN);
  const end = lines.findIndex((line) => line.trim() === END);
  if (begin < 0 || end < begin) return { hosts: undefined, foreign: [], outside: corefile };
  const hosts: string[] = [];
  const foreign: string[] = [];
  for (const line of lines.slice(begin + 1, end)) {
    const words = line.trim().split(/\s+/);
    if (words.length === 4 && words[0] === "rewrite" && words[1] === "name" && words[3] === fqdn) {
      hosts.push(words[2]!);
    } else if (
      words.length === 7 && words[0] === "rewrite" && words[1] === "name" && words[2] === "regex" &&
      words[4] === fqdn && words[5] === "answer" && words[6] === "auto" &&
      words[3]!.startsWith(WILDCARD_HEAD) && words[3]!.endsWith(WILDCARD_TAIL)
    ) {
      hosts.push(`*.${words[3]!.slice(WILDCARD_HEAD.length, -WILDCARD_TAIL.length).replaceAll("\\.", ".")}`);
    } else foreign.push(line);
  }
  return { hosts, foreign, outside: [...lines.slice(0, begin), ...lines.slice(end + 1)].join("\n") };
}

/** What `actual` lacks of `expected`, and what it has besides, as one sentence each; `[]` when equal. */
export function setDifference(
  what: string,
  expected: readonly string[],
  actual: readonly string[],
): string[] {
  const want = new Set(expected);
  const have = new Set(actual);
  const missing = [...want].filter((item) => !have.has(item)).sort();
  const extra = [...have].filter((item) => !want.has(item)).sort();
  const problems: string[] = [];
  if (missing.length > 0) problems.push(`${what} lacks ${missing.join(", ")}`);
  if (extra.length > 0) problems.push(`${what} holds ${extra.join(", ")}, which it should not`);
  return problems;
}

/** Which requests the single-writer judge reads for one replicated workload. */
export interface WriterRules {
  /** The workload, for the problem text. */
  readonly name: string;
  /** The replicas' API users. */
  readonly users: readonly string[];
  /** The Lease's path (its create is a POST to the folder above it). */
  readonly leasePath: string;
  /** Whether a request is a write only the leader may make. */
  readonly guarded: (entry: AuditEntry) => boolean;
}

const isWrite = (entry: AuditEntry) => entry.method !== "GET" && entry.status >= 200 && entry.status < 300;

/**
 * Guarded writes made by a replica whose Lease write was not the last before them, from
 * `audit[from]` on (the Lease history is read from the start).
 */
export function writesOutsideLeadership(
  audit: readonly AuditEntry[],
  rules: WriterRules,
  from = 0,
): string[] {
  const problems: string[] = [];
  let holder: string | undefined;
  for (let index = 0; index < audit.length; index++) {
    const entry = audit[index]!;
    if (!rules.users.includes(entry.user) || !isWrite(entry)) continue;
    const leaseCreate = entry.method === "POST" &&
      entry.path === rules.leasePath.slice(0, rules.leasePath.lastIndexOf("/"));
    if (entry.path === rules.leasePath || leaseCreate) {
      holder = entry.user;
      continue;
    }
    if (index < from || !rules.guarded(entry)) continue;
    if (entry.user !== holder) {
      problems.push(
        `${rules.name}: ${entry.user} wrote (${entry.method} ${entry.path} at ${
          new Date(entry.at).toISOString()
        }) while the Lease's last write was ${holder === undefined ? "nobody's" : `${holder}'s`}`,
      );
    }
  }
  return problems;
}
