/**
 * UDP exchanges with one upstream over a few shared sockets, instead of a socket per query.
 *
 * For an unpredictable source port (RFC 5452 §4.5) at low cost, a socket on a kernel-picked port
 * is retired after `rotateAfter` queries and closed once its last query ends. `size` > 1 measured
 * slower under dnsperf (each socket keeps a receive pending).
 * A reply counts only with a waiting random ID, the upstream's address and port, and `accept`'s
 * yes; a refused reply does not end the wait, so a forged packet cannot hide the real answer.
 *
 * Each socket has one receive loop reading into its own buffer; an accepted reply is copied out.
 *
 * Effects: opens UDP sockets (`Deno.listenDatagram`), sends and receives; time via the injected
 * clock.
 *
 * @module
 */

import type { Clock } from "../../util/clock.ts";
import { errorMessage } from "../../util/error_message.ts";
import { formatIp, parseIp, unmapIpv4 } from "../../util/ip.ts";
import { UpstreamIdMap } from "./upstream_id_map.ts";

/**
 * The largest DNS message read from a UDP socket (the largest `--max-udp-size`): each receive loop
 * reads into a buffer this size (without one, Deno 2.9 allocates 64 KiB per datagram). Larger
 * datagrams are cut (a test pins this).
 */
export const UDP_READ_BUFFER_BYTES = 4096;

/** Settled waiters at the front of the deadline queue that make the sweeper drop them. */
const COMPACT_AFTER = 1_024;

/** An upstream DNS server: an IP address and a port. */
export interface UpstreamEndpoint {
  readonly host: string;
  readonly port: number;
}

/** How one exchange ended. */
export type ExchangeResult =
  | { readonly kind: "reply"; readonly bytes: Uint8Array }
  | { readonly kind: "timeout" }
  | { readonly kind: "failed"; readonly message: string };

/** One query waiting for its reply. */
interface Waiter {
  /** Cleared once settled, so the query is not kept alive until its deadline passes. */
  accept: ((reply: Uint8Array) => boolean) | undefined;
  resolve: ((result: ExchangeResult) => void) | undefined;
  readonly entry: PoolSocket;
  id: number;
  readonly deadline: number;
  done: boolean;
  cleanup: (() => void) | undefined;
}

interface PoolSocket {
  readonly socket: Deno.DatagramConn;
  readonly waiting: UpstreamIdMap<Waiter>;
  uses: number;
  retired: boolean;
  closed: boolean;
}

/** Options for {@linkcode UpstreamSocketPool}. */
export interface UpstreamSocketPoolOptions {
  readonly clock: Clock;
  /** Numbers in [0, 1) for query IDs. */
  readonly random: () => number;
  readonly timeoutMs: number;
  /** Sockets in use at once (default 1). */
  readonly size?: number;
  /** Queries a socket sends before it is replaced (default 1,024). */
  readonly rotateAfter?: number;
}

/** Options for {@linkcode UpstreamSocketPool.exchange}. */
export interface ExchangeOptions {
  /** Builds the packet to send with the ID it must carry. */
  readonly build: (id: number) => Uint8Array;
  /** Whether a reply with the right ID and source answers the query. */
  readonly accept: (reply: Uint8Array) => boolean;
  readonly signal?: AbortSignal;
}

/** The canonical spelling of an address, so a reply's source compares with the upstream's. */
function canonical(address: string): string {
  const parsed = parseIp(address);
  return parsed === undefined ? address : formatIp(unmapIpv4(parsed));
}

/** Sends queries to one upstream over a rotating set of UDP sockets. */
export class UpstreamSocketPool {
  readonly #endpoint: UpstreamEndpoint;
  readonly #host: string;
  /** The wildcard address of the upstream's family, for the local end. */
  readonly #any: string;
  readonly #to: Deno.NetAddr;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #rotateAfter: number;
  readonly #timeoutMs: number;
  /** Waiters in the order they were sent, which is deadline order (one timeout for all). */
  #deadlines: Waiter[] = [];
  #head = 0;
  #sweeping = false;
  readonly #stop = new AbortController();
  readonly #slots: (PoolSocket | undefined)[];
  readonly #retiring = new Set<PoolSocket>();
  #next = 0;
  #closed = false;

  /** Sockets open lazily, on the first exchange. */
  constructor(endpoint: UpstreamEndpoint, options: UpstreamSocketPoolOptions) {
    this.#endpoint = endpoint;
    this.#host = canonical(endpoint.host);
    this.#any = this.#host.includes(":") ? "::" : "0.0.0.0";
    this.#to = { transport: "udp", hostname: endpoint.host, port: endpoint.port };
    this.#clock = options.clock;
    this.#random = options.random;
    this.#rotateAfter = Math.max(1, options.rotateAfter ?? 1_024);
    this.#timeoutMs = options.timeoutMs;
    this.#slots = new Array<PoolSocket | undefined>(Math.max(1, options.size ?? 1)).fill(undefined);
  }

  get endpoint(): UpstreamEndpoint {
    return this.#endpoint;
  }

  /** Sockets open now, retired ones still waiting for replies included. */
  openSockets(): number {
    return this.#slots.filter((slot) => slot !== undefined && !slot.closed).length + this.#retiring.size;
  }

  #open(): PoolSocket {
    const socket = Deno.listenDatagram({ hostname: this.#any, port: 0, transport: "udp" });
    const entry: PoolSocket = {
      socket,
      waiting: new UpstreamIdMap(this.#random),
      uses: 0,
      retired: false,
      closed: false,
    };
    void this.#read(entry);
    return entry;
  }

  async #read(entry: PoolSocket): Promise<void> {
    const buffer = new Uint8Array(UDP_READ_BUFFER_BYTES);
    while (!entry.closed) {
      let received: [Uint8Array, Deno.Addr];
      try {
        received = await entry.socket.receive(buffer);
      } catch (error) {
        if (!entry.closed) this.#broken(entry, error);
        return;
      }
      this.#receive(entry, received[0], received[1] as Deno.NetAddr);
    }
  }

  /** A failed send or a broken socket: replace it, and fail its queries now, not at their timeout. */
  #broken(entry: PoolSocket, error: unknown): void {
    if (entry.closed) return;
    this.#retire(entry);
    const message = errorMessage(error);
    for (const waiter of entry.waiting.drain()) this.#settle(waiter, { kind: "failed", message });
    this.#closeIfDone(entry);
  }

  #receive(entry: PoolSocket, message: Uint8Array, from: Deno.NetAddr): void {
    if (from.port !== this.#endpoint.port || message.length < 2) return;
    if (from.hostname !== this.#host && canonical(from.hostname) !== this.#host) return;
    const id = (message[0]! << 8) | message[1]!;
    const waiter = entry.waiting.get(id);
    if (waiter === undefined || waiter.accept?.(message) !== true) return;
    // The buffer is read into again: the reply keeps a copy.
    this.#settle(waiter, { kind: "reply", bytes: message.slice() });
  }

  #settle(waiter: Waiter, result: ExchangeResult): void {
    if (waiter.done) return;
    waiter.done = true;
    const { entry, resolve, cleanup } = waiter;
    if (entry.waiting.get(waiter.id) === waiter) entry.waiting.take(waiter.id);
    waiter.accept = undefined;
    waiter.resolve = undefined;
    waiter.cleanup = undefined;
    cleanup?.();
    resolve?.(result);
    this.#closeIfDone(entry);
  }

  /** Times out waiters with one timer for the pool: a timer per query costs more than a query. */
  async #sweep(): Promise<void> {
    this.#sweeping = true;
    while (!this.#closed) {
      const head = this.#deadlines[this.#head];
      if (head === undefined) break;
      if (head.done) {
        this.#head += 1;
        continue;
      }
      const wait = head.deadline - this.#clock.now();
      if (wait <= 0) {
        this.#head += 1;
        this.#settle(head, { kind: "timeout" });
        continue;
      }
      // Under steady load the queue never empties: drop the settled front, or it grows forever.
      if (this.#head >= COMPACT_AFTER && this.#head * 2 >= this.#deadlines.length) {
        this.#deadlines = this.#deadlines.slice(this.#head);
        this.#head = 0;
      }
      if (!await this.#clock.sleep(wait, this.#stop.signal)) break;
    }
    if (this.#head >= this.#deadlines.length) {
      this.#deadlines = [];
      this.#head = 0;
    }
    this.#sweeping = false;
  }

  #retire(entry: PoolSocket): void {
    if (entry.retired) return;
    entry.retired = true;
    const index = this.#slots.indexOf(entry);
    if (index >= 0) this.#slots[index] = undefined;
    this.#retiring.add(entry);
  }

  #closeIfDone(entry: PoolSocket): void {
    if (!entry.retired || entry.closed || entry.waiting.size > 0) return;
    entry.closed = true;
    this.#retiring.delete(entry);
    try {
      entry.socket.close();
    } catch {
      // Closed already.
    }
  }

  #pick(): PoolSocket {
    const index = this.#next;
    this.#next = (index + 1) % this.#slots.length;
    let entry = this.#slots[index];
    if (entry === undefined || entry.retired) {
      entry = this.#open();
      this.#slots[index] = entry;
    }
    entry.uses += 1;
    if (entry.uses >= this.#rotateAfter) this.#retire(entry);
    return entry;
  }

  /** Sends one query and waits for its reply, the timeout, or `options.signal`. */
  exchange(options: ExchangeOptions): Promise<ExchangeResult> {
    if (this.#closed) return Promise.resolve({ kind: "failed", message: "upstream pool closed" });
    const { signal } = options;
    if (signal?.aborted) return Promise.resolve({ kind: "failed", message: "aborted" });
    const entry = this.#pick();
    return new Promise<ExchangeResult>((resolve) => {
      const waiter: Waiter = {
        accept: options.accept,
        resolve,
        entry,
        id: -1,
        deadline: this.#clock.now() + this.#timeoutMs,
        done: false,
        cleanup: undefined,
      };
      const id = entry.waiting.allocate(waiter);
      if (id === undefined) {
        this.#settle(waiter, { kind: "failed", message: "too many queries waiting on one socket" });
        return;
      }
      waiter.id = id;
      if (signal !== undefined) {
        const onAbort = () => this.#settle(waiter, { kind: "failed", message: "aborted" });
        signal.addEventListener("abort", onAbort, { once: true });
        waiter.cleanup = () => signal.removeEventListener("abort", onAbort);
      }
      this.#deadlines.push(waiter);
      if (!this.#sweeping) void this.#sweep();
      entry.socket.send(options.build(id), this.#to).catch((error) => this.#broken(entry, error));
    });
  }

  /** Closes every socket; queries still waiting end as `failed`. */
  close(): void {
    this.#closed = true;
    this.#stop.abort();
    for (const entry of [...this.#slots, ...this.#retiring]) {
      if (entry === undefined || entry.closed) continue;
      for (const waiter of entry.waiting.drain()) {
        this.#settle(waiter, { kind: "failed", message: "upstream pool closed" });
      }
      entry.closed = true;
      try {
        entry.socket.close();
      } catch {
        // Closed already.
      }
    }
    this.#retiring.clear();
  }
}
