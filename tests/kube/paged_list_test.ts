import assert from "node:assert/strict";
import { KubeApiError, statusFromResponse } from "../../lib/kube/errors.ts";
import type { ListPage } from "../../lib/kube/list_watch.ts";
import { DEFAULT_PAGE_SIZE, pagedList, type PageRequest } from "../../lib/kube/paged_list.ts";
import { LogRecorder } from "../support/log_recorder.ts";

const ALL = ["a", "b", "c", "d", "e"];
const gone = () => new KubeApiError("LIST /api/v1/configmaps", statusFromResponse(410, {}));

/** A page reader over {@linkcode ALL}; `fail(request)` may throw instead of answering. */
function reader(fail: (request: PageRequest) => Error | undefined = () => undefined) {
  const requests: PageRequest[] = [];
  const read = (request: PageRequest): Promise<ListPage<string>> => {
    requests.push(request);
    const error = fail(request);
    if (error !== undefined) return Promise.reject(error);
    const offset = request.continue === undefined ? 0 : Number(request.continue);
    const end = Math.min(offset + (request.limit ?? ALL.length), ALL.length);
    return Promise.resolve({
      items: ALL.slice(offset, end),
      resourceVersion: "50",
      ...(end < ALL.length ? { continue: String(end) } : {}),
      rejected: offset === 0 ? [{ key: "ns/bad", reason: "broken" }] : [],
    });
  };
  return { requests, read };
}

Deno.test("pagedList joins every page, asking at the version only on the first", async () => {
  const { requests, read } = reader();
  const log = new LogRecorder();
  const list = await pagedList(read, { resourceVersion: "0", pageSize: 2, resource: "v1 configmaps", log });
  assert.deepEqual(list, {
    items: ALL,
    resourceVersion: "50",
    rejected: [{ key: "ns/bad", reason: "broken" }],
  });
  assert.deepEqual(requests, [
    { resourceVersion: "0", limit: 2 },
    { limit: 2, continue: "2" },
    { limit: 2, continue: "4" },
  ]);
  assert.equal(log.entries.length, 0);
});

Deno.test("pagedList asks for pages of DEFAULT_PAGE_SIZE when no size is given", async () => {
  const { requests, read } = reader();
  await pagedList(read, { resource: "v1 configmaps", log: new LogRecorder() });
  assert.deepEqual(requests, [{ limit: DEFAULT_PAGE_SIZE }]);
});

Deno.test("pagedList reads the collection unpaged when a later page's token expired, and says so at debug", async () => {
  const { requests, read } = reader((request) => request.continue === "4" ? gone() : undefined);
  const log = new LogRecorder();
  const list = await pagedList(read, { resourceVersion: "0", pageSize: 2, resource: "v1 configmaps", log });
  assert.deepEqual(list.items, ALL, "each item once");
  assert.deepEqual(requests, [
    { resourceVersion: "0", limit: 2 },
    { limit: 2, continue: "2" },
    { limit: 2, continue: "4" },
    { resourceVersion: "0" },
  ]);
  assert.deepEqual(log.entries, [{
    level: "debug",
    message: "list continue token expired; reading the collection without pages",
    properties: { resource: "v1 configmaps", pagesRead: 2 },
  }]);
});

Deno.test("pagedList rejects with a 410 on the first page, and with any other failure on a later one", async () => {
  const first = reader(() => gone());
  await assert.rejects(
    pagedList(first.read, { resourceVersion: "1", resource: "v1 configmaps", log: new LogRecorder() }),
    KubeApiError,
  );
  assert.equal(first.requests.length, 1);

  const refused = new Error("connection refused");
  const later = reader((request) => request.continue === undefined ? undefined : refused);
  const log = new LogRecorder();
  await assert.rejects(pagedList(later.read, { pageSize: 2, resource: "v1 configmaps", log }), refused);
  assert.equal(later.requests.length, 2);
  assert.equal(log.entries.length, 0);
});
