/**
 * Real PROXY-protocol receivers for the proxy's end-to-end tests: nginx and HAProxy
 * configurations that answer every request with the client and destination addresses they took
 * from the PROXY header, a `curl` runner that reports curl's own socket addresses, and a
 * throwaway self-signed certificate for the TLS path.
 *
 * The receivers' answer is always one line, `<source ip> <source port> <destination ip> <destination port>`,
 * so a test compares it with what curl (or a raw socket) saw from its side of the connection.
 *
 * @module
 */

import { type Daemon, freePort, startHaproxy, startNginx } from "./daemons.ts";
import { requireTool } from "./tools.ts";

/** An IP address and port, as printed by curl, nginx or HAProxy. */
export interface Endpoint {
  readonly ip: string;
  readonly port: number;
}

/** What a receiver read from the PROXY header of one connection. */
export interface SeenAddresses {
  readonly source: Endpoint;
  readonly destination: Endpoint;
}

/** The loopback addresses the tests use as receiver and client addresses. */
export const LOOPBACKS = ["127.0.0.1", "::1"] as const;
/** One of {@linkcode LOOPBACKS}. */
export type Loopback = (typeof LOOPBACKS)[number];

/** `host:port` with IPv6 hosts in brackets, as URLs and curl want it. */
export function hostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * A TCP port free on both 127.0.0.1 and ::1 a moment ago. nginx and HAProxy cannot bind port 0
 * and the receivers listen on both loopbacks with one port, so the port must be free on both.
 */
export function freeLoopbackPort(): number {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = freePort("127.0.0.1");
    try {
      Deno.listen({ hostname: "::1", port }).close();
      return port;
    } catch {
      // Taken on ::1: try another.
    }
  }
  throw new Error("no TCP port free on both 127.0.0.1 and ::1 after 50 attempts");
}

/**
 * Runs `start` with fresh ports, again when the daemon lost a port to another process between
 * {@linkcode freeLoopbackPort} and its bind (other test files run at the same time).
 */
export async function withFreshPorts<T>(start: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await start();
    } catch (error) {
      const lostRace = error instanceof Error &&
        /Address already in use|cannot bind socket/i.test(error.message);
      if (!lostRace || attempt >= attempts) throw error;
    }
  }
}

/** Where a self-signed certificate and its key were written. */
export interface Certificate extends AsyncDisposable {
  readonly certFile: string;
  readonly keyFile: string;
}

/**
 * Generates a throwaway self-signed certificate for `CN=localhost` with `openssl req`, valid for
 * one day, in a temporary folder removed on dispose.
 */
export async function selfSignedCertificate(): Promise<Certificate> {
  const openssl = requireTool("openssl");
  const dir = await Deno.makeTempDir({ prefix: "ouroboros-cert-" });
  const certFile = `${dir}/cert.pem`;
  const keyFile = `${dir}/key.pem`;
  const remove = () => Deno.remove(dir, { recursive: true }).catch(() => {});
  const output = await new Deno.Command(openssl, {
    args: [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-subj",
      "/CN=localhost",
      "-days",
      "1",
      "-keyout",
      keyFile,
      "-out",
      certFile,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (output.code !== 0) {
    await remove();
    throw new Error(`openssl req failed (${output.code}): ${new TextDecoder().decode(output.stderr)}`);
  }
  return { certFile, keyFile, [Symbol.asyncDispose]: remove };
}

/** The nginx response line: the PROXY header's source and destination, then a newline. */
const NGINX_ECHO =
  `"$proxy_protocol_addr $proxy_protocol_port $proxy_protocol_server_addr $proxy_protocol_server_port\\n"`;

/** Options for {@linkcode startNginxEcho}. */
export interface NginxEchoOptions {
  /** Plain-HTTP port taking PROXY-protocol connections on both loopbacks. */
  readonly httpPort: number;
  /** A TLS port taking PROXY-protocol connections on both loopbacks, with this certificate. */
  readonly tls?: { readonly port: number; readonly certificate: Certificate };
}

/**
 * Starts nginx as an ingress-controller stand-in: `proxy_protocol` on every listener (nginx 1.22
 * takes v1 and v2 on the same listener), answering every request with the PROXY header's
 * addresses. A request nginx rejects as malformed gets status 400 with
 * `rejected <source ip> <source port>`, so a test can tell whose address nginx kept.
 */
export function startNginxEcho(options: NginxEchoOptions): Promise<Daemon> {
  const listens = LOOPBACKS.map((host) => `    listen ${hostPort(host, options.httpPort)} proxy_protocol;`);
  const ports: [string, number][] = LOOPBACKS.map((host) => [host, options.httpPort]);
  if (options.tls !== undefined) {
    const { port, certificate } = options.tls;
    listens.push(...LOOPBACKS.map((host) => `    listen ${hostPort(host, port)} ssl proxy_protocol;`));
    listens.push(
      `    ssl_certificate ${certificate.certFile};`,
      `    ssl_certificate_key ${certificate.keyFile};`,
    );
    ports.push(...LOOPBACKS.map((host): [string, number] => [host, port]));
  }
  return startNginx(
    `  server {
${listens.join("\n")}
    error_page 400 /rejected;
    location = /rejected { return 400 "rejected $proxy_protocol_addr $proxy_protocol_port\\n"; }
    location / { return 200 ${NGINX_ECHO}; }
  }`,
    ports,
  );
}

/**
 * Starts HAProxy with an HTTP frontend that requires a PROXY header (`accept-proxy`, which
 * detects v1 and v2) on both loopbacks and answers every request with the addresses it took
 * from that header (`src`/`dst` follow the header).
 */
export function startHaproxyEcho(port: number): Promise<Daemon> {
  const binds = LOOPBACKS.map((host) => `  bind ${hostPort(host, port)} accept-proxy`).join("\n");
  return startHaproxy(
    `frontend peer_echo
  mode http
${binds}
  http-request return status 200 content-type text/plain lf-string "%[src] %[src_port] %[dst] %[dst_port]\\n"
`,
    LOOPBACKS.map((host) => [host, port]),
  );
}

/** Parses a receiver's answer line (see the module description). */
export function parseSeen(body: string): SeenAddresses {
  const fields = body.trim().split(" ");
  const [sourceIp, sourcePort, destinationIp, destinationPort] = fields;
  if (
    fields.length !== 4 || sourceIp === undefined || sourcePort === undefined ||
    destinationIp === undefined ||
    destinationPort === undefined
  ) {
    throw new Error(`unexpected receiver answer: ${JSON.stringify(body)}`);
  }
  return {
    source: { ip: sourceIp, port: Number(sourcePort) },
    destination: { ip: destinationIp, port: Number(destinationPort) },
  };
}

/** One finished curl request, with curl's own view of its socket. */
export interface CurlResult {
  readonly status: number;
  readonly body: string;
  /** curl's local address and port (`%{local_ip} %{local_port}`). */
  readonly local: Endpoint;
  /** The address and port curl connected to (`%{remote_ip} %{remote_port}`). */
  readonly remote: Endpoint;
}

const CURL_MARKER = "\n@@curl ";

/**
 * Runs the real `curl` against `url` (no config file, no proxy environment, 20 s cap) and
 * returns the body with curl's own local and remote socket addresses. Throws when curl fails.
 */
export async function curlGet(url: string, extraArgs: readonly string[] = []): Promise<CurlResult> {
  const curl = requireTool("curl");
  const output = await new Deno.Command(curl, {
    args: [
      "-q",
      "--silent",
      "--show-error",
      "--globoff",
      "--max-time",
      "20",
      "--write-out",
      `${CURL_MARKER}%{http_code} %{local_ip} %{local_port} %{remote_ip} %{remote_port}`,
      ...extraArgs,
      url,
    ],
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  const stdout = decoder.decode(output.stdout);
  if (output.code !== 0) {
    throw new Error(`curl ${url} failed (${output.code}): ${decoder.decode(output.stderr)} ${stdout}`);
  }
  const marker = stdout.lastIndexOf(CURL_MARKER);
  const [status, localIp, localPort, remoteIp, remotePort] = stdout.slice(marker + CURL_MARKER.length).split(
    " ",
  );
  if (
    marker < 0 || status === undefined || localIp === undefined || localPort === undefined ||
    remoteIp === undefined || remotePort === undefined
  ) {
    throw new Error(`unexpected curl output: ${JSON.stringify(stdout)}`);
  }
  return {
    status: Number(status),
    body: stdout.slice(0, marker),
    local: { ip: localIp, port: Number(localPort) },
    remote: { ip: remoteIp, port: Number(remotePort) },
  };
}
