/**
 * What the server does with one incoming packet, from its bytes alone: drop it, answer an error
 * code at once, or ask the answerer. Responses are dropped, so two servers never bounce packets;
 * zone transfers are refused (they span messages and belong to the cluster DNS).
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { LocalQuestion } from "../local_answer.ts";
import { nameText } from "./name_text.ts";
import { type OptView, readMessage } from "./read_message.ts";
import { recordTypeName, TYPE_AXFR, TYPE_IXFR } from "./record_type_name.ts";

/** How a query arrived. */
export type Transport = "udp" | "tcp";

/** RCODE values the server sends. */
export const RCODE = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NOTIMP: 4,
  REFUSED: 5,
  /** Extended RCODE (needs OPT): the upper 8 bits go in the OPT record. */
  BADVERS: 16,
} as const;

/** The smallest response size a DNS client must accept (RFC 1035 §4.2.1). */
export const MIN_UDP_PAYLOAD = 512;
/** The largest message TCP's two-byte length prefix can frame. */
export const MAX_TCP_MESSAGE = 65_535;
const CLASS_IN = 1;
const OPCODE_QUERY = 0;

/** What responses to a query are built from. */
export interface ParsedQuery {
  readonly bytes: Uint8Array;
  readonly id: number;
  readonly flags: number;
  /** Offset after the part responses echo: the question when there is exactly one, else 12. */
  readonly echoEnd: number;
  /** The query's OPT record: responses then carry one too. */
  readonly opt: OptView | undefined;
  /** The largest response the client accepts. */
  readonly limit: number;
}

/** Why an error code is sent; these are also the outcome labels of the metrics. */
export type RejectOutcome = "formerr" | "notimp" | "refused" | "badvers";

/** The decision for one packet. */
export type QueryVerdict =
  | { readonly kind: "drop"; readonly reason: string }
  | {
    readonly kind: "reject";
    readonly outcome: RejectOutcome;
    readonly rcode: number;
    readonly reason: string;
    readonly query: ParsedQuery;
  }
  | {
    readonly kind: "ask";
    readonly query: ParsedQuery;
    readonly question: LocalQuestion;
    readonly type: number;
  };

/** Options for {@linkcode classifyQuery}. */
export interface ClassifyOptions {
  readonly transport: Transport;
  /** The largest UDP response this server sends and advertises, at least 512. */
  readonly maxUdpPayload: number;
}

/** The largest response a client accepts: over UDP 512 without EDNS, else its size, capped. */
export function responseLimit(opt: OptView | undefined, options: ClassifyOptions): number {
  if (options.transport === "tcp") return MAX_TCP_MESSAGE;
  if (opt === undefined) return MIN_UDP_PAYLOAD;
  const ours = Math.max(MIN_UDP_PAYLOAD, options.maxUdpPayload);
  return Math.min(Math.max(opt.payloadSize, MIN_UDP_PAYLOAD), ours);
}

/**
 * Decides what to do with the packet `bytes`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { classifyQuery } from "./classify_query.ts";
 *
 * const query = new Uint8Array([0, 7, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0x41, 0, 0, 1, 0, 1]);
 * const verdict = classifyQuery(query, { transport: "udp", maxUdpPayload: 1232 });
 * assert.ok(verdict.kind === "ask");
 * assert.deepEqual(verdict.question, { name: "a", type: "A" });
 * ```
 */
export function classifyQuery(bytes: Uint8Array, options: ClassifyOptions): QueryVerdict {
  if (bytes.length < 12) return { kind: "drop", reason: "shorter than a DNS header" };
  const id = (bytes[0]! << 8) | bytes[1]!;
  const flags = (bytes[2]! << 8) | bytes[3]!;
  if ((flags & 0x8000) !== 0) return { kind: "drop", reason: "a response, not a query" };
  const view = readMessage(bytes);
  if ("malformed" in view) {
    const query = { bytes, id, flags, echoEnd: 12, opt: view.opt, limit: responseLimit(view.opt, options) };
    return { kind: "reject", outcome: "formerr", rcode: RCODE.FORMERR, reason: view.malformed, query };
  }
  const { question, opt } = view;
  const single = view.questionCount === 1 && question !== undefined;
  const query: ParsedQuery = {
    bytes,
    id,
    flags,
    echoEnd: single ? view.questionEnd : 12,
    opt,
    limit: responseLimit(opt, options),
  };
  const reject = (outcome: RejectOutcome, rcode: number, reason: string): QueryVerdict => ({
    kind: "reject",
    outcome,
    rcode,
    reason,
    query,
  });
  const opcode = (flags >> 11) & 0xf;
  if (opcode !== OPCODE_QUERY) return reject("notimp", RCODE.NOTIMP, `opcode ${opcode} is not QUERY`);
  if (view.optCount > 1) return reject("formerr", RCODE.FORMERR, "more than one OPT record");
  if (opt !== undefined && opt.version !== 0) {
    return reject("badvers", RCODE.BADVERS, `EDNS version ${opt.version} is not 0`);
  }
  if (!single) return reject("formerr", RCODE.FORMERR, `${view.questionCount} questions, not 1`);
  if (question.class !== CLASS_IN) {
    return reject("refused", RCODE.REFUSED, `class ${question.class} is not IN`);
  }
  if (question.type === TYPE_AXFR || question.type === TYPE_IXFR) {
    return reject("refused", RCODE.REFUSED, "zone transfers are not served");
  }
  return {
    kind: "ask",
    query,
    question: { name: nameText(bytes, 12), type: recordTypeName(question.type) },
    type: question.type,
  };
}
