import assert from "node:assert/strict";
import { type ClientHelloSni, readClientHelloSni } from "../../../lib/proxy/routing/client_hello_sni.ts";
import { prng } from "../../support/random.ts";
import { skipWithout } from "../../support/tools.ts";
import {
  clientHello,
  extension,
  handshake,
  helloBody,
  POST_QUANTUM_KEY_SHARE,
  records,
  serverName,
  vector16,
} from "../../support/client_hello.ts";

const TYPICAL = [extension(10, vector16([0, 0x1d])), serverName([0, "app.example.com"]), extension(16, [])];

Deno.test("readClientHelloSni reads the name, or says why there is none", async (t) => {
  const hello = (extensions: readonly (readonly number[])[] | undefined) => records(clientHello(extensions));
  const cases: readonly { name: string; bytes: Uint8Array; expected: ClientHelloSni }[] = [
    { name: "a typical hello", bytes: hello(TYPICAL), expected: { kind: "sni", name: "app.example.com" } },
    {
      name: "upper case and a trailing dot are normalised",
      bytes: hello([serverName([0, "App.Example.COM."])]),
      expected: { kind: "sni", name: "app.example.com" },
    },
    {
      name: "a single label is well-formed, but no route can match it",
      bytes: hello([serverName([0, "localhost"])]),
      expected: unroutable(
        'the server name "localhost" has a single label; only names with a dot can be public hostnames',
      ),
    },
    { name: "no extensions block", bytes: hello(undefined), expected: { kind: "no-sni" } },
    { name: "an empty extensions block", bytes: hello([]), expected: { kind: "no-sni" } },
    {
      name: "extensions without server_name",
      bytes: hello([extension(10, [0, 2, 0, 0x1d])]),
      expected: NO_SNI,
    },
    {
      name: "the first host_name entry wins; other name types are skipped",
      bytes: hello([serverName([7, "\u0000\u00ff"], [0, "first.example.com"], [0, "second.example.com"])]),
      expected: sni("first.example.com"),
    },
    {
      name: "only a foreign name type",
      bytes: hello([serverName([1, "app.example.com"])]),
      expected: NO_SNI,
    },
    {
      name: "two server_name extensions",
      bytes: hello([serverName([0, "a.example.com"]), serverName([0, "b.example.com"])]),
      expected: invalid("two server_name extensions (RFC 8446 §4.2)"),
    },
    {
      name: "an empty name (RFC 6066 §3: at least one byte)",
      bytes: hello([serverName([0, ""])]),
      expected: invalid("an empty host_name (RFC 6066 §3)"),
    },
    {
      name: "a name of spaces",
      bytes: hello([serverName([0, "  "])]),
      expected: unroutable('the server name "  " is only spaces and tabs'),
    },
    {
      name: "spaces around a name are padding, as checkHostname trims them",
      bytes: hello([serverName([0, " app.example.com "])]),
      expected: sni("app.example.com"),
    },
    {
      name: "an IP literal (RFC 6066 §3 forbids it)",
      bytes: hello([serverName([0, "10.0.0.1"])]),
      expected: unroutable('the server name "10.0.0.1" is an IPv4 address, not a hostname'),
    },
    {
      name: "an IPv6 literal",
      bytes: hello([serverName([0, "fd00::1"])]),
      expected: unroutable('the server name "fd00::1" is an IPv6 address, not a hostname'),
    },
    {
      name: "a wildcard",
      bytes: hello([serverName([0, "*.example.com"])]),
      expected: unroutable('the server name "*.example.com" is a wildcard; a client names one host'),
    },
    {
      name: "a control character, escaped in the reason",
      bytes: hello([serverName([0, "a\r\nb.example.com"])]),
      expected: unroutable(
        'the server name "a\\r\\nb.example.com" contains the control character U+000D',
      ),
    },
    {
      name: "a U-label in UTF-8, read byte by byte and escaped in the reason",
      bytes: hello([serverName([0, "b\u00fccher.example"])]),
      expected: unroutable(
        'the server name "b\\u00c3\\u00bccher.example" contains the non-ASCII character U+00C3; ' +
          "write internationalised names as xn-- A-labels",
      ),
    },
    {
      name: "a long name is quoted in part",
      bytes: hello([serverName([0, `${"a_".repeat(30)}.com`])]),
      expected: unroutable(
        `the server name "${"a_".repeat(20)}" (cut, 24 more characters) ` +
          "contains '_'; a hostname has only letters, digits, '-' and '.'",
      ),
    },
    {
      name: "an empty server_name list",
      bytes: hello([extension(0, [0, 0])]),
      expected: invalid("a bad server_name list"),
    },
    {
      name: "a server_name entry past its list",
      bytes: hello([extension(0, vector16([0, 0, 9, 97]))]),
      expected: invalid("a server_name entry runs past its list"),
    },
    {
      name: "an extension past the extensions",
      bytes: records(handshake([...helloBody(undefined), ...vector16([0, 4, 0, 0, 0, 9])])),
      expected: invalid("an extension runs past the extensions"),
    },
  ];
  for (const { name, bytes, expected } of cases) {
    await t.step(name, () => assert.deepEqual(readClientHelloSni(bytes), expected));
  }
});

const NO_SNI: ClientHelloSni = { kind: "no-sni" };

function sni(name: string): ClientHelloSni {
  return { kind: "sni", name };
}

function invalid(reason: string): ClientHelloSni {
  return { kind: "invalid", reason };
}

function unroutable(reason: string): ClientHelloSni {
  return { kind: "unroutable", reason };
}

Deno.test("readClientHelloSni: what is not TLS, and broken records and hellos", async (t) => {
  const good = records(clientHello(TYPICAL));
  const edited = (edit: (bytes: Uint8Array) => void) => {
    const bytes = good.slice();
    edit(bytes);
    return bytes;
  };
  const ssl2Hello = new Uint8Array([0x80, 0x2e, 0x01, 0x03, 0x01, 0x00, 0x15, 0x00, 0x00, 0x00, 0x10]);
  const cases: readonly [string, Uint8Array, ClientHelloSni][] = [
    ["plain HTTP", new TextEncoder().encode("GET / HTTP/1.1\r\n"), { kind: "not-tls" }],
    ["an SSLv2-style hello", ssl2Hello, { kind: "not-tls" }],
    ["an alert record first", edited((b) => b[0] = 21), { kind: "not-tls" }],
    ["record version 2.x", edited((b) => b[1] = 2), { kind: "not-tls" }],
    ["one byte that could be TLS", new Uint8Array([22]), { kind: "need-more", atLeast: 9 }],
    ["no bytes yet", new Uint8Array(), { kind: "need-more", atLeast: 9 }],
    [
      "an empty record",
      new Uint8Array([22, 3, 1, 0, 0]),
      invalid("an empty handshake record (RFC 8446 §5.1)"),
    ],
    [
      "a record over 16 KiB",
      new Uint8Array([22, 3, 1, 0x40, 0x01]),
      invalid("a record of 16385 bytes; at most 16384 (RFC 8446 §5.1)"),
    ],
    [
      "a ServerHello",
      edited((b) => b[5] = 2),
      invalid("the first handshake message is of type 2, not ClientHello"),
    ],
    [
      "an alert record inside the hello",
      new Uint8Array([...records(clientHello(TYPICAL), [10]).subarray(0, 15), 21, 3, 3, 0, 2, 2, 40]),
      invalid("a record of type 21 came before the ClientHello was complete"),
    ],
    [
      "a hello cut inside its random",
      records(new Uint8Array([1, 0, 0, 10, 3, 3, 1, 2, 3, 4, 5, 6, 7, 8])),
      invalid("the ClientHello ends inside its version and random"),
    ],
    ["a session id over 32 bytes", edited((b) => b[5 + 4 + 34] = 33), invalid("a bad legacy_session_id")],
    ["an odd cipher_suites length", edited((b) => b[5 + 4 + 35 + 32 + 1] = 5), invalid("bad cipher_suites")],
    [
      "trailing bytes after the extensions",
      records(handshake([...helloBody(TYPICAL), 0])),
      invalid("the extensions do not end with the ClientHello"),
    ],
  ];
  for (const [name, bytes, expected] of cases) {
    await t.step(name, () => assert.deepEqual(readClientHelloSni(bytes), expected));
  }
});

Deno.test("a hello split over records and TCP segments: need-more until the last byte, then the name", () => {
  const message = clientHello([...TYPICAL, POST_QUANTUM_KEY_SHARE, extension(21, new Array(300).fill(0))]);
  assert.ok(message.length > 1500, `the hello is ${message.length} bytes, not more than a segment`);
  for (const sizes of [[16384], [1], [3, 1000], [4], [1400, 200], [517]]) {
    const bytes = records(message, sizes);
    assert.deepEqual(readClientHelloSni(bytes), sni("app.example.com"), `records of ${sizes}`);
    for (let length = 0; length < bytes.length; length++) {
      const answer = readClientHelloSni(bytes.subarray(0, length));
      assert.ok(
        answer.kind === "need-more",
        `records of ${sizes}, ${length} bytes: ${JSON.stringify(answer)}`,
      );
      assert.ok(
        answer.atLeast > length && answer.atLeast <= bytes.length,
        `atLeast ${answer.atLeast} at ${length}`,
      );
    }
  }
});

Deno.test("need-more says when a hello can never fit the caller's cap", () => {
  const bytes = new Uint8Array([22, 3, 1, 0x40, 0x00, 1, 0x01, 0x00, 0x00]);
  assert.deepEqual(readClientHelloSni(bytes), { kind: "need-more", atLeast: 5 + 16384 });
  const answer = readClientHelloSni(new Uint8Array([22, 3, 1, 0, 4, 1, 0x01, 0x00, 0x00]));
  assert.deepEqual(answer, { kind: "need-more", atLeast: 9 + 5 + 0x10000 });
});

/** The first TLS record a real client sends, read by a plain TCP listener until the record is whole. */
async function captureFirstRecord(
  startClient: (port: number) => { finished: Promise<unknown> },
): Promise<Uint8Array> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const client = startClient(listener.addr.port);
  const conn = await listener.accept();
  listener.close();
  let bytes = new Uint8Array(0);
  const buffer = new Uint8Array(65536);
  try {
    while (bytes.length < 5 || bytes.length < 5 + ((bytes[3]! << 8) | bytes[4]!)) {
      const read = await conn.read(buffer);
      if (read === null) throw new Error(`the client closed after ${bytes.length} bytes`);
      bytes = new Uint8Array([...bytes, ...buffer.subarray(0, read)]);
    }
  } finally {
    conn.close();
    await client.finished;
  }
  return bytes;
}

function denoClient(serverName: string): (port: number) => { finished: Promise<unknown> } {
  return (port) => ({
    finished: Deno.connect({ hostname: "127.0.0.1", port })
      .then((tcp) => Deno.startTls(tcp, { hostname: serverName, alpnProtocols: ["h2", "http/1.1"] }))
      .then((tls) => tls.handshake().catch(() => undefined).finally(() => tls.close())),
  });
}

function opensslClient(serverName: string): (port: number) => { finished: Promise<unknown> } {
  return (port) => {
    const args = [
      "s_client",
      "-connect",
      `127.0.0.1:${port}`,
      "-servername",
      serverName,
      "-alpn",
      "h2,http/1.1",
    ];
    const child = new Deno.Command("openssl", { args, stdin: "null", stdout: "null", stderr: "null" })
      .spawn();
    return { finished: child.status };
  };
}

/** The real hellos captured below, for the fuzz test. */
const captured: Uint8Array[] = [];

Deno.test("a real hello from Deno's TLS client (rustls) names its server", async () => {
  const bytes = await captureFirstRecord(denoClient("x.example.com"));
  assert.deepEqual(readClientHelloSni(bytes), sni("x.example.com"));
  assert.deepEqual(readClientHelloSni(records(bytes.subarray(5), [7, 100])), sni("x.example.com"));
  captured.push(bytes);
});

Deno.test({
  name: "a real hello from openssl s_client names its server",
  ignore: skipWithout("the openssl s_client hello", ["openssl"]),
  fn: async () => {
    const bytes = await captureFirstRecord(opensslClient("Y.Example.com"));
    assert.deepEqual(readClientHelloSni(bytes), sni("y.example.com"));
    captured.push(bytes);
  },
});

const KINDS = new Set(["sni", "need-more", "no-sni", "not-tls", "unroutable", "invalid"]);

/** Checks the contract on any input: never throws, a known kind, and need-more asks for more. */
function checkAnswer(bytes: Uint8Array, what: string): ClientHelloSni {
  const answer = readClientHelloSni(bytes);
  assert.ok(KINDS.has(answer.kind), `${what}: ${JSON.stringify(answer)}`);
  if (answer.kind === "need-more") {
    assert.ok(answer.atLeast > bytes.length, `${what}: ${JSON.stringify(answer)}`);
  }
  if (answer.kind === "sni") assert.match(answer.name, /^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/, what);
  if (answer.kind === "unroutable") assert.match(answer.reason, /^[\x20-\x7e]+$/, what);
  return answer;
}

Deno.test("fuzz: random bytes, and truncated, refragmented and mutated hellos never throw", () => {
  const originals = [
    records(clientHello(TYPICAL)),
    records(clientHello([...TYPICAL, POST_QUANTUM_KEY_SHARE])),
    ...captured,
  ];
  const random = prng(30);
  const byte = () => Math.floor(random() * 256);
  for (let round = 0; round < 3000; round++) {
    checkAnswer(new Uint8Array(Array.from({ length: Math.floor(random() * 64) }, byte)), `random ${round}`);
    const tls = new Uint8Array([22, 3, byte(), byte() & 0x41, byte(), ...Array.from({ length: 40 }, byte)]);
    checkAnswer(tls, `random record ${round}`);
  }
  for (const [index, original] of originals.entries()) {
    const message = original.subarray(5);
    for (let round = 0; round < 1500; round++) {
      const sizes = Array.from({ length: 3 }, () => 1 + Math.floor(random() * 400));
      const refragmented = records(message, sizes);
      assert.deepEqual(
        readClientHelloSni(refragmented),
        readClientHelloSni(original),
        `hello ${index}, ${sizes}`,
      );
      checkAnswer(refragmented.subarray(0, Math.floor(random() * refragmented.length)), `hello ${index} cut`);
      const mutated = refragmented.slice();
      for (let flips = 1 + Math.floor(random() * 4); flips > 0; flips--) {
        mutated[Math.floor(random() * mutated.length)] = random() < 0.5 ? byte() : 0xff;
      }
      checkAnswer(mutated, `hello ${index} mutated, round ${round}`);
      const at = Math.floor(random() * mutated.length);
      checkAnswer(
        new Uint8Array([...mutated.subarray(0, at), byte(), ...mutated.subarray(at)]),
        `hello ${index} grown`,
      );
    }
  }
});
