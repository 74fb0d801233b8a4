/**
 * Real servers started for a test: nginx and HAProxy as PROXY-protocol receivers, with their
 * configuration written to a temporary folder, in the foreground, torn down on dispose.
 *
 * @module
 */

import { requireTool } from "./tools.ts";
import { waitFor } from "./wait.ts";

/** A TCP port that was free a moment ago on `hostname`. */
export function freePort(hostname = "127.0.0.1"): number {
  const listener = Deno.listen({ hostname, port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Resolves once something accepts TCP connections on `hostname:port`. */
export async function waitForPort(
  hostname: string,
  port: number,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  await waitFor(`${what} to listen on ${hostname}:${port}`, async () => {
    try {
      const conn = await Deno.connect({ hostname, port });
      conn.close();
      return true;
    } catch {
      return false;
    }
  }, { timeoutMs, intervalMs: 20 });
}

/** A running external server. */
export interface Daemon extends AsyncDisposable {
  /** The folder holding its configuration and logs. */
  readonly dir: string;
  readonly child: Deno.ChildProcess;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

async function spawnDaemon(
  command: string,
  args: readonly string[],
  dir: string,
  ready: () => Promise<void>,
): Promise<Daemon> {
  const child = new Deno.Command(command, {
    args: [...args],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let errorText = "";
  const drain = (async () => {
    while (true) {
      const { value, done } = await stderr.read();
      if (done) return;
      errorText += value;
    }
  })();
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (!exited) {
      try {
        child.kill("SIGKILL");
      } catch { /* exited meanwhile */ }
    }
    await status;
    await drain;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  try {
    await Promise.race([
      ready(),
      status.then((s) => {
        throw new Error(`${command} exited with ${s.code} before it was ready: ${errorText}`);
      }),
    ]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { dir, child, stop, [Symbol.asyncDispose]: stop };
}

/**
 * Starts nginx with `httpBody` as the content of its `http {}` block. `ports` lists the
 * `[host, port]` pairs to wait for before returning.
 *
 * @example
 * ```ts
 * await using nginx = await startNginx(`server { listen 127.0.0.1:${port} proxy_protocol; … }`, [["127.0.0.1", port]]);
 * ```
 */
export async function startNginx(httpBody: string, ports: readonly [string, number][]): Promise<Daemon> {
  const nginx = requireTool("nginx");
  const dir = await Deno.makeTempDir({ prefix: "ouroboros-nginx-" });
  const config = `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log stderr error;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${httpBody}
}
`;
  await Deno.writeTextFile(`${dir}/nginx.conf`, config);
  return await spawnDaemon(nginx, ["-c", `${dir}/nginx.conf`, "-p", dir, "-e", "stderr"], dir, async () => {
    for (const [host, port] of ports) await waitForPort(host, port, "nginx");
  });
}

/**
 * Starts HAProxy in the foreground with `body` appended to a minimal `global`/`defaults`
 * section. `ports` lists the `[host, port]` pairs to wait for.
 */
export async function startHaproxy(
  body: string,
  ports: readonly [string, number][],
  maxconn = 4000,
): Promise<Daemon> {
  const haproxy = requireTool("haproxy");
  const dir = await Deno.makeTempDir({ prefix: "ouroboros-haproxy-" });
  const config = `global
  maxconn ${maxconn}
defaults
  mode tcp
  timeout connect 5s
  timeout client 1h
  timeout server 1h
${body}
`;
  await Deno.writeTextFile(`${dir}/haproxy.cfg`, config);
  return await spawnDaemon(haproxy, ["-f", `${dir}/haproxy.cfg`, "-db"], dir, async () => {
    for (const [host, port] of ports) await waitForPort(host, port, "haproxy");
  });
}
