/**
 * Binds the DNS port for TCP and UDP on one address and port. TCP binds first (dual-stack rule of
 * `daemon/bind_dual_stack.ts`) and UDP takes its address; with port 0, TCP picks the port and the
 * pair is retried when UDP finds it taken.
 *
 * Effects: binds a TCP listener (`Deno.listen`) and a UDP socket (`Deno.listenDatagram`, unstable
 * `net`; `::` takes IPv4 too, as the system's default dual-stack rule says).
 *
 * @module
 */

import { bindDualStack } from "../../daemon/bind_dual_stack.ts";
import { errorMessage } from "../../util/error_message.ts";
import { formatHostPort, type ListenAddress } from "../../util/listen_address.ts";

/** The two sockets of one DNS port. */
export interface DnsListeners {
  readonly tcp: Deno.TcpListener;
  readonly udp: Deno.DatagramConn;
  /** The address both are bound to (`::`, `0.0.0.0`, …). */
  readonly hostname: string;
  readonly port: number;
}

/** Ephemeral ports tried when the one TCP got is taken for UDP. */
const EPHEMERAL_TRIES = 10;

function isAddressInUse(error: unknown): boolean {
  return error instanceof Deno.errors.AddrInUse ||
    (error instanceof Error && (error as Error & { code?: unknown }).code === "EADDRINUSE");
}

function bindUdp(hostname: string, port: number): Deno.DatagramConn {
  return Deno.listenDatagram({ hostname, port, transport: "udp" });
}

/** Binds TCP and UDP on `address`; on failure throws naming the address, with nothing left open. */
export function bindDnsListeners(address: ListenAddress): DnsListeners {
  const tries = address.port === 0 ? EPHEMERAL_TRIES : 1;
  for (let attempt = 1;; attempt++) {
    const tcp = bindDualStack({ name: "dns", address }, (hostname, port) => Deno.listen({ hostname, port }));
    const { hostname, port } = tcp.addr;
    try {
      const udp = bindUdp(hostname, port);
      return { tcp, udp, hostname, port };
    } catch (error) {
      tcp.close();
      if (isAddressInUse(error) && attempt < tries) continue;
      throw new Error(
        `listen dns udp ${formatHostPort(address.host, address.port)}: ${errorMessage(error)}`,
        {
          cause: error,
        },
      );
    }
  }
}
