import assert from "node:assert/strict";
import { CONTROLLER_OPTIONS } from "../../lib/controller/controller_options.ts";
import { DOCTOR_OPTIONS, IGNORED_CONTROLLER_ROWS } from "../../lib/doctor/doctor_options.ts";
import { parseOptions } from "../../lib/cli/options.ts";

Deno.test("doctor options: every controller flag is accepted, and the ones a one-shot read ignores say so", () => {
  const doctorRows: Record<string, { flag: string | null; help: string; default: string }> =
    DOCTOR_OPTIONS.options;
  for (const [key, spec] of Object.entries(CONTROLLER_OPTIONS.options)) {
    const own = doctorRows[key];
    assert.ok(own !== undefined && own.flag === spec.flag, `--${spec.flag} is accepted`);
    const ignored = (IGNORED_CONTROLLER_ROWS as readonly string[]).includes(key);
    assert.equal(own.help.startsWith("Ignored by the doctor"), ignored, `--${spec.flag}`);
    assert.equal(own.default, spec.default, `--${spec.flag} keeps the controller's default`);
  }
  // The doctor's own flags never shadow a controller flag.
  const controllerFlags = new Set(Object.values(CONTROLLER_OPTIONS.options).map((spec) => spec.flag));
  const own = Object.entries(DOCTOR_OPTIONS.options).filter(([key]) => !(key in CONTROLLER_OPTIONS.options));
  for (const [, spec] of own) assert.ok(!controllerFlags.has(spec.flag), `--${spec.flag}`);
});

Deno.test("doctor options: a controller's argument list parses unchanged after `doctor`", () => {
  const argv = [
    "--mode=coredns",
    "--resync=30s",
    "--once",
    "--dry-run",
    "--listen-health=:8082",
    "--leader-elect",
    "--leader-election-renew-deadline=10s",
    "--host=shop.example.com",
    "--host=api.example.com",
  ];
  const parsed = parseOptions(DOCTOR_OPTIONS, { argv, getEnv: () => undefined });
  assert.equal(parsed.kind, "ok", JSON.stringify(parsed));
  if (parsed.kind !== "ok") return;
  assert.equal(parsed.values.resync, 30_000);
  assert.deepEqual(parsed.values.host, ["shop.example.com", "api.example.com"]);
  const bad = parseOptions(DOCTOR_OPTIONS, {
    argv: ["--host=not a host", "--reach=maybe"],
    getEnv: () => undefined,
  });
  assert.equal(bad.kind, "invalid");
  assert.match(JSON.stringify(bad), /--host/);
  assert.match(JSON.stringify(bad), /--reach/);
});
