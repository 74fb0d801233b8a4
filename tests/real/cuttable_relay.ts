/**
 * A TCP relay on loopback that a test can cut and heal: one component's path to the apiserver,
 * so the component can be partitioned from it while everything else keeps talking. Cutting
 * closes every relayed connection and refuses new ones at once (the component sees resets and
 * refusals, as after a network partition ends its connections); healing accepts again.
 *
 * Effects: sockets.
 *
 * @module
 */

/** A running relay. */
export interface CuttableRelay extends AsyncDisposable {
  /** The port it listens on (127.0.0.1). */
  readonly port: number;
  /** Closes every connection and refuses new ones until {@linkcode heal}. */
  cut(): void;
  heal(): void;
}

async function pump(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  const buffer = new Uint8Array(64 * 1024);
  try {
    while (true) {
      const read = await from.read(buffer);
      if (read === null) break;
      let written = 0;
      while (written < read) written += await to.write(buffer.subarray(written, read));
    }
    await to.closeWrite().catch(() => {});
  } catch {
    // The other side or a cut closed it.
  }
}

/** Starts a relay to `target` on 127.0.0.1. */
export function startRelay(target: { hostname: string; port: number }): CuttableRelay {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  const pairs = new Set<Promise<void>>();
  let cut = false;
  const close = (conn: Deno.Conn) => {
    open.delete(conn);
    try {
      conn.close();
    } catch { /* already closed */ }
  };
  const serve = async (client: Deno.Conn) => {
    if (cut) return close(client);
    open.add(client);
    let upstream: Deno.Conn;
    try {
      upstream = await Deno.connect(target);
    } catch {
      return close(client);
    }
    open.add(upstream);
    await Promise.all([pump(client, upstream), pump(upstream, client)]);
    close(client);
    close(upstream);
  };
  const accepting = (async () => {
    for await (const client of listener) {
      const pair = serve(client);
      pairs.add(pair);
      pair.finally(() => pairs.delete(pair));
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    cut() {
      cut = true;
      for (const conn of [...open]) close(conn);
    },
    heal() {
      cut = false;
    },
    async [Symbol.asyncDispose]() {
      listener.close();
      for (const conn of [...open]) close(conn);
      await accepting;
      await Promise.all([...pairs]);
    },
  };
}
