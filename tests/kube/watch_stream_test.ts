import assert from "node:assert/strict";
import type { WatchEvent } from "../../lib/kube/list_watch.ts";
import { watchStream } from "../../lib/kube/watch_stream.ts";
import { type ConfigMap, decodeConfigMap } from "../../lib/resources/config_map.ts";
import { LogRecorder } from "../support/log_recorder.ts";

const REQUEST = "WATCH /api/v1/namespaces/ns/configmaps";
const encoder = new TextEncoder();
const line = (type: string, name: string, rv: string) =>
  `${JSON.stringify({ type, object: { metadata: { name, namespace: "ns", resourceVersion: rv } } })}\n`;

/** A body the test writes into, and whether the reader cancelled it. */
function body() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const state = { cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    cancel: () => void (state.cancelled = true),
  });
  return {
    stream,
    state,
    send: (text: string) => controller.enqueue(encoder.encode(text)),
    end: () => controller.close(),
    break: (error: Error) => controller.error(error),
  };
}

async function collect(events: AsyncIterable<WatchEvent<ConfigMap>>): Promise<string[]> {
  const seen: string[] = [];
  for await (const event of events) {
    seen.push(
      event.type === "ADDED" || event.type === "MODIFIED" || event.type === "DELETED"
        ? `${event.type} ${event.object.metadata.name}`
        : event.type,
    );
  }
  return seen;
}

/** Starts reading a fresh body to its end; returns the body, the log, and the events once it ended. */
function watchToEnd() {
  const feed = body();
  const log = new LogRecorder();
  const signal = new AbortController().signal;
  const done = collect(watchStream(feed.stream, { decode: decodeConfigMap, request: REQUEST, signal, log }));
  return { feed, log, done };
}

Deno.test("watchStream drops an incomplete last line and says so at debug", async () => {
  const { feed, log, done } = watchToEnd();
  feed.send(line("ADDED", "a", "11") + line("MODIFIED", "a", "12").slice(0, 25));
  feed.end();
  assert.deepEqual(await done, ["ADDED a"]);
  assert.deepEqual(log.entries, [{
    level: "debug",
    message: "watch stream ended inside a line; dropping the incomplete event",
    properties: { request: REQUEST, bytes: 25 },
  }]);
});

Deno.test("watchStream ends without throwing when the body breaks, and says so at debug", async () => {
  const { feed, log, done } = watchToEnd();
  feed.send(line("ADDED", "a", "11"));
  feed.break(new Error("connection reset"));
  assert.deepEqual(await done, ["ADDED a"]);
  assert.deepEqual(log.entries, [{
    level: "debug",
    message: "watch stream broke; ending it",
    properties: { request: REQUEST, error: "connection reset" },
  }]);
});

Deno.test("watchStream ends quietly on abort and cancels the body", async () => {
  const feed = body();
  const log = new LogRecorder();
  const controller = new AbortController();
  const events = watchStream(feed.stream, {
    decode: decodeConfigMap,
    request: REQUEST,
    signal: controller.signal,
    log,
  });
  feed.send(line("ADDED", "a", "11"));
  const first = await events.next();
  assert.equal(first.done, false);
  const pending = events.next();
  controller.abort(new Error("shutdown"));
  assert.equal((await pending).done, true);
  assert.equal(feed.state.cancelled, true);
  assert.equal(log.entries.length, 0);
});

Deno.test("watchStream ends after an ERROR event and cancels the body", async () => {
  const { feed, log, done } = watchToEnd();
  feed.send(line("ADDED", "a", "11"));
  feed.send(
    `${JSON.stringify({ type: "ERROR", object: { kind: "Status", code: 410, reason: "Expired" } })}\n`,
  );
  feed.send(line("ADDED", "late", "12"));
  assert.deepEqual(await done, ["ADDED a", "ERROR"]);
  assert.equal(feed.state.cancelled, true);
  assert.equal(log.entries.length, 0);
});
