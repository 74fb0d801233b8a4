/**
 * The server as clients meet it: dig and kdig over UDP and TCP, with a real dnsmasq upstream
 * started on loopback for the whole file (one process, reused by every step).
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  decodeMessage,
  DnsTcpClient,
  encodeQuery,
  queryDns,
  startDnsmasq,
  udpExchange,
} from "../../support/dns_tools.ts";
import { concat } from "../../support/conn_io.ts";
import { skipWithout } from "../../support/tools.ts";
import { startTestServer } from "./server_harness.ts";

/** 30 TXT strings of 100 bytes: about 3.4 KB, over any UDP limit. */
const BIG_TXT = Array.from({ length: 30 }, (_, i) => `${String(i).padStart(2, "0")}${"x".repeat(98)}`);

Deno.test({
  name: "DnsServer: dig and kdig over UDP and TCP, dnsmasq upstream",
  ignore: skipWithout("DNS client tests", ["dig", "kdig", "dnsmasq"]),
  async fn(t) {
    await using upstream = await startDnsmasq({
      hosts: [{ name: "up.test", addresses: ["192.0.2.1", "2001:db8::1"] }],
      txt: [{ name: "big.test", texts: BIG_TXT }],
    });
    await using served = await startTestServer({ upstreams: [upstream.endpoint] });
    const server = served.endpoint;

    await t.step("a local answer keeps the client's case; EDNS 1232 advertised; AA, RA, RD", async () => {
      const [reply] = await queryDns(server, [{ name: "WwW.Local.TEST" }]);
      assert.equal(reply?.status, "NOERROR");
      assert.deepEqual(reply?.answers, [{
        name: "WwW.Local.TEST.",
        ttl: 30,
        class: "IN",
        type: "A",
        data: "10.0.0.1",
      }]);
      assert.deepEqual(reply?.flags, ["qr", "aa", "rd", "ra"]);
      assert.equal(reply?.ednsUdpSize, 1232);
    });

    await t.step(
      "kdig and dig: a local name without AAAA is NOERROR with no data and an SOA to cache it by",
      async () => {
        for (const client of ["kdig", "dig"] as const) {
          const [reply] = await queryDns(server, [{ name: "www.local.test", type: "AAAA" }], { client });
          assert.deepEqual([reply?.status, reply?.answers.length], ["NOERROR", 0], client);
          assert.deepEqual(reply?.authorities.map((record) => [record.name, record.type]), [[
            "www.local.test.",
            "SOA",
          ]]);
        }
      },
    );

    await t.step("forwarded answers over UDP and TCP, both clients", async () => {
      for (const [client, tcp] of [["dig", false], ["dig", true], ["kdig", false], ["kdig", true]] as const) {
        const [reply] = await queryDns(server, [{ name: "UP.test", type: "AAAA" }], { client, tcp });
        assert.equal(reply?.status, "NOERROR", `${client} tcp=${tcp}`);
        assert.deepEqual(reply?.answers.map((a) => [a.name.toLowerCase(), a.data]), [[
          "up.test.",
          "2001:db8::1",
        ]]);
      }
      // The question section comes back in the client's case, whatever the upstream wrote.
      const raw = decodeMessage(await udpExchange(server, encodeQuery("uP.TeSt", { id: 77 })));
      assert.deepEqual([raw.id, raw.questions[0]?.name, raw.answers[0]?.data], [77, "uP.TeSt", "192.0.2.1"]);
    });

    await t.step("kdig +tcp +keepopen: several questions on one connection", async () => {
      const replies = await queryDns(
        server,
        [{ name: "a.local.test" }, { name: "up.test" }, { name: "b.local.test" }, {
          name: "up.test",
          type: "AAAA",
        }],
        { client: "kdig", tcp: true, keepOpen: true },
      );
      assert.deepEqual(replies.map((r) => r.answers[0]?.data), [
        "10.0.0.1",
        "192.0.2.1",
        "10.0.0.1",
        "2001:db8::1",
      ]);
    });

    await t.step("a big forwarded answer: truncated over UDP, whole over TCP", async () => {
      const [udp] = await queryDns(server, [{ name: "big.test", type: "TXT" }], { ignoreTruncation: true });
      assert.ok(udp?.flags.includes("tc"), `flags ${udp?.flags}`);
      assert.ok((udp?.size ?? Infinity) <= 1232);
      const [retried] = await queryDns(server, [{ name: "big.test", type: "TXT" }]);
      assert.equal(retried?.answers.length, 30, "dig retried over TCP by itself");
      const [tcp] = await queryDns(server, [{ name: "big.test", type: "TXT" }], {
        client: "kdig",
        tcp: true,
      });
      assert.equal(tcp?.answers.length, 30);
      assert.ok((tcp?.size ?? 0) > 3000);
    });

    await t.step("+noedns and +bufsize: never more than the client allows", async () => {
      const [plain] = await queryDns(server, [{ name: "big.test", type: "TXT" }], {
        noEdns: true,
        ignoreTruncation: true,
      });
      assert.ok((plain?.size ?? Infinity) <= 512 && plain?.flags.includes("tc"));
      assert.equal(plain?.ednsUdpSize, undefined, "no OPT in answer to a query without one");
      const [small] = await queryDns(server, [{ name: "big.test", type: "TXT" }], {
        bufsize: 600,
        ignoreTruncation: true,
      });
      assert.ok((small?.size ?? Infinity) <= 600 && small?.flags.includes("tc"));
      assert.equal(small?.answers.length, 0, "a reply too big for the client loses its records");
      const [local] = await queryDns(server, [{ name: "many.local.test" }], {
        bufsize: 4096,
        ignoreTruncation: true,
      });
      assert.ok((local?.size ?? Infinity) <= 1232 && local?.flags.includes("tc"));
      const [whole] = await queryDns(server, [{ name: "many.local.test" }], { client: "kdig", tcp: true });
      assert.equal(whole?.answers.length, 100);
    });

    await t.step("REFUSED for class CH, NOTIMP for another opcode, FORMERR for two questions", async () => {
      const [chaos] = await queryDns(server, [{ name: "version.bind", type: "TXT" }], { class: "CH" });
      assert.equal(chaos?.status, "REFUSED");
      const status = encodeQuery("a.local.test", { id: 31 });
      status[2] = 0x11; // opcode 2 (STATUS), RD
      const notimp = decodeMessage(await udpExchange(server, status));
      assert.deepEqual([notimp.id, notimp.rcode, notimp.opcode], [31, "NOTIMP", "STATUS"]);
      const one = encodeQuery("a.local.test", { id: 32 });
      const two = concat(one, one.subarray(12));
      two[5] = 2;
      await using tcp = await DnsTcpClient.connect(server);
      await tcp.send(two);
      const formerr = decodeMessage((await tcp.receive())!);
      assert.deepEqual([formerr.id, formerr.rcode, formerr.questions.length], [32, "FORMERR", 0]);
    });

    await t.step(
      "TCP pipelining: queries in one write are all answered, a local one before a forwarded one",
      async () => {
        await using tcp = await DnsTcpClient.connect(server);
        await tcp.send(
          encodeQuery("up.test", { id: 1 }),
          encodeQuery("x.local.test", { id: 2 }),
          encodeQuery("up.test", { id: 3, type: "AAAA" }),
          encodeQuery("y.local.test", { id: 4 }),
        );
        const ids: number[] = [];
        for (let i = 0; i < 4; i++) ids.push(decodeMessage((await tcp.receive())!).id);
        assert.deepEqual(ids.slice(0, 2), [2, 4], `answered in the order ${ids}`);
        assert.deepEqual([...ids].sort(), [1, 2, 3, 4]);
      },
    );

    await t.step("the metrics and the observer saw it all, without names in the metrics", () => {
      const udpLocal = served.sample('ouroboros_dns_queries_total{transport="udp",outcome="local"}') ?? 0;
      assert.ok(udpLocal >= 1);
      assert.ok(
        (served.sample('ouroboros_dns_queries_total{transport="tcp",outcome="forwarded"}') ?? 0) >= 4,
      );
      assert.ok((served.sample('ouroboros_dns_truncated_responses_total{transport="udp"}') ?? 0) >= 3);
      assert.equal(served.sample('ouroboros_dns_queries_total{transport="udp",outcome="notimp"}'), 1);
      assert.equal(served.sample('ouroboros_dns_queries_total{transport="udp",outcome="refused"}'), 1);
      assert.equal(served.sample('ouroboros_dns_queries_total{transport="tcp",outcome="formerr"}'), 1);
      assert.doesNotMatch(served.metrics.registry.render(), /local\.test|127\.0\.0\.1/);
      const event = served.events.find((e) => e.name === "www.local.test" && e.type === "A");
      assert.deepEqual(
        [event?.transport, event?.outcome, event?.source, event?.client],
        ["udp", "local", "hairpin", "127.0.0.1"],
      );
      assert.deepEqual(served.log.entries.filter((e) => e.level !== "debug"), []);
    });
  },
});
