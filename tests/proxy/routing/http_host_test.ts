import assert from "node:assert/strict";
import { readRequestHost, type RequestHost } from "../../../lib/proxy/routing/http_host.ts";
import { prng } from "../../support/random.ts";

const encoder = new TextEncoder();

function host(name: string): RequestHost {
  return { kind: "host", name };
}

function invalid(reason: string): RequestHost {
  return { kind: "invalid", reason };
}

function unroutable(reason: string): RequestHost {
  return { kind: "unroutable", reason };
}

const NO_HOST: RequestHost = { kind: "no-host" };
const NEED_MORE: RequestHost = { kind: "need-more" };

Deno.test("readRequestHost takes the Host of a request head", async (t) => {
  const cases: readonly [string, string, RequestHost][] = [
    ["a plain request", "GET / HTTP/1.1\r\nHost: app.example.com\r\n\r\n", host("app.example.com")],
    [
      "any field name case, a port, OWS, upper case, a trailing dot",
      "GET /x?y HTTP/1.1\r\nUser-Agent: curl\r\nhOsT: \t App.Example.COM.:8080 \r\nAccept: */*\r\n\r\n",
      host("app.example.com"),
    ],
    [
      "a body after the head is not read",
      "POST / HTTP/1.1\r\nHost: a.example.com\r\n\r\n\u0000\u00ff",
      host("a.example.com"),
    ],
    ["bare LF line ends", "GET / HTTP/1.1\nHost: a.example.com\n\n", host("a.example.com")],
    [
      "empty lines before the request line",
      "\r\n\r\nGET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n",
      host("a.example.com"),
    ],
    ["an HTTP/1.0 request without Host", "GET / HTTP/1.0\r\n\r\n", NO_HOST],
    ["an HTTP/1.1 request without Host", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", NO_HOST],
    ["an empty Host", "GET / HTTP/1.1\r\nHost:\r\n\r\n", NO_HOST],
    ["an IPv4 literal", "GET / HTTP/1.1\r\nHost: 10.0.0.5:80\r\n\r\n", NO_HOST],
    ["an IPv6 literal", "GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n", NO_HOST],
    ["an IPv6 literal without a port", "GET / HTTP/1.1\r\nHost: [fd00::5]\r\n\r\n", NO_HOST],
    [
      "an absolute-form target wins over Host (RFC 9112 §3.2.2)",
      "GET http://Target.example.com:81/path HTTP/1.1\r\nHost: other.example.com\r\n\r\n",
      host("target.example.com"),
    ],
    [
      "an absolute-form target without Host",
      "GET https://t.example.com HTTP/1.1\r\n\r\n",
      host("t.example.com"),
    ],
    ["an absolute-form IP target", "GET http://10.0.0.5/ HTTP/1.1\r\nHost: a.example.com\r\n\r\n", NO_HOST],
    ["an asterisk-form target", "OPTIONS * HTTP/1.1\r\nHost: a.example.com\r\n\r\n", host("a.example.com")],
    [
      "a single-label host names no route",
      "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n",
      unroutable(
        'the host "localhost" has a single label; only names with a dot can be public hostnames',
      ),
    ],
    ["a port without a host", "GET / HTTP/1.1\r\nHost: :8080\r\n\r\n", NO_HOST],
    [
      "a name ending in a numeric label",
      "GET / HTTP/1.1\r\nHost: app.0x7f:80\r\n\r\n",
      unroutable(
        `the host "app.0x7f" ends in the numeric label '0x7f', which resolvers read as an IPv4 address`,
      ),
    ],
    [
      "a wildcard",
      "GET / HTTP/1.1\r\nHost: *.example.com\r\n\r\n",
      unroutable('the host "*.example.com" is a wildcard; a client names one host'),
    ],
    [
      "two Host lines (RFC 9112 §3.2)",
      "GET / HTTP/1.1\r\nHost: a.example.com\r\nHOST: a.example.com\r\n\r\n",
      invalid("two Host field lines (RFC 9112 §3.2)"),
    ],
    [
      "two Host lines with an absolute-form target",
      "GET http://a.example.com/ HTTP/1.1\r\nHost: a.example.com\r\nHost: b.example.com\r\n\r\n",
      invalid("two Host field lines (RFC 9112 §3.2)"),
    ],
    [
      "an obs-fold line",
      "GET / HTTP/1.1\r\nHost: a.example.com\r\n b.example.com\r\n\r\n",
      invalid("an obs-fold line (RFC 9112 §5.2)"),
    ],
    [
      "whitespace before the colon",
      "GET / HTTP/1.1\r\nHost : a.example.com\r\n\r\n",
      invalid("a field line without a name and colon (RFC 9112 §5.1)"),
    ],
    [
      "a line without a colon",
      "GET / HTTP/1.1\r\nHost a.example.com\r\n\r\n",
      invalid("a field line without a name and colon (RFC 9112 §5.1)"),
    ],
    ["a bare CR", "GET / HTTP/1.1\r\nHost: a\rb.example.com\r\n\r\n", invalid("a CR not followed by LF")],
    [
      "two names in one Host",
      "GET / HTTP/1.1\r\nHost: a.example.com, b.example.com\r\n\r\n",
      unroutable(`the host "a.example.com, b.example.com" contains whitespace`),
    ],
    [
      "two names in one Host without a space",
      "GET / HTTP/1.1\r\nHost: a.example.com,b.example.com\r\n\r\n",
      unroutable(
        `the host "a.example.com,b.example.com" contains ',', which has a meaning in DNS configuration`,
      ),
    ],
    [
      "an underscore",
      "GET / HTTP/1.1\r\nHost: a_b.example.com\r\n\r\n",
      unroutable(`the host "a_b.example.com" contains '_'; a hostname has only letters, digits, '-' and '.'`),
    ],
    [
      "userinfo in an absolute-form target",
      "GET http://user@a.example.com/ HTTP/1.1\r\n\r\n",
      unroutable(
        `the host "user@a.example.com" contains '@', which has a meaning in DNS configuration`,
      ),
    ],
    [
      "a U-label in UTF-8, read byte by byte and escaped in the reason",
      "GET / HTTP/1.1\r\nHost: b\u00fccher.example\r\n\r\n",
      unroutable(
        'the host "b\\u00c3\\u00bccher.example" contains the non-ASCII character U+00C3; ' +
          "write internationalised names as xn-- A-labels",
      ),
    ],
    ["a bad port", "GET / HTTP/1.1\r\nHost: a.example.com:http\r\n\r\n", invalid("a host with a bad port")],
    [
      "a malformed IP literal",
      "GET / HTTP/1.1\r\nHost: [a.example.com]\r\n\r\n",
      invalid("a malformed IP literal"),
    ],
    [
      "a long name is quoted in part",
      `GET / HTTP/1.1\r\nHost: ${"a".repeat(300)}\r\n\r\n`,
      unroutable(
        `the host "${
          "a".repeat(40)
        }" (cut, 260 more characters) is 300 characters long; a DNS name has at most 253`,
      ),
    ],
    [
      "16 KB of spaces inside a Host value",
      `GET / HTTP/1.1\r\nHost: a${" ".repeat(16000)}b\r\n\r\n`,
      unroutable(`the host "a${" ".repeat(39)}" (cut, 15962 more characters) contains whitespace`),
    ],
    ["HTTP/2's preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", invalid("not an HTTP/1.x request line")],
    ["HTTP/0.9", "GET /\r\n\r\n", invalid("not an HTTP/1.x request line")],
    ["two spaces in the request line", "GET  / HTTP/1.1\r\n\r\n", invalid("not an HTTP/1.x request line")],
  ];
  for (const [name, head, expected] of cases) {
    await t.step(name, () => assert.deepEqual(readRequestHost(encoder.encode(head)), expected));
  }
});

Deno.test("readRequestHost waits for the end of the head, but not for what can never be HTTP/1.x", async (t) => {
  const cases: readonly [string, Uint8Array, RequestHost][] = [
    ["nothing yet", new Uint8Array(), NEED_MORE],
    ["only empty lines", encoder.encode("\r\n\r\n\r\n"), NEED_MORE],
    ["a method", encoder.encode("GET"), NEED_MORE],
    ["a request line", encoder.encode("GET / HTTP/1.1\r\n"), NEED_MORE],
    ["Host, but not the end", encoder.encode("GET / HTTP/1.1\r\nHost: a.example.com\r\n"), NEED_MORE],
    ["a TLS hello", new Uint8Array([22, 3, 1, 0, 200, 1]), invalid("not an HTTP/1.x request line")],
    [
      "a bad request line",
      encoder.encode("GET / SPDY/3\r\nHost: a.example.com"),
      invalid("not an HTTP/1.x request line"),
    ],
    ["a method with a slash", encoder.encode("GE/T"), invalid("not an HTTP/1.x request line")],
  ];
  for (const [name, bytes, expected] of cases) {
    await t.step(name, () => assert.deepEqual(readRequestHost(bytes), expected));
  }
});

Deno.test("every prefix of a head is need-more, the whole head its host", () => {
  const head = encoder.encode(
    "GET /index.html HTTP/1.1\r\nUser-Agent: curl/8\r\nHost: shop.example.com\r\nAccept: */*\r\n\r\n",
  );
  for (let length = 0; length < head.length; length++) {
    assert.deepEqual(readRequestHost(head.subarray(0, length)), NEED_MORE, `${length} bytes`);
  }
  assert.deepEqual(readRequestHost(head), host("shop.example.com"));
});

const KINDS = new Set(["host", "need-more", "no-host", "unroutable", "invalid"]);

Deno.test("fuzz: random and mutated heads never throw, a host is always a clean name, a reason printable", () => {
  const heads = [
    "GET / HTTP/1.1\r\nHost: app.example.com:8443\r\nAccept: */*\r\n\r\n",
    "GET http://a.example.com/ HTTP/1.1\r\nHost: [::1]:80\r\n\r\n",
    "POST /x HTTP/1.0\nContent-Length: 0\nhost: b.example.com.\n\n",
  ].map((head) => encoder.encode(head));
  const pieces = [..."\r\n :[]@/.\t", "Host: ", "\r\n\r\n", "http://", "\u0000", "\u00ff", "A", "_", "1"];
  const random = prng(30);
  for (let round = 0; round < 20000; round++) {
    const original = heads[round % heads.length]!;
    let text = new TextDecoder("latin1").decode(original);
    for (let edits = 1 + Math.floor(random() * 4); edits > 0; edits--) {
      const at = Math.floor(random() * text.length);
      const piece = random() < 0.2 ? "" : pieces[Math.floor(random() * pieces.length)]!;
      text = text.slice(0, at) + piece + text.slice(at + (random() < 0.5 ? 1 : 0));
    }
    const bytes = round % 5 === 0
      ? new Uint8Array(Array.from({ length: Math.floor(random() * 80) }, () => Math.floor(random() * 256)))
      : Uint8Array.from(text, (character) => character.charCodeAt(0) & 0xff);
    const answer = readRequestHost(bytes);
    assert.ok(KINDS.has(answer.kind), JSON.stringify(answer));
    if (answer.kind === "host") {
      assert.match(answer.name, /^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/, `round ${round}: ${JSON.stringify(text)}`);
    }
    if (answer.kind === "unroutable") {
      assert.match(answer.reason, /^[\x20-\x7e]+$/, `round ${round}: ${JSON.stringify(text)}`);
    }
  }
});
