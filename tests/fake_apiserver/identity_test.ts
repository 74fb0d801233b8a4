import assert from "node:assert/strict";
import { Authenticator, bearerToken, TOKEN_USER } from "../support/fake_apiserver/identity.ts";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { call } from "./wire.ts";

const CM = "/api/v1/namespaces/x/configmaps";

Deno.test("bearerToken reads the token as the real server's bearer authenticator does", () => {
  const cases: [string | null, string | undefined][] = [
    ["Bearer abc", "abc"],
    ["bearer abc", "abc"],
    ["BEARER abc", "abc"],
    ["Bearer abc trailing", "abc"],
    ["Bearer ", undefined],
    ["Bearer  abc", undefined], // two spaces: the token is empty
    ["Basic dXNlcjpwdw==", undefined],
    ["abc", undefined],
    [null, undefined],
  ];
  for (const [header, token] of cases) assert.equal(bearerToken(header), token, String(header));
});

Deno.test("Authenticator maps tokens to users, the single token to admin, and refuses the rest", () => {
  const cases: {
    options: ConstructorParameters<typeof Authenticator>[0];
    header: string | null;
    user: string | undefined;
  }[] = [
    { options: {}, header: null, user: "" },
    { options: {}, header: "Bearer anything", user: "" },
    { options: { token: "t" }, header: "Bearer t", user: TOKEN_USER },
    { options: { token: "t" }, header: "Bearer u", user: undefined },
    { options: { token: "t" }, header: null, user: undefined },
    { options: { users: { "tok-a": "a" } }, header: "Bearer tok-a", user: "a" },
    { options: { users: { "tok-a": "a" } }, header: null, user: undefined },
    { options: { token: "t", users: { "tok-a": "a" } }, header: "Bearer t", user: TOKEN_USER },
    { options: { token: "t", users: { "tok-a": "a" } }, header: "Bearer tok-a", user: "a" },
    { options: { token: "t", users: { "tok-a": "a" } }, header: "Bearer tok-b", user: undefined },
  ];
  for (const { options, header, user } of cases) {
    assert.equal(new Authenticator(options).authenticate(header), user, JSON.stringify({ options, header }));
  }
  assert.deepEqual(new Authenticator({}).userNames(), [""]);
  assert.deepEqual(
    new Authenticator({ token: "t", users: { x: "b", y: "a", z: "a" } }).userNames(),
    ["a", "admin", "b"],
  );
  assert.throws(() => new Authenticator({ token: "t", users: { t: "b" } }), /both the admin token/);
  assert.throws(() => new Authenticator({ users: { "": "a" } }), /must not be empty/);
});

Deno.test("setToken rotates the admin token and keeps the users; removing it leaves authentication on", () => {
  const authenticator = new Authenticator({ token: "old", users: { "tok-a": "a" } });
  authenticator.setToken("new");
  assert.equal(authenticator.authenticate("Bearer old"), undefined);
  assert.equal(authenticator.authenticate("Bearer new"), TOKEN_USER);
  authenticator.setToken(undefined);
  assert.equal(authenticator.enabled, true);
  assert.equal(authenticator.authenticate("Bearer new"), undefined);
  assert.equal(authenticator.authenticate("Bearer tok-a"), "a");
});

Deno.test("several users: each token is served, the audit log names the user, anything else is a bare 401 Status", async () => {
  await using server = await startFakeApiServer({ token: "root", users: { "tok-a": "a", "tok-b": "b" } });
  const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
  assert.equal((await call(server.url, "GET", CM, as("tok-a"))).status, 200);
  assert.equal((await call(server.url, "GET", CM, as("tok-b"))).status, 200);
  assert.equal((await call(server.url, "GET", CM, as("root"))).status, 200);
  const refused = await call(server.url, "GET", CM, as("tok-c"));
  assert.equal(refused.status, 401);
  // The real server's answer, byte for byte: no details, no WWW-Authenticate.
  assert.equal(
    refused.text,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}',
  );
  assert.equal(refused.headers.get("www-authenticate"), null);
  assert.equal((await call(server.url, "GET", CM)).status, 401);
  assert.deepEqual(server.audit.map((entry) => [entry.user, entry.status]), [
    ["a", 200],
    ["b", 200],
    [TOKEN_USER, 200],
    ["", 401],
    ["", 401],
  ]);
});

Deno.test("without authentication every request is served and its user is empty", async () => {
  await using server = await startFakeApiServer();
  await call(server.url, "GET", CM, { headers: { authorization: "Bearer whatever" } });
  assert.deepEqual(server.audit.map((entry) => [entry.user, entry.status]), [["", 200]]);
});
