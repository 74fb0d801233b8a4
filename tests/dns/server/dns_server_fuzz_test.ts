/**
 * Hostile input through the whole server, over real UDP and TCP sockets: random bytes, valid
 * queries cut short or with bytes flipped, compression loops, huge section counts, names with
 * binary bytes, over-long labels and names. After every packet the server must still answer a
 * valid query; every response must be well formed, carry the query's ID, and never be larger
 * than the client allows; packets without a header or that are responses get no answer; and
 * the answerer only ever sees escaped, lower-case names.
 *
 * Each packet is followed by a sentinel query: the server answers error and local queries
 * synchronously, in order, so whatever arrives before the sentinel's answer is the answer to the
 * packet.
 *
 * @module
 */

import assert from "node:assert/strict";
import dgram from "node:dgram";
import type { LocalDecision, LocalQuestion } from "../../../lib/dns/local_answer.ts";
import {
  type DecodedMessage,
  decodeMessage,
  DnsTcpClient,
  encodeHeader,
  encodeQuery,
  udpExchange,
} from "../../support/dns_tools.ts";
import { concat } from "../../support/conn_io.ts";
import { prng } from "../../support/random.ts";
import { startTestServer } from "./server_harness.ts";

const MAX_UDP = 1232;

/** Answers every A and AAAA question locally with a number of addresses that depends on the name. */
function fuzzAnswerer(seen: string[]) {
  return (question: LocalQuestion): LocalDecision => {
    seen.push(question.name);
    const count = question.name.length % 90;
    const addresses = question.type === "A"
      ? Array.from({ length: count }, (_, i) => `10.1.${i >> 8}.${i & 0xff}`)
      : question.type === "AAAA"
      ? Array.from({ length: count }, (_, i) => `fd00::${i.toString(16)}`)
      : [];
    return { kind: "local", source: "hairpin", ttl: 60, addresses };
  };
}

/** The packets to throw at the server, from the seeded generator. */
function hostilePacket(random: () => number): Uint8Array {
  const int = (n: number) => Math.floor(random() * n);
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => int(256));
  const header = (
    questions: number,
    answers: number,
    authorities: number,
    additionals: number,
    flags = 0x0100,
  ) => encodeHeader({ id: int(65536), flags, questions, answers, authorities, additionals });
  const label = (length: number, binary: boolean) =>
    new Uint8Array([length, ...(binary ? bytes(length) : Uint8Array.from({ length }, () => 0x61 + int(26)))]);
  const valid = () =>
    encodeQuery(`n${int(1e6)}.Fuzz.Test`, {
      id: int(65536),
      type: ["A", "AAAA", "TXT", "MX"][int(4)]!,
      ...(random() < 0.6 ? { edns: int(65536) } : {}),
    });
  switch (int(9)) {
    case 0:
      return bytes(int(600));
    case 1: {
      const query = valid();
      return query.subarray(0, int(query.length));
    }
    case 2: {
      const query = valid();
      for (let i = 0; i < 1 + int(4); i++) query[int(query.length)] = int(256);
      return query;
    }
    case 3: // a pointer to itself, forwards, or into a loop
      return concat(
        header(int(3), 1 + int(3), 0, int(2)),
        new Uint8Array([1, 0x61, 0xc0, 12 + int(40)]),
        new Uint8Array([0, 1, 0, 1]),
        new Uint8Array([0xc0, 12 + int(40), 0, 1, 0, 1, 0, 0, 0, 1, 0, 0]),
      );
    case 4: // counts far beyond what the packet holds
      return concat(header(int(65536), int(65536), int(65536), int(65536)), bytes(int(40)));
    case 5: { // names of binary labels, up to and over 255 octets
      const labels = Array.from({ length: 1 + int(6) }, () => label(1 + int(63), random() < 0.7));
      return concat(header(1, 0, 0, 0), ...labels, new Uint8Array([0, 0, int(2) === 0 ? 1 : 28, 0, 1]));
    }
    case 6: // a length byte with the reserved label types
      return concat(header(1, 0, 0, 0), new Uint8Array([0x40 + int(0x80), 0x61, 0, 0, 1, 0, 1]));
    case 7: // responses and other opcodes
      return concat(
        header(1, 0, 0, 0, (int(2) ? 0x8000 : 0) | (int(16) << 11)),
        label(3, false),
        new Uint8Array([0, 0, 1, 0, 1]),
      );
    default:
      return valid();
  }
}

/** The largest response allowed, by an independent reading of the query (dns-packet's). */
function allowedSize(query: Uint8Array): number {
  try {
    const message = decodeMessage(query);
    const opt = message.additionals.find((record) => record.type === "OPT");
    return opt === undefined ? 512 : Math.min(Math.max(opt.udpPayloadSize ?? 0, 512), MAX_UDP);
  } catch {
    return MAX_UDP;
  }
}

function checkResponse(query: Uint8Array, response: Uint8Array, limit: number, what: string): DecodedMessage {
  assert.ok(query.length >= 12, `${what}: answered a packet shorter than a header`);
  assert.equal(query[2]! & 0x80, 0, `${what}: answered a response`);
  assert.ok(response.length <= limit, `${what}: ${response.length} bytes, allowed ${limit}`);
  let message: DecodedMessage;
  try {
    message = decodeMessage(response);
  } catch (error) {
    throw new Error(`${what}: malformed response ${response}`, { cause: error });
  }
  assert.equal(message.id, (query[0]! << 8) | query[1]!, `${what}: ID not echoed`);
  assert.ok(message.flag_qr, `${what}: QR not set`);
  // TC keeps the records that fit (RFC 2181 §9): then one more would not have.
  const first = message.answers[0];
  if (message.flag_tc && first !== undefined) {
    const recordSize = 12 + (first.type === "AAAA" ? 16 : 4);
    assert.ok(response.length + recordSize > limit, `${what}: truncated while another record would fit`);
  }
  return message;
}

function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("DnsServer fuzz: hostile packets over UDP and TCP never break it or make it say too much", async (t) => {
  const seen: string[] = [];
  await using served = await startTestServer({
    upstreams: [{ host: "127.0.0.1", port: 9 }],
    answer: fuzzAnswerer(seen),
  });
  const random = prng(20_261_203);

  await t.step("UDP: 2,000 packets, each followed by a sentinel", async () => {
    const socket = dgram.createSocket("udp4");
    const received: Uint8Array[] = [];
    let wake: (() => void) | undefined;
    socket.on("message", (message: Uint8Array) => {
      received.push(new Uint8Array(message));
      wake?.();
    });
    try {
      for (let i = 0; i < 2_000; i++) {
        const packet = hostilePacket(random);
        const sentinelName = `sentinel${i}.local.test`;
        received.length = 0;
        socket.send(packet, served.endpoint.port, "127.0.0.1");
        socket.send(encodeQuery(sentinelName, { id: i }), served.endpoint.port, "127.0.0.1");
        const isSentinel = (bytes: Uint8Array) => {
          try {
            return decodeMessage(bytes).questions[0]?.name === sentinelName;
          } catch {
            return false;
          }
        };
        const deadline = Date.now() + 5_000;
        while (!received.some(isSentinel)) {
          assert.ok(Date.now() < deadline, `no answer to the sentinel after packet ${i}: ${hex(packet)}`);
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 100);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
        const answers = received.slice(0, received.findIndex(isSentinel));
        assert.ok(answers.length <= 1, `packet ${i} got ${answers.length} answers`);
        if (answers[0] !== undefined) {
          checkResponse(packet, answers[0], allowedSize(packet), `packet ${i} ${hex(packet)}`);
        }
      }
    } finally {
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    }
  });

  await t.step("TCP: 300 framed packets pipelined on one connection, then a sentinel", async () => {
    await using tcp = await DnsTcpClient.connect(served.endpoint);
    const packets = Array.from({ length: 300 }, () => hostilePacket(random));
    await tcp.send(...packets, encodeQuery("sentinel.local.test", { id: 0xffff }));
    const byId = new Map<number, Uint8Array[]>();
    for (const packet of packets) {
      const id = packet.length >= 2 ? (packet[0]! << 8) | packet[1]! : -1;
      byId.set(id, [...(byId.get(id) ?? []), packet]);
    }
    while (true) {
      const response = await tcp.receive();
      assert.ok(response !== null, "the connection closed before the sentinel's answer");
      const message = decodeMessage(response);
      if (message.questions[0]?.name === "sentinel.local.test") break;
      const candidates = byId.get(message.id) ?? [];
      assert.ok(candidates.length > 0, `an answer with ID ${message.id}, which no query had`);
      const query = candidates.shift()!;
      checkResponse(query, response, 65_535, `TCP ${hex(query)}`);
    }
  });

  await t.step("TCP: garbage streams and a length prefix promising more than comes", async () => {
    for (let i = 0; i < 2; i++) {
      const tcp = await DnsTcpClient.connect(served.endpoint);
      await tcp.sendRaw(Uint8Array.from({ length: 3000 }, () => Math.floor(random() * 256)));
      tcp.close();
    }
    const partial = await DnsTcpClient.connect(served.endpoint);
    await partial.sendRaw(new Uint8Array([0xff, 0xff, 1, 2, 3]));
    partial.close();
    const empty = await DnsTcpClient.connect(served.endpoint);
    await empty.sendRaw(new Uint8Array([0, 0, 0, 0]));
    empty.close();
  });

  await t.step(
    "afterwards: valid queries still answered over UDP and TCP, nothing logged as an error",
    async () => {
      const udp = decodeMessage(
        await udpExchange(served.endpoint, encodeQuery("after.local.test", { id: 1 })),
      );
      assert.deepEqual([udp.rcode, udp.answers.length], ["NOERROR", "after.local.test".length % 90]);
      await using tcp = await DnsTcpClient.connect(served.endpoint);
      await tcp.send(encodeQuery("after.local.test", { id: 2 }));
      assert.equal(decodeMessage((await tcp.receive())!).id, 2);
      assert.deepEqual(served.log.entries.filter((entry) => entry.level === "error"), []);
    },
  );

  await t.step("the answerer only saw lower-case, escaped names", () => {
    assert.ok(seen.length > 500, `only ${seen.length} questions reached the answerer`);
    const odd = seen.filter((name) => !/^(?:[!-~])*$/.test(name) || /[A-Z]/.test(name));
    assert.deepEqual(odd, []);
    assert.ok(seen.some((name) => /\\\d{3}/.test(name)), "binary labels arrive escaped");
  });
});
