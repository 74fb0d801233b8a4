/**
 * Binds the DNS port for TCP and UDP on one address and port. TCP binds first (dual-stack rule of
 * `daemon/bind_dual_stack.ts`) and UDP takes its address; with port 0, TCP picks the port and the
 * pair is retried when UDP finds it taken.
 *
 * Effects: binds a TCP listener (`Deno.listen`) and a UDP socket (`node:dgram`).
 *
 * @module
 */

import dgram from "node:dgram";
import { bindDualStack } from "../../daemon/bind_dual_stack.ts";
import { errorMessage } from "../../util/error_message.ts";
import { formatHostPort, type ListenAddress } from "../../util/listen_address.ts";
import { UDP_READ_BUFFER_BYTES } from "../upstream/upstream_socket_pool.ts";

/** The two sockets of one DNS port. */
export interface DnsListeners {
  readonly tcp: Deno.TcpListener;
  readonly udp: dgram.Socket;
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

function bindUdp(hostname: string, port: number): Promise<dgram.Socket> {
  const socket = dgram.createSocket({
    type: hostname.includes(":") ? "udp6" : "udp4",
    ipv6Only: false,
    // Deno's node:dgram allocates this much per datagram read: see UDP_READ_BUFFER_BYTES.
    recvBufferSize: UDP_READ_BUFFER_BYTES,
  });
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      try {
        socket.close();
      } catch {
        // Never bound.
      }
      reject(error);
    };
    socket.once("error", onError);
    socket.bind(port, hostname, () => {
      socket.off("error", onError);
      resolve(socket);
    });
  });
}

/** Binds TCP and UDP on `address`; on failure throws naming the address, with nothing left open. */
export async function bindDnsListeners(address: ListenAddress): Promise<DnsListeners> {
  const tries = address.port === 0 ? EPHEMERAL_TRIES : 1;
  for (let attempt = 1;; attempt++) {
    const tcp = bindDualStack({ name: "dns", address }, (hostname, port) => Deno.listen({ hostname, port }));
    const { hostname, port } = tcp.addr;
    try {
      const udp = await bindUdp(hostname, port);
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
