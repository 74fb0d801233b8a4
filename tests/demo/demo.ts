/**
 * `deno task demo`: the hairpin problem and its fix, on one machine, in a few seconds.
 *
 * 1. An ingress-controller stand-in listens on 127.0.0.1 and, like ingress-nginx with
 *    `use-proxy-protocol: true`, rejects any connection that does not start with a PROXY header.
 * 2. A "pod" calls it directly (the hairpin path that skips the load balancer): rejected.
 * 3. `ouroboros proxy` starts in front of it, as a child process with the `proxy` permission set.
 * 4. The same call through the proxy succeeds, and the stand-in reports the caller's real address.
 * 5. The health listener's /readyz and /metrics, then SIGTERM and the graceful drain.
 *
 * Only Deno is needed: no nginx, HAProxy or Kubernetes.
 *
 * @module
 */

import { startProxy } from "../support/ouroboros_process.ts";
import { parseProxyHeader } from "../support/proxy_backend.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function say(text = ""): void {
  // deno-lint-ignore no-console
  console.log(text);
}

/** Reads until EOF (or until 64 KiB, which a demo response never reaches). */
async function readAll(conn: Deno.Conn): Promise<string> {
  const chunks: Uint8Array[] = [];
  const buffer = new Uint8Array(16 * 1024);
  let total = 0;
  while (total < 64 * 1024) {
    const n = await conn.read(buffer).catch(() => null);
    if (n === null) break;
    chunks.push(buffer.slice(0, n));
    total += n;
  }
  return chunks.map((chunk) => decoder.decode(chunk)).join("");
}

async function writeAll(conn: Deno.Conn, text: string): Promise<void> {
  const bytes = encoder.encode(text);
  let offset = 0;
  while (offset < bytes.length) offset += await conn.write(bytes.subarray(offset));
}

function respond(status: string, body: string): string {
  return `HTTP/1.1 ${status}\r\ncontent-type: text/plain\r\ncontent-length: ${
    encoder.encode(body).length
  }\r\n` +
    `connection: close\r\n\r\n${body}`;
}

/** The ingress-controller stand-in: one HTTP answer per connection, PROXY header required. */
function startIngressStandIn(): { port: number; stop(): Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Promise<void>>();
  const serve = async (conn: Deno.TcpConn) => {
    try {
      let received = new Uint8Array(0);
      const chunk = new Uint8Array(4096);
      while (true) {
        const parsed = parseProxyHeader(received);
        if (parsed.kind === "complete") {
          const source = parsed.header.source;
          const who = source ? `${source.hostname}:${source.port}` : "unknown";
          await writeAll(
            conn,
            respond("200 OK", `hello ${who}: the PROXY v${parsed.header.version} header named you\n`),
          );
          return;
        }
        if (parsed.kind === "invalid") {
          await writeAll(
            conn,
            respond("400 Bad Request", "rejected: the connection did not start with a PROXY header\n"),
          );
          return;
        }
        const n = await conn.read(chunk);
        if (n === null) return;
        const next = new Uint8Array(received.length + n);
        next.set(received);
        next.set(chunk.subarray(0, n), received.length);
        received = next;
      }
    } catch {
      // The demo client went away; nothing to report.
    } finally {
      try {
        conn.close();
      } catch { /* closed */ }
    }
  };
  const loop = (async () => {
    for (;;) {
      const conn = await listener.accept().catch(() => undefined);
      if (conn === undefined) return;
      const done = serve(conn);
      open.add(done);
      done.finally(() => open.delete(done));
    }
  })();
  return {
    port: listener.addr.port,
    async stop() {
      listener.close();
      await loop;
      await Promise.all([...open]);
    },
  };
}

/** Sends one GET and returns the status line, the body and the client's own address. */
async function call(port: number): Promise<{ status: string; body: string; me: string }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const me = `${conn.localAddr.hostname}:${conn.localAddr.port}`;
  await writeAll(conn, "GET / HTTP/1.1\r\nhost: shop.example.com\r\nconnection: close\r\n\r\n");
  const response = await readAll(conn);
  conn.close();
  const [head = "", body = ""] = response.split("\r\n\r\n");
  return { status: head.split("\r\n")[0] ?? "", body: body.trim(), me };
}

const ingress = startIngressStandIn();
say("ouroboros proxy demo");
say("====================");
say();
say(`1. An ingress-controller stand-in listens on 127.0.0.1:${ingress.port} and, like ingress-nginx with`);
say("   use-proxy-protocol: true, accepts only connections that start with a PROXY header.");
say();
const direct = await call(ingress.port);
say("2. A pod calls a public hostname of its own cluster. kube-proxy short-circuits the load balancer,");
say("   so the connection arrives without the header:");
say(`   ${direct.me} -> ingress: ${direct.status}: ${direct.body}`);
say();

say("3. Start ouroboros proxy in front of it (deno run -P=proxy main.ts proxy --target-host=127.0.0.1 …):");
const proxy = await startProxy([
  "--target-host=127.0.0.1",
  `--target-http-port=${ingress.port}`,
  "--drain-delay=1s",
]);
say(
  `   listening: http ${proxy.starting.http}, https ${proxy.starting.https}, health ${proxy.starting.health}`,
);
say();

const port = proxy.http?.port ?? 0;
const through = await call(port);
say("4. The same call through the proxy (in a cluster, DNS sends the hostname to the proxy's Service):");
say(`   ${through.me} -> proxy -> ingress: ${through.status}: ${through.body}`);
const match = through.body.includes(through.me);
say(`   The address the ingress saw ${match ? "is" : "is NOT"} the caller's own address (${through.me}).`);
say();

const ready = await proxy.healthGet("/readyz");
say(`5. GET /readyz -> ${ready.status} ${ready.body.trim()}`);
const metrics = await proxy.healthGet("/metrics");
const interesting = metrics.body.split("\n").filter((line) =>
  /^ouroboros_proxy_(connections_accepted_total|bytes_relayed_total)\{listener="http"/.test(line)
);
say("   GET /metrics (excerpt):");
for (const line of interesting) say(`     ${line}`);
say();

say("6. SIGTERM: readiness fails at once, new connections are still taken for --drain-delay, then it exits.");
proxy.kill("SIGTERM");
const status = await proxy.status;
for (const line of proxy.logs.filter((l) => l.msg !== "proxy starting")) {
  say(`   log: ${line.level} ${line.msg}`);
}
say(`   exit status ${status.code}`);
await ingress.stop();
say();
say(
  match && direct.status.includes("400") && status.code === 0
    ? "Demo finished: hairpin fixed."
    : "Demo FAILED.",
);
if (!(match && status.code === 0)) Deno.exit(1);
