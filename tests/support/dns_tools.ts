/**
 * Real DNS programs for tests and benchmarks: dnsmasq as an upstream (or as the comparison server)
 * on loopback with given local records, and the clients dig and kdig with their output parsed.
 *
 * - {@linkcode startDnsmasq} starts dnsmasq in the foreground on 127.0.0.1 and a free port
 *   (UDP and TCP), with exact-name address records, TXT records and an optional upstream; stop it
 *   with `await using` or `stop()`.
 * - {@linkcode queryDns} runs dig or kdig with one or more questions and returns one
 *   {@linkcode DnsReply} per response they printed (status, flags, answers, EDNS size, size).
 * - {@linkcode freeDnsPort} finds a port free for both UDP and TCP.
 * - {@linkcode encodeQuery} and {@linkcode decodeMessage} build and read packets with
 *   `dns-packet` (an implementation independent of the server's own reader), and
 *   {@linkcode udpExchange} and {@linkcode DnsTcpClient} send raw bytes over UDP and TCP.
 *
 * @module
 */

// @ts-types="@types/dns-packet"
import * as packet from "dns-packet";
import { Buffer } from "node:buffer";
import dgram from "node:dgram";
import { classifyQuery, type ParsedQuery, type Transport } from "../../lib/dns/wire/classify_query.ts";
import { frameMessage, TcpFrameReader } from "../../lib/dns/wire/tcp_frames.ts";
import { concat } from "./conn_io.ts";
import { requireTool } from "./tools.ts";
import { waitForPort } from "./daemons.ts";

/** A DNS server's address. */
export interface DnsEndpoint {
  readonly host: string;
  readonly port: number;
}

/** Binds UDP on `host:port` to see whether it is free. */
function udpFree(host: string, port: number): Promise<boolean> {
  const socket = dgram.createSocket(host.includes(":") ? "udp6" : "udp4");
  // Resolve only once the socket is closed: the port is not free again before that.
  return new Promise((resolve) => {
    socket.once("error", () => socket.close(() => resolve(false)));
    socket.bind(port, host, () => socket.close(() => resolve(true)));
  });
}

/** A port that was free a moment ago for both UDP and TCP on `host`. */
export async function freeDnsPort(host = "127.0.0.1"): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const listener = Deno.listen({ hostname: host, port: 0 });
    const port = listener.addr.port;
    const free = await udpFree(host, port);
    listener.close();
    if (free) return port;
  }
  throw new Error(`no port free for both UDP and TCP on ${host}`);
}

/** What {@linkcode startDnsmasq} serves. */
export interface DnsmasqOptions {
  /** Exact-name address records (`--host-record`): A for IPv4 addresses, AAAA for IPv6. */
  readonly hosts?: readonly { readonly name: string; readonly addresses: readonly string[] }[];
  /** TXT records, one record per string (`--txt-record`). */
  readonly txt?: readonly { readonly name: string; readonly texts: readonly string[] }[];
  /** Where to forward everything else; without one, dnsmasq answers only its own records. */
  readonly upstream?: DnsEndpoint;
  /** dnsmasq's answer cache (default 0: every forwarded query reaches the upstream). */
  readonly cacheSize?: number;
  /** Appended to the command line. */
  readonly extraArgs?: readonly string[];
}

/** A running dnsmasq. */
export interface Dnsmasq extends AsyncDisposable {
  readonly endpoint: DnsEndpoint;
  /** Its process id, for RSS readings. */
  readonly pid: number;
  /** Kills it and waits for it to exit. */
  stop(): Promise<void>;
  /** What it printed to stderr so far. */
  output(): string;
}

function dnsmasqArgs(port: number, options: DnsmasqOptions): string[] {
  const args = [
    "-k",
    "--conf-file=/dev/null",
    "--no-resolv",
    "--no-hosts",
    "--no-poll",
    "--pid-file=",
    `--port=${port}`,
    "--listen-address=127.0.0.1",
    "--bind-interfaces",
    `--cache-size=${options.cacheSize ?? 0}`,
  ];
  for (const host of options.hosts ?? []) args.push(`--host-record=${host.name},${host.addresses.join(",")}`);
  for (const record of options.txt ?? []) {
    for (const text of record.texts) args.push(`--txt-record=${record.name},${text}`);
  }
  if (options.upstream !== undefined) args.push(`--server=${options.upstream.host}#${options.upstream.port}`);
  return [...args, ...(options.extraArgs ?? [])];
}

/**
 * Starts dnsmasq on 127.0.0.1 and a free port; resolves once it accepts TCP connections.
 *
 * @example
 * ```ts
 * await using upstream = await startDnsmasq({
 *   hosts: [{ name: "upstream.test", addresses: ["192.0.2.1"] }],
 *   txt: [{ name: "big.test", texts: ["a".repeat(200), "b".repeat(200)] }],
 * });
 * const [reply] = await queryDns(upstream.endpoint, [{ name: "upstream.test" }]);
 * ```
 */
export async function startDnsmasq(options: DnsmasqOptions = {}): Promise<Dnsmasq> {
  const dnsmasq = requireTool("dnsmasq");
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freeDnsPort();
    const child = new Deno.Command(dnsmasq, {
      args: dnsmasqArgs(port, options),
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    let text = "";
    const drain = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
      new WritableStream({ write: (chunk) => void (text += chunk) }),
    );
    let exited = false;
    const status = child.status.then((s) => {
      exited = true;
      return s;
    });
    const stop = async () => {
      if (!exited) {
        try {
          child.kill("SIGKILL");
        } catch {
          // Exited meanwhile.
        }
      }
      await status;
      await drain;
    };
    try {
      await Promise.race([
        waitForPort("127.0.0.1", port, "dnsmasq"),
        status.then((s) => {
          throw new Error(`dnsmasq exited with ${s.code}: ${text}`);
        }),
      ]);
    } catch (error) {
      await stop();
      lastError = error;
      continue;
    }
    return {
      endpoint: { host: "127.0.0.1", port },
      pid: child.pid,
      stop,
      output: () => text,
      [Symbol.asyncDispose]: stop,
    };
  }
  throw lastError;
}

/** One question for {@linkcode queryDns}. */
export interface DnsQuestion {
  readonly name: string;
  /** Record type (default A). */
  readonly type?: string;
}

/** Options for {@linkcode queryDns}. */
export interface QueryDnsOptions {
  /** Which client (default dig). */
  readonly client?: "dig" | "kdig";
  /** Over TCP. */
  readonly tcp?: boolean;
  /** Keep one TCP connection for all the questions (`+keepopen`). */
  readonly keepOpen?: boolean;
  /** EDNS UDP payload size to advertise. */
  readonly bufsize?: number;
  /** Send no OPT record. */
  readonly noEdns?: boolean;
  /** Do not retry over TCP when the answer is truncated (`+ignore`). */
  readonly ignoreTruncation?: boolean;
  /** Query class (default IN). */
  readonly class?: string;
  /** Seconds to wait per try (default 2). */
  readonly timeoutSeconds?: number;
  /** Source address to send from (`-b`): loopback has a whole /8, so each test client can have its own. */
  readonly source?: string;
}

/** One resource record as the client printed it. */
export interface DnsRecord {
  readonly name: string;
  readonly ttl: number;
  readonly class: string;
  readonly type: string;
  readonly data: string;
}

/** One response as the client printed it. */
export interface DnsReply {
  /** RCODE name: NOERROR, NXDOMAIN, SERVFAIL, REFUSED, FORMERR, NOTIMP … */
  readonly status: string;
  readonly id: number;
  /** Header flags in lower case: qr, aa, tc, rd, ra, ad, cd. */
  readonly flags: readonly string[];
  readonly answers: readonly DnsRecord[];
  /** The authority section (a NODATA answer's SOA). */
  readonly authorities: readonly DnsRecord[];
  /** The UDP size of the response's OPT record, when it had one. */
  readonly ednsUdpSize: number | undefined;
  /** Size of the response in bytes. */
  readonly size: number | undefined;
}

function clientArgs(
  server: DnsEndpoint,
  questions: readonly DnsQuestion[],
  options: QueryDnsOptions,
): string[] {
  const kdig = options.client === "kdig";
  const args = [`@${server.host}`, "-p", String(server.port)];
  const seconds = options.timeoutSeconds ?? 2;
  args.push(kdig ? `+timeout=${seconds}` : `+time=${seconds}`, kdig ? "+retry=0" : "+tries=1");
  if (options.source !== undefined) args.push("-b", options.source);
  if (options.tcp) args.push("+tcp");
  if (options.keepOpen) args.push("+keepopen");
  if (options.noEdns) args.push("+noedns");
  if (options.bufsize !== undefined) args.push(`+bufsize=${options.bufsize}`);
  if (options.ignoreTruncation) args.push("+ignore");
  // Each question as `name type [class]`: the bare-word form both clients read per question.
  for (const question of questions) {
    args.push(question.name, question.type ?? "A");
    if (options.class !== undefined) args.push(options.class);
  }
  return args;
}

/** Parses the answer-section line `name ttl class type data…`. */
function parseRecord(line: string): DnsRecord | undefined {
  const parts = line.trim().split(/\s+/);
  if (parts.length < 5) return undefined;
  const [name, ttl, klass, type, ...data] = parts;
  return { name: name!, ttl: Number(ttl), class: klass!, type: type!, data: data.join(" ") };
}

/** Splits dig or kdig output into responses, each starting at its `->>HEADER<<-` line. */
export function parseDigOutput(output: string): DnsReply[] {
  const blocks = output.split(/^.*->>HEADER<<-/m).slice(1);
  return blocks.map((block) => {
    const lines = block.split("\n");
    const status = /status: (\w+)/.exec(block)?.[1] ?? "";
    const id = Number(/id: (\d+)/.exec(block)?.[1] ?? "-1");
    const flags = (/;; [Ff]lags: ([^;]*);/.exec(block)?.[1] ?? "").trim().split(/\s+/).filter((f) =>
      f !== ""
    );
    const udp = /; EDNS: version: \d+, flags:[^;]*; udp: (\d+)/.exec(block)?.[1] ??
      /UDP size: (\d+) B/.exec(block)?.[1];
    const size = /MSG SIZE\s+rcvd: (\d+)/.exec(block)?.[1] ?? /;; Received (\d+) B/.exec(block)?.[1];
    const section = (title: string) => {
      const records: DnsRecord[] = [];
      const start = lines.findIndex((line) => line.startsWith(`;; ${title} SECTION:`));
      if (start < 0) return records;
      for (const line of lines.slice(start + 1)) {
        if (line.trim() === "" || line.startsWith(";")) break;
        const record = parseRecord(line);
        if (record !== undefined) records.push(record);
      }
      return records;
    };
    return {
      status,
      id,
      flags: flags.map((flag) => flag.toLowerCase()),
      answers: section("ANSWER"),
      authorities: section("AUTHORITY"),
      ednsUdpSize: udp === undefined ? undefined : Number(udp),
      size: size === undefined ? undefined : Number(size),
    };
  });
}

/**
 * Asks `server` the `questions` with dig (or kdig) and returns the responses it printed, in
 * order. Throws with the client's output when it printed none.
 *
 * @example
 * ```ts
 * const [reply] = await queryDns(server, [{ name: "Shop.Example.com", type: "AAAA" }], { client: "kdig", tcp: true });
 * reply.status; // "NOERROR"
 * ```
 */
export async function queryDns(
  server: DnsEndpoint,
  questions: readonly DnsQuestion[],
  options: QueryDnsOptions = {},
): Promise<DnsReply[]> {
  const tool = requireTool(options.client ?? "dig");
  const result = await new Deno.Command(tool, {
    args: clientArgs(server, questions, options),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const output = new TextDecoder().decode(result.stdout);
  const replies = parseDigOutput(output);
  if (replies.length === 0) {
    const stderr = new TextDecoder().decode(result.stderr);
    throw new Error(
      `${options.client ?? "dig"} printed no response (exit ${result.code}): ${output}${stderr}`,
    );
  }
  return replies;
}

/** Options for {@linkcode encodeQuery}. */
export interface EncodeQueryOptions {
  /** Default 0x1234. */
  readonly id?: number;
  /** Record type (default A). */
  readonly type?: string;
  /** Class (default IN). */
  readonly class?: "IN" | "CH" | "HS" | "ANY";
  /** EDNS UDP payload size; omitted: no OPT record. */
  readonly edns?: number;
  /** Set the DO bit in the OPT record. */
  readonly dnssecOk?: boolean;
  /** Recursion desired (default true). */
  readonly recursionDesired?: boolean;
}

/**
 * A query for `name` (case kept) encoded by `dns-packet`.
 *
 * @example
 * ```ts
 * const bytes = encodeQuery("Shop.Example.com", { type: "AAAA", edns: 1232 });
 * ```
 */
export function encodeQuery(name: string, options: EncodeQueryOptions = {}): Uint8Array {
  const additionals: packet.Answer[] = [];
  if (options.edns !== undefined) {
    additionals.push({
      type: "OPT",
      name: ".",
      udpPayloadSize: options.edns,
      flags: options.dnssecOk ? packet.DNSSEC_OK : 0,
    } as packet.Answer);
  }
  const encoded = packet.encode({
    type: "query",
    id: options.id ?? 0x1234,
    flags: options.recursionDesired === false ? 0 : packet.RECURSION_DESIRED,
    questions: [{ name, type: (options.type ?? "A") as packet.RecordType, class: options.class ?? "IN" }],
    additionals,
  });
  return new Uint8Array(encoded);
}

/** Fields of {@linkcode encodeHeader}. */
export interface HeaderFields {
  /** Default 0x0102. */
  readonly id?: number;
  /** The 16 bits after the ID (default 0x0100: a query, RD). */
  readonly flags?: number;
  readonly questions?: number;
  readonly answers?: number;
  readonly authorities?: number;
  readonly additionals?: number;
}

/** A bare 12-byte header with any counts, for building malformed packets by hand. */
export function encodeHeader(fields: HeaderFields = {}): Uint8Array {
  const words = [
    fields.id ?? 0x0102,
    fields.flags ?? 0x0100,
    fields.questions ?? 0,
    fields.answers ?? 0,
    fields.authorities ?? 0,
    fields.additionals ?? 0,
  ];
  return new Uint8Array(words.flatMap((word) => [word >> 8, word & 0xff]));
}

/** One record as `dns-packet` decodes it (the OPT fields only on OPT records). */
export interface DecodedRecord {
  readonly name: string;
  readonly type: string;
  readonly class?: string;
  readonly ttl?: number;
  readonly data?: unknown;
  readonly udpPayloadSize?: number;
  readonly extendedRcode?: number;
  readonly flag_do?: boolean;
}

/** A message as `dns-packet` decodes it, typed for what tests read. */
export interface DecodedMessage {
  readonly id: number;
  readonly rcode: string;
  readonly opcode: string;
  readonly flag_qr: boolean;
  readonly flag_aa: boolean;
  readonly flag_tc: boolean;
  readonly flag_rd: boolean;
  readonly flag_ra: boolean;
  readonly questions: readonly { readonly name: string; readonly type: string; readonly class: string }[];
  readonly answers: readonly DecodedRecord[];
  readonly authorities: readonly DecodedRecord[];
  readonly additionals: readonly DecodedRecord[];
}

/**
 * The server's reading of a query for `name` (as {@linkcode encodeQuery} builds it) arriving over
 * `options.transport` (default UDP) at a server advertising 1232: what the response builders
 * take. Throws when the server would drop the packet; a query it rejects is returned too.
 */
export function parsedQuery(
  name: string,
  options: EncodeQueryOptions & { readonly transport?: Transport } = {},
): ParsedQuery {
  const verdict = classifyQuery(encodeQuery(name, options), {
    transport: options.transport ?? "udp",
    maxUdpPayload: 1232,
  });
  if (verdict.kind === "drop") throw new Error(`the query for ${name} would be dropped: ${verdict.reason}`);
  return verdict.query;
}

/** Decodes a whole message with `dns-packet`; throws on what it cannot read. */
export function decodeMessage(bytes: Uint8Array): DecodedMessage {
  return packet.decode(Buffer.from(bytes)) as unknown as DecodedMessage;
}

/**
 * Sends `query` over UDP from a fresh socket and resolves with the first packet back; rejects
 * when none comes within `timeoutMs` (default 2 s).
 */
export function udpExchange(server: DnsEndpoint, query: Uint8Array, timeoutMs = 2_000): Promise<Uint8Array> {
  const socket = dgram.createSocket(server.host.includes(":") ? "udp6" : "udp4");
  return new Promise<Uint8Array>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no UDP reply from ${server.host}:${server.port} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on("message", (message: Uint8Array) => {
      clearTimeout(timer);
      socket.close();
      resolve(new Uint8Array(message));
    });
    socket.send(query, server.port, server.host);
  });
}

/**
 * Asks `name` (A) over UDP from the loopback address `source` (so a server that tells clients
 * apart by address sees that pod); the A records answered. Rejects when no reply comes within
 * `timeoutMs` (default 2 s).
 */
export async function askAFrom(
  server: DnsEndpoint,
  options: { readonly source: string; readonly name: string; readonly timeoutMs?: number },
): Promise<string[]> {
  const socket = dgram.createSocket("udp4");
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.bind(0, options.source, () => resolve());
    });
    const reply = await new Promise<Uint8Array>((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? 2_000;
      const timer = setTimeout(
        () => reject(new Error(`no answer for ${options.name} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      socket.once("message", (message: Uint8Array) => {
        clearTimeout(timer);
        resolve(message);
      });
      socket.send(encodeQuery(options.name, { id: 4242 }), server.port, server.host);
    });
    return decodeMessage(reply).answers.filter((record) => record.type === "A").map((record) =>
      String(record.data)
    );
  } finally {
    socket.close();
  }
}

/** A DNS-over-TCP client that writes framed (or raw) bytes and reads framed responses. */
export class DnsTcpClient implements AsyncDisposable {
  readonly #conn: Deno.TcpConn;
  readonly #frames = new TcpFrameReader();
  readonly #ready: Uint8Array[] = [];
  #closed = false;

  private constructor(conn: Deno.TcpConn) {
    this.#conn = conn;
  }

  /** Connects to `server`. */
  static async connect(server: DnsEndpoint): Promise<DnsTcpClient> {
    return new DnsTcpClient(await Deno.connect({ hostname: server.host, port: server.port }));
  }

  /** Writes each message with its length prefix, all in one write (pipelined). */
  async send(...messages: Uint8Array[]): Promise<void> {
    await this.sendRaw(concat(...messages.map(frameMessage)));
  }

  /** Writes `bytes` as they are. */
  async sendRaw(bytes: Uint8Array): Promise<void> {
    for (let written = 0; written < bytes.length;) written += await this.#conn.write(bytes.subarray(written));
  }

  /** The next response, or `null` when the server closed the connection first. */
  async receive(): Promise<Uint8Array | null> {
    const buffer = new Uint8Array(65_536);
    while (this.#ready.length === 0) {
      let read: number | null;
      try {
        read = await this.#conn.read(buffer);
      } catch (error) {
        if (error instanceof Deno.errors.ConnectionReset) return null;
        throw error;
      }
      if (read === null) return null;
      this.#ready.push(...this.#frames.push(buffer.subarray(0, read)));
    }
    return this.#ready.shift()!;
  }

  /** Closes the connection (once). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch {
      // Closed by the server already.
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    this.close();
    return Promise.resolve();
  }
}

/** A packet a {@linkcode FakeUpstream} received. */
export interface ReceivedPacket {
  readonly bytes: Uint8Array;
  readonly from: { readonly address: string; readonly port: number };
}

/** A scripted UDP DNS server on 127.0.0.1 (see {@linkcode startFakeUpstream}). */
export interface FakeUpstream extends AsyncDisposable {
  readonly endpoint: DnsEndpoint;
  /** Every packet received, in order. */
  readonly received: ReceivedPacket[];
  /** Sends `bytes` from the upstream's own address and port. */
  send(bytes: Uint8Array, to: { readonly address: string; readonly port: number }): void;
  /** Resolves once `count` packets have been received in total. */
  waitForPackets(count: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A UDP server on 127.0.0.1 and a free port that records what it receives and answers with
 * `answer` (its return value is sent back; `undefined` sends nothing). Without `answer` it never
 * answers: an upstream that times out. `options.port` picks the port (default: any free one).
 *
 * @example
 * ```ts
 * await using silent = await startFakeUpstream();
 * ```
 */
export async function startFakeUpstream(
  answer?: (query: Uint8Array) => Uint8Array | undefined,
  options: { readonly port?: number } = {},
): Promise<FakeUpstream> {
  const socket = dgram.createSocket("udp4");
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(options.port ?? 0, "127.0.0.1", () => {
      socket.off("error", reject);
      resolve();
    });
  });
  const received: ReceivedPacket[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  socket.on("message", (message: Uint8Array, from: dgram.RemoteInfo) => {
    const bytes = new Uint8Array(message);
    received.push({ bytes, from: { address: from.address, port: from.port } });
    for (const waiter of waiters.filter((w) => received.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    const response = answer?.(bytes);
    if (response !== undefined) socket.send(response, from.port, from.address);
  });
  let closed = false;
  const close = () => {
    if (closed) return Promise.resolve();
    closed = true;
    return new Promise<void>((resolve) => socket.close(() => resolve()));
  };
  return {
    endpoint: { host: "127.0.0.1", port: socket.address().port },
    received,
    send: (bytes, to) => socket.send(bytes, to.port, to.address),
    waitForPackets: (count) =>
      received.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count, resolve })),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * The reply an ordinary server gives to `query`: same ID and question, QR, RD copied, RA, and
 * one A record per address.
 */
export function answerWith(
  query: Uint8Array,
  addresses: readonly string[],
  options: { rcode?: number } = {},
): Uint8Array {
  const decoded = decodeMessage(query);
  const question = decoded.questions[0]!;
  const encoded = packet.encode({
    type: "response",
    id: decoded.id,
    flags: (decoded.flag_rd ? packet.RECURSION_DESIRED : 0) | packet.RECURSION_AVAILABLE |
      (options.rcode ?? 0),
    questions: [{ name: question.name, type: question.type as packet.RecordType, class: "IN" }],
    answers: addresses.map((data) => ({ type: "A" as const, name: question.name, ttl: 60, data })),
  });
  return new Uint8Array(encoded);
}
