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
 *
 * @module
 */

import dgram from "node:dgram";
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
  return new Promise((resolve) => {
    socket.once("error", () => {
      socket.close();
      resolve(false);
    });
    socket.bind(port, host, () => {
      socket.close();
      resolve(true);
    });
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
  /** The UDP size of the response's OPT record, when it had one. */
  readonly ednsUdpSize: number | undefined;
  /** Size of the response in bytes. */
  readonly size: number | undefined;
}

function clientArgs(server: DnsEndpoint, questions: readonly DnsQuestion[], options: QueryDnsOptions): string[] {
  const kdig = options.client === "kdig";
  const args = [`@${server.host}`, "-p", String(server.port)];
  const seconds = options.timeoutSeconds ?? 2;
  args.push(kdig ? `+timeout=${seconds}` : `+time=${seconds}`, kdig ? "+retry=0" : "+tries=1");
  if (options.tcp) args.push("+tcp");
  if (options.keepOpen) args.push("+keepopen");
  if (options.noEdns) args.push("+noedns");
  if (options.bufsize !== undefined) args.push(`+bufsize=${options.bufsize}`);
  if (options.ignoreTruncation) args.push("+ignore");
  for (const question of questions) {
    if (options.class !== undefined) args.push("-c", options.class);
    args.push(question.name, question.type ?? "A");
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
    const flags = (/;; [Ff]lags: ([^;]*);/.exec(block)?.[1] ?? "").trim().split(/\s+/).filter((f) => f !== "");
    const udp = /; EDNS: version: \d+, flags:[^;]*; udp: (\d+)/.exec(block)?.[1] ??
      /UDP size: (\d+) B/.exec(block)?.[1];
    const size = /MSG SIZE\s+rcvd: (\d+)/.exec(block)?.[1] ?? /;; Received (\d+) B/.exec(block)?.[1];
    const answers: DnsRecord[] = [];
    const start = lines.findIndex((line) => /^;; ANSWER SECTION:/.test(line));
    if (start >= 0) {
      for (const line of lines.slice(start + 1)) {
        if (line.trim() === "" || line.startsWith(";")) break;
        const record = parseRecord(line);
        if (record !== undefined) answers.push(record);
      }
    }
    return {
      status,
      id,
      flags: flags.map((flag) => flag.toLowerCase()),
      answers,
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
    throw new Error(`${options.client ?? "dig"} printed no response (exit ${result.code}): ${output}${stderr}`);
  }
  return replies;
}
