/**
 * Ingress stand-ins for the doctor's network probes: nginx with or without `proxy_protocol` on a
 * plain and a TLS listener (127.0.0.1 only), a listener that takes connections and never
 * answers, one that closes every connection at once, and a port where nothing listens.
 *
 * @module
 */

import { type Daemon, freePort, startNginx } from "../support/daemons.ts";
import { type Certificate, withFreshPorts } from "../support/peer_configs.ts";

/** A running nginx stand-in and its ports. */
export interface NginxIngress extends AsyncDisposable {
  readonly httpPort: number;
  readonly httpsPort: number;
  readonly daemon: Daemon;
}

/**
 * nginx answering `200 ingress <host>` on a plain and a TLS port; `proxyProtocol` makes both
 * listeners insist on a PROXY header (a request without one is closed without an answer).
 */
export function startNginxIngress(
  certificate: Certificate,
  options: { readonly proxyProtocol: boolean },
): Promise<NginxIngress> {
  return withFreshPorts(async () => {
    const httpPort = freePort();
    const httpsPort = freePort();
    const proxy = options.proxyProtocol ? " proxy_protocol" : "";
    const daemon = await startNginx(
      `  server {
    listen 127.0.0.1:${httpPort}${proxy};
    listen 127.0.0.1:${httpsPort} ssl${proxy};
    ssl_certificate ${certificate.certFile};
    ssl_certificate_key ${certificate.keyFile};
    location / { return 200 "ingress $host\\n"; }
  }`,
      [["127.0.0.1", httpPort], ["127.0.0.1", httpsPort]],
    );
    return { httpPort, httpsPort, daemon, [Symbol.asyncDispose]: () => daemon.stop() };
  });
}

/** A TCP listener on 127.0.0.1 that does `what` with every connection it accepts. */
export interface StandInListener extends AsyncDisposable {
  readonly port: number;
}

/**
 * Accepts connections and keeps them open and silent (`"silent"`) or closes them at once
 * (`"close"`), until disposed.
 */
export function startListener(what: "silent" | "close"): StandInListener {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        if (what === "close") conn.close();
        else held.push(conn);
      }
    } catch { /* listener closed */ }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    async [Symbol.asyncDispose]() {
      listener.close();
      await accepting;
      for (const conn of held) {
        try {
          conn.close();
        } catch { /* closed by the client */ }
      }
    },
  };
}

/** A port on 127.0.0.1 where nothing listens (free a moment ago). */
export function refusingPort(): number {
  return freePort();
}
