import assert from "node:assert/strict";
import { KubeClient } from "../../lib/kube/client.ts";
import { KubeDecodeError } from "../../lib/kube/decode_error.ts";
import { isGone, KubeApiError } from "../../lib/kube/errors.ts";
import type { WatchEvent } from "../../lib/kube/list_watch.ts";
import { CONFIG_MAP, type ConfigMap } from "../../lib/resources/config_map.ts";
import { INGRESS } from "../../lib/resources/ingress.ts";
import type { ResourceType } from "../../lib/resources/resource_type.ts";
import { writeAll } from "../support/conn_io.ts";
import { prng } from "../support/random.ts";
import { waitFor } from "../support/wait.ts";

/** One request as the stub server saw it. */
interface Seen {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly contentType: string | null;
  readonly body: unknown;
}

/** A watch response the test writes into by hand. */
interface Feed {
  send(text: string | Uint8Array): void;
  /** Ends the body cleanly (the last chunk of a chunked response). */
  end(): void;
  /** Resolves when the client cancelled the body (stopped reading, or aborted). */
  readonly cancelled: Promise<void>;
}

type Handler = (seen: Seen) => Response | Promise<Response>;

/** A stub API server: records every request and answers with `handler`. */
function stubServer(handler: Handler) {
  const seen: Seen[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    const url = new URL(request.url);
    const text = await request.text();
    const entry: Seen = {
      method: request.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      contentType: request.headers.get("content-type"),
      body: text === "" ? undefined : JSON.parse(text),
    };
    seen.push(entry);
    return await handler(entry);
  });
  return {
    seen,
    url: `http://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** A streaming response and the feed that writes into it. */
function feedResponse(): { response: Response; feed: Feed } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  let markCancelled = () => {};
  const cancelled = new Promise<void>((resolve) => markCancelled = resolve);
  const body = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
    cancel: () => {
      open = false;
      markCancelled();
    },
  });
  const encoder = new TextEncoder();
  const feed: Feed = {
    send: (text) => {
      if (open) controller.enqueue(typeof text === "string" ? encoder.encode(text) : text);
    },
    end: () => {
      if (open) controller.close();
      open = false;
    },
    cancelled,
  };
  return { response: new Response(body, { headers: { "content-type": "application/json" } }), feed };
}

/** A stub server whose every watch request gets a new feed, handed to the test. */
function watchServer() {
  const feeds: Feed[] = [];
  const stub = stubServer(() => {
    const { response, feed } = feedResponse();
    feeds.push(feed);
    return response;
  });
  return {
    ...stub,
    feeds,
    [Symbol.asyncDispose]: async () => {
      for (const feed of feeds) feed.end();
      await stub[Symbol.asyncDispose]();
    },
  };
}

const cm = (name: string, rv: string, data: unknown = { k: "v" }) => ({
  metadata: { name, namespace: "ns", resourceVersion: rv },
  data,
});

const line = (type: string, object: unknown) => `${JSON.stringify({ type, object })}\n`;

const watchOptions = (signal: AbortSignal) => ({
  resourceVersion: "10",
  allowWatchBookmarks: true,
  timeoutSeconds: 300,
  signal,
});

/** Collects events until the stream ends (or `limit` events). */
async function collect<T>(events: AsyncIterable<WatchEvent<T>>, limit = Infinity): Promise<WatchEvent<T>[]> {
  const all: WatchEvent<T>[] = [];
  for await (const event of events) {
    all.push(event);
    if (all.length >= limit) break;
  }
  return all;
}

function summary(events: readonly WatchEvent<ConfigMap>[]): string[] {
  return events.map((event) => {
    switch (event.type) {
      case "ADDED":
      case "MODIFIED":
      case "DELETED":
        return `${event.type} ${event.object.metadata.name}@${event.object.metadata.resourceVersion}`;
      case "BOOKMARK":
        return `BOOKMARK @${event.resourceVersion}`;
      case "ERROR":
        return `ERROR ${event.status.code} ${event.status.reason}`;
      case "REJECTED":
        return `REJECTED ${event.failure.key}@${event.resourceVersion}: ${event.failure.reason}`;
    }
  });
}

Deno.test("get, create, update, mergePatch and delete send the right method, path, type and body", async () => {
  await using server = stubServer((seen) =>
    Response.json({
      ...cm("coredns", "8"),
      ...(seen.method === "DELETE" ? { kind: "Status", status: "Success" } : {}),
    })
  );
  using client = new KubeClient({ server: server.url });
  const ref = { namespace: "ns", name: "coredns" };

  const got = await client.get(CONFIG_MAP, ref);
  assert.deepEqual([got.metadata.name, got.metadata.resourceVersion, got.data], ["coredns", "8", { k: "v" }]);
  await client.create(CONFIG_MAP, { metadata: { name: "coredns", namespace: "ns" }, data: { a: "1" } });
  await client.update(CONFIG_MAP, {
    metadata: { name: "coredns", namespace: "ns", resourceVersion: "8" },
    data: {},
  });
  await client.mergePatch(CONFIG_MAP, ref, { data: { Corefile: "x" } }, { resourceVersion: "8" });
  await client.delete(CONFIG_MAP, ref, { resourceVersion: "8", propagationPolicy: "Background" });
  await client.delete(CONFIG_MAP, ref);

  const base = "/api/v1/namespaces/ns/configmaps";
  assert.deepEqual(server.seen, [
    { method: "GET", path: `${base}/coredns`, query: {}, contentType: null, body: undefined },
    {
      method: "POST",
      path: base,
      query: { fieldManager: "ouroboros" },
      contentType: "application/json",
      body: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "coredns", namespace: "ns" },
        data: { a: "1" },
      },
    },
    {
      method: "PUT",
      path: `${base}/coredns`,
      query: { fieldManager: "ouroboros" },
      contentType: "application/json",
      body: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "coredns", namespace: "ns", resourceVersion: "8" },
        data: {},
      },
    },
    {
      method: "PATCH",
      path: `${base}/coredns`,
      query: { fieldManager: "ouroboros" },
      contentType: "application/merge-patch+json",
      body: { data: { Corefile: "x" }, metadata: { resourceVersion: "8" } },
    },
    {
      method: "DELETE",
      path: `${base}/coredns`,
      query: {},
      contentType: "application/json",
      body: {
        apiVersion: "v1",
        kind: "DeleteOptions",
        preconditions: { resourceVersion: "8" },
        propagationPolicy: "Background",
      },
    },
    { method: "DELETE", path: `${base}/coredns`, query: {}, contentType: null, body: undefined },
  ]);
});

Deno.test("calls that cannot be right are refused before any request is sent", async () => {
  await using server = stubServer(() => Response.json({}));
  using client = new KubeClient({ server: server.url });
  const clusterScoped: ResourceType<ConfigMap> = { ...CONFIG_MAP, kind: "Thing", namespaced: false };
  await assert.rejects(
    client.get(CONFIG_MAP, { name: "x" }),
    /ConfigMap is namespaced: a namespace is required for "x"/,
  );
  await assert.rejects(
    client.get(clusterScoped, { namespace: "ns", name: "x" }),
    /Thing is cluster-scoped: it has no namespace \(got "ns"\)/,
  );
  await assert.rejects(
    client.update(CONFIG_MAP, { metadata: { name: "x", namespace: "ns" } }),
    /update of ConfigMap "x" needs metadata.resourceVersion/,
  );
  assert.deepEqual(server.seen, []);
});

Deno.test("an object the decoder refuses rejects get with a KubeDecodeError naming the field", async () => {
  await using server = stubServer(() => Response.json(cm("bad", "3", { port: 53 })));
  using client = new KubeClient({ server: server.url });
  const error = await client.get(CONFIG_MAP, { namespace: "ns", name: "bad" }).then(
    () => undefined,
    (e) => e,
  );
  assert.ok(error instanceof KubeDecodeError);
  assert.equal(
    error.message,
    "GET /api/v1/namespaces/ns/configmaps/bad: cannot decode the answer: ns/bad: data.port is a number, not a string",
  );
});

Deno.test("list decodes items, reports undecodable ones as rejected, and sends selectors and paging", async () => {
  await using server = stubServer(() =>
    Response.json({
      kind: "ConfigMapList",
      apiVersion: "v1",
      metadata: { resourceVersion: "99", continue: "next-page" },
      items: [cm("a", "1"), cm("b", "2", { n: 1 }), "junk", cm("c", "3")],
    })
  );
  using client = new KubeClient({ server: server.url });
  const page = await client.list(CONFIG_MAP, {
    namespace: "ns",
    labelSelector: "app=web",
    fieldSelector: "metadata.name!=x",
    limit: 4,
    resourceVersion: "0",
  });
  assert.deepEqual(page.items.map((item) => item.metadata.name), ["a", "c"]);
  assert.deepEqual(page.rejected, [
    { key: "ns/b", reason: "data.n is a number, not a string" },
    { key: "?", reason: "ConfigMap is a string, not an object" },
  ]);
  assert.equal(page.resourceVersion, "99");
  assert.equal(page.continue, "next-page");
  assert.deepEqual(server.seen[0]?.query, {
    resourceVersion: "0",
    limit: "4",
    labelSelector: "app=web",
    fieldSelector: "metadata.name!=x",
  });
});

Deno.test("listAll reads every page; a 410 on page 2 falls back to one unpaged list; a 410 on page 1 fails", async (t) => {
  let expireContinue = false;
  const all = ["a", "b", "c", "d", "e"].map((name, i) => cm(name, String(i + 1)));
  const expired = () =>
    Response.json({ kind: "Status", code: 410, reason: "Expired", message: "continue token expired" }, {
      status: 410,
    });
  await using server = stubServer((seen) => {
    if (seen.query.resourceVersion === "1") return expired();
    const offset = seen.query.continue === undefined ? 0 : Number(seen.query.continue);
    if (offset > 0 && expireContinue) return expired();
    const limit = seen.query.limit === undefined ? all.length : Number(seen.query.limit);
    const end = Math.min(offset + limit, all.length);
    return Response.json({
      metadata: { resourceVersion: "50", ...(end < all.length ? { continue: String(end) } : {}) },
      items: all.slice(offset, end),
    });
  });
  using client = new KubeClient({ server: server.url });

  await t.step("pages", async () => {
    const list = await client.listAll(CONFIG_MAP, { namespace: "ns", pageSize: 2, labelSelector: "a=b" });
    assert.deepEqual(list.items.map((item) => item.metadata.name), ["a", "b", "c", "d", "e"]);
    assert.equal(list.resourceVersion, "50");
    assert.deepEqual(server.seen.map((s) => s.query), [
      { limit: "2", labelSelector: "a=b" },
      { limit: "2", continue: "2", labelSelector: "a=b" },
      { limit: "2", continue: "4", labelSelector: "a=b" },
    ]);
  });
  await t.step("expired continue token", async () => {
    server.seen.length = 0;
    expireContinue = true;
    const list = await client.listAll(CONFIG_MAP, { namespace: "ns", pageSize: 2, resourceVersion: "0" });
    assert.deepEqual(
      list.items.map((item) => item.metadata.name),
      ["a", "b", "c", "d", "e"],
      "each object once",
    );
    assert.deepEqual(server.seen.map((s) => s.query), [
      { resourceVersion: "0", limit: "2" },
      { limit: "2", continue: "2" },
      { resourceVersion: "0" },
    ]);
  });
  await t.step("expired on page 1", async () => {
    const error = await client.listAll(CONFIG_MAP, { namespace: "ns", resourceVersion: "1" }).then(
      () => undefined,
      (e) => e,
    );
    assert.ok(isGone(error), String(error));
  });
});

Deno.test("watch asks for a watch from the version, with bookmarks, timeout and selectors", async () => {
  await using server = watchServer();
  using client = new KubeClient({ server: server.url });
  const watcher = client.listWatcher(INGRESS, { namespace: "shop", labelSelector: "team=web" });
  assert.equal(watcher.description, "networking.k8s.io/v1 ingresses in shop (team=web)");
  const controller = new AbortController();
  const events = watcher.watch(watchOptions(controller.signal))[Symbol.asyncIterator]();
  const first = events.next();
  await waitFor("the watch request", () => server.feeds.length === 1);
  server.feeds[0]!.end();
  assert.equal((await first).done, true);
  assert.deepEqual(server.seen[0], {
    method: "GET",
    path: "/apis/networking.k8s.io/v1/namespaces/shop/ingresses",
    query: {
      watch: "true",
      resourceVersion: "10",
      allowWatchBookmarks: "true",
      timeoutSeconds: "300",
      labelSelector: "team=web",
    },
    contentType: null,
    body: undefined,
  });
});

Deno.test("watch yields every event in order however the server cuts the stream (100 seeds)", async () => {
  await using server = watchServer();
  using client = new KubeClient({ server: server.url });
  for (let seed = 1; seed <= 100; seed++) {
    const random = prng(seed);
    const lines: string[] = [];
    const want: string[] = [];
    const count = 1 + Math.floor(random() * 30);
    for (let i = 0; i < count; i++) {
      const rv = String(100 + i);
      const pick = random();
      if (pick < 0.15) {
        lines.push(line("BOOKMARK", { metadata: { resourceVersion: rv } }));
        want.push(`BOOKMARK @${rv}`);
      } else {
        const type = pick < 0.55 ? "ADDED" : pick < 0.85 ? "MODIFIED" : "DELETED";
        lines.push(line(type, cm(`obj-${i}`, rv, { note: "ü".repeat(Math.floor(random() * 2000)) })));
        want.push(`${type} obj-${i}@${rv}`);
      }
    }
    const bytes = new TextEncoder().encode(lines.join(""));
    const controller = new AbortController();
    const done = collect(client.watch(CONFIG_MAP, { ...watchOptions(controller.signal), namespace: "ns" }));
    await waitFor("the watch request", () => server.feeds.length === seed);
    const feed = server.feeds[seed - 1]!;
    for (let start = 0; start < bytes.length;) {
      const end = Math.min(bytes.length, start + 1 + Math.floor(random() * 3000));
      feed.send(bytes.slice(start, end));
      start = end;
    }
    feed.end();
    assert.deepEqual(summary(await done), want, `seed ${seed}`);
  }
});

Deno.test("a stream that ends inside a line ends after the last complete event", async () => {
  await using server = watchServer();
  using client = new KubeClient({ server: server.url });
  const controller = new AbortController();
  const done = collect(client.watch(CONFIG_MAP, { ...watchOptions(controller.signal), namespace: "ns" }));
  await waitFor("the watch request", () => server.feeds.length === 1);
  const third = line("MODIFIED", cm("c", "13"));
  server.feeds[0]!.send(line("ADDED", cm("a", "11")) + line("ADDED", cm("b", "12")) + third.slice(0, 30));
  server.feeds[0]!.end();
  assert.deepEqual(summary(await done), ["ADDED a@11", "ADDED b@12"]);
});

Deno.test("a connection that breaks inside a chunk ends the watch after the last complete event", async () => {
  // A raw HTTP/1.1 server, so the connection can be closed in the middle of a chunk.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const serving = (async () => {
    const conn = await listener.accept();
    const buffer = new Uint8Array(4096);
    let head = "";
    while (!head.includes("\r\n\r\n")) {
      const n = await conn.read(buffer);
      if (n === null) break;
      head += new TextDecoder().decode(buffer.subarray(0, n));
    }
    const events = line("ADDED", cm("a", "11")) + line("ADDED", cm("b", "12")) + line("ADDED", cm("c", "13"));
    const body = new TextEncoder().encode(events);
    const cut = body.length - 20;
    const response =
      "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n" +
      `${body.length.toString(16)}\r\n`;
    await writeAll(conn, new TextEncoder().encode(response));
    await writeAll(conn, body.subarray(0, cut)); // the chunk announced more bytes than arrive
    conn.close();
  })();
  try {
    using client = new KubeClient({ server: `http://127.0.0.1:${listener.addr.port}` });
    const controller = new AbortController();
    const events = await collect(
      client.watch(CONFIG_MAP, { ...watchOptions(controller.signal), namespace: "ns" }),
    );
    assert.deepEqual(summary(events), ["ADDED a@11", "ADDED b@12"]);
  } finally {
    await serving;
    listener.close();
  }
});

Deno.test("stopping the loop or aborting the signal ends the watch and releases the connection", async (t) => {
  await t.step("break", async () => {
    await using server = watchServer();
    using client = new KubeClient({ server: server.url });
    const controller = new AbortController();
    const done = collect(
      client.watch(CONFIG_MAP, { ...watchOptions(controller.signal), namespace: "ns" }),
      1,
    );
    await waitFor("the watch request", () => server.feeds.length === 1);
    server.feeds[0]!.send(line("ADDED", cm("a", "11")));
    assert.deepEqual(summary(await done), ["ADDED a@11"]);
    await server.feeds[0]!.cancelled;
  });
  await t.step("abort", async () => {
    await using server = watchServer();
    using client = new KubeClient({ server: server.url });
    const controller = new AbortController();
    const events: WatchEvent<ConfigMap>[] = [];
    const done = (async () => {
      for await (
        const event of client.watch(CONFIG_MAP, { ...watchOptions(controller.signal), namespace: "ns" })
      ) {
        events.push(event);
      }
    })();
    await waitFor("the watch request", () => server.feeds.length === 1);
    server.feeds[0]!.send(line("ADDED", cm("a", "11")));
    await waitFor("the first event", () => events.length === 1);
    controller.abort(new Error("shutdown"));
    await done; // ends without throwing
    await server.feeds[0]!.cancelled;
    assert.deepEqual(summary(events), ["ADDED a@11"]);
  });
});

Deno.test("a watch refused with HTTP 410 rejects with an isGone KubeApiError", async () => {
  await using server = stubServer(() =>
    Response.json({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      reason: "Expired",
      code: 410,
      message: "too old resource version: 10 (500)",
    }, { status: 410 })
  );
  using client = new KubeClient({ server: server.url });
  const controller = new AbortController();
  const error = await collect(client.watch(CONFIG_MAP, watchOptions(controller.signal))).then(
    () => undefined,
    (e) => e,
  );
  assert.ok(error instanceof KubeApiError, String(error));
  assert.ok(isGone(error));
  assert.equal(error.status.message, "too old resource version: 10 (500)");
  assert.equal(error.request, "WATCH /api/v1/configmaps");
});

Deno.test("the stream ends after an ERROR event, even if the server sends more", async () => {
  await using server = watchServer();
  using client = new KubeClient({ server: server.url });
  const controller = new AbortController();
  const done = collect(client.watch(CONFIG_MAP, watchOptions(controller.signal)));
  await waitFor("the watch request", () => server.feeds.length === 1);
  const feed = server.feeds[0]!;
  feed.send(line("ADDED", cm("a", "11")));
  feed.send(line("ERROR", { kind: "Status", code: 410, reason: "Expired", message: "too old" }));
  feed.send(line("ADDED", cm("late", "12")));
  assert.deepEqual(summary(await done), ["ADDED a@11", "ERROR 410 Expired"]);
  await feed.cancelled;
});

Deno.test("a malformed line ends the stream with ERROR 500; an undecodable object is REJECTED and skipped", async () => {
  await using server = watchServer();
  using client = new KubeClient({ server: server.url });
  const controller = new AbortController();
  const done = collect(client.watch(CONFIG_MAP, watchOptions(controller.signal)));
  await waitFor("the watch request", () => server.feeds.length === 1);
  const feed = server.feeds[0]!;
  feed.send(line("ADDED", cm("bad", "11", { n: 1 })));
  feed.send(line("ADDED", cm("good", "12")));
  feed.send("this is not json\n");
  feed.send(line("ADDED", cm("never", "13")));
  assert.deepEqual(summary(await done), [
    "REJECTED ns/bad@11: data.n is a number, not a string",
    "ADDED good@12",
    "ERROR 500 InternalError",
  ]);
  await feed.cancelled;
});
