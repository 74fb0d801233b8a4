/**
 * A real BIND 9 `named` as the authoritative server external-dns's rfc2136 provider updates: in the
 * foreground (`-g`, logging to stderr, which {@linkcode startComponent} keeps), on 127.0.0.1 and
 * a free port, primary for the given zones, with dynamic updates and zone
 * transfers allowed only with one TSIG key (hmac-sha256, made by `tsig-keygen`). Its zone files and
 * their journals live in the stack's folder, so a failed scenario keeps what BIND wrote.
 *
 * Choices a reader could not guess:
 * - 127.0.0.1 and a free port, not an address of its own on port 53: named listens only on the
 *   addresses an interface carries (it enumerates them; `lo` carries 127.0.0.1 alone), unlike
 *   CoreDNS, which binds any address of 127/8. A free port also means a `named` left over by a
 *   killed run never holds the next run's address.
 * - `controls { };` turns rndc's channel off (named would otherwise look for /etc/bind/rndc.key),
 *   and every path named writes (pid file, session key, managed keys) is in the folder.
 * - `notify no;` and no forwarders: nothing leaves loopback.
 * - {@linkcode Bind.records} reads the zone with a TSIG-signed AXFR, so a test sees every record
 *   (the addresses, their TTLs and external-dns's TXT owner records) in one answer, as
 *   external-dns itself reads it.
 *
 * Effects: processes, files in the stack's folder.
 *
 * @module
 */

import { freeDnsPort } from "../support/dns_tools.ts";
import { requireTool } from "../support/tools.ts";
import { type ComponentProcess, startComponent } from "./component_process.ts";

/** A TSIG key as `tsig-keygen` prints it. */
export interface TsigKey {
  readonly name: string;
  /** `hmac-sha256`. */
  readonly algorithm: string;
  /** Base64. */
  readonly secret: string;
}

/** One resource record of a zone transfer. */
export interface ZoneRecord {
  /** Absolute, with no trailing dot, lower case. */
  readonly name: string;
  readonly ttl: number;
  readonly type: string;
  /** The data as dig prints it (TXT strings keep their quotes). */
  readonly data: string;
}

/** A running `named`. */
export interface Bind extends AsyncDisposable {
  /** Its loopback address. */
  readonly host: string;
  readonly port: number;
  readonly zones: readonly string[];
  readonly key: TsigKey;
  readonly process: ComponentProcess;
  /** Every record of `zone` (default the first), by a TSIG-signed AXFR. */
  records(zone?: string): Promise<ZoneRecord[]>;
  /** `named -v`, for reports. */
  readonly version: string;
}

/** What {@linkcode startBind} is told. */
export interface StartBindOptions {
  /** The folder for its configuration, zones, journals and log (the stack's). */
  readonly dir: string;
  /** An address an interface carries (default 127.0.0.1; see the module's notes). */
  readonly host?: string;
  /** The zones it is primary for, such as `example.org`. */
  readonly zones: readonly string[];
  /** A name for its files and log (default `named`). */
  readonly name?: string;
}

/** Parses `tsig-keygen`'s output: `key "<name>" { algorithm <alg>; secret "<base64>"; };`. */
export function parseTsigKey(text: string): TsigKey {
  const name = /key\s+"([^"]+)"/.exec(text)?.[1];
  const algorithm = /algorithm\s+([\w-]+);/.exec(text)?.[1];
  const secret = /secret\s+"([^"]+)"/.exec(text)?.[1];
  if (name === undefined || algorithm === undefined || secret === undefined) {
    throw new Error(`tsig-keygen printed no key: ${text}`);
  }
  return { name, algorithm, secret };
}

/** A zone's starting file: SOA with short timers, one NS and its address. */
export function zoneFile(zone: string, nsAddress: string): string {
  return `$ORIGIN ${zone}.
$TTL 300
@   IN SOA ns.${zone}. hostmaster.${zone}. ( 1 60 30 600 5 )
@   IN NS  ns.${zone}.
ns  IN A   ${nsAddress}
`;
}

/** named.conf for the zones: updates and transfers with the key only, on `host:port` only. */
export function namedConf(
  options: { dir: string; host: string; port: number; key: TsigKey; zones: readonly string[] },
): string {
  const { dir, host, port, key } = options;
  const zones = options.zones.map((zone) =>
    `zone "${zone}" {
    type primary;
    file "${dir}/${zone}.zone";
    journal "${dir}/${zone}.zone.jnl";
    allow-update { key "${key.name}"; };
    allow-transfer { key "${key.name}"; };
};
`
  ).join("");
  return `key "${key.name}" {
    algorithm ${key.algorithm};
    secret "${key.secret}";
};
controls { };
options {
    directory "${dir}";
    pid-file "${dir}/named.pid";
    session-keyfile "${dir}/session.key";
    managed-keys-directory "${dir}";
    listen-on port ${port} { ${host}; };
    listen-on-v6 { none; };
    recursion no;
    notify no;
    dnssec-validation no;
    allow-query { any; };
};
${zones}`;
}

/** The records of dig's AXFR output (comment lines and blank lines left out). */
export function parseZoneTransfer(output: string): ZoneRecord[] {
  const records: ZoneRecord[] = [];
  for (const line of output.split("\n")) {
    if (line.trim() === "" || line.startsWith(";")) continue;
    const parts = line.trim().split(/\s+/);
    if (parts.length < 5) continue;
    const [name, ttl, , type, ...data] = parts;
    records.push({
      name: name!.replace(/\.$/, "").toLowerCase(),
      ttl: Number(ttl),
      type: type!,
      data: data.join(" "),
    });
  }
  return records;
}

async function run(command: string, args: readonly string[]): Promise<{ code: number; out: string }> {
  const output = await new Deno.Command(command, {
    args: [...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: output.code, out: decoder.decode(output.stdout) + decoder.decode(output.stderr) };
}

/** Starts `named` and waits until it answers the SOA of every zone with authority. */
export async function startBind(options: StartBindOptions): Promise<Bind> {
  const name = options.name ?? "named";
  const dir = `${options.dir}/${name}`;
  await Deno.mkdir(dir, { recursive: true });
  const named = requireTool("named");
  const dig = requireTool("dig");
  const keygen = await run(requireTool("tsig-keygen"), ["-a", "hmac-sha256", `${name}-externaldns`]);
  if (keygen.code !== 0) throw new Error(`tsig-keygen failed: ${keygen.out}`);
  const key = parseTsigKey(keygen.out);
  const host = options.host ?? "127.0.0.1";
  const port = await freeDnsPort(host);
  for (const zone of options.zones) await Deno.writeTextFile(`${dir}/${zone}.zone`, zoneFile(zone, host));
  const conf = `${dir}/named.conf`;
  await Deno.writeTextFile(conf, namedConf({ dir, host, port, key, zones: options.zones }));
  const checked = await run(requireTool("named-checkconf"), ["-z", conf]);
  if (checked.code !== 0) throw new Error(`named-checkconf refused ${conf}: ${checked.out}`);
  const version = (await run(named, ["-v"])).out.trim();

  const soa = async (zone: string) => {
    const answer = await run(dig, [
      `@${host}`,
      "-p",
      String(port),
      "+time=1",
      "+tries=1",
      "+norec",
      zone,
      "SOA",
    ]);
    return /status: NOERROR/.test(answer.out) && /flags: [^;]*\baa\b/.test(answer.out);
  };
  const process = await startComponent({
    name,
    command: named,
    // -g: foreground, log to stderr; -4: IPv4 only; -c: our file; -n 1: one worker (a 2-core machine).
    args: ["-g", "-4", "-n", "1", "-c", conf],
    dir: options.dir,
    readyTimeoutMs: 60_000,
    ready: async () => (await Promise.all(options.zones.map(soa))).every(Boolean),
  });
  return {
    host,
    port,
    zones: options.zones,
    key,
    process,
    version,
    async records(zone = options.zones[0]!) {
      const transfer = await run(dig, [
        `@${host}`,
        "-p",
        String(port),
        "+time=2",
        "+tries=1",
        "-y",
        `${key.algorithm}:${key.name}:${key.secret}`,
        zone,
        "AXFR",
      ]);
      if (transfer.code !== 0 || /Transfer failed|; communications error/.test(transfer.out)) {
        throw new Error(`AXFR of ${zone} from named failed: ${transfer.out}`);
      }
      return parseZoneTransfer(transfer.out);
    },
    [Symbol.asyncDispose]: () => process.stop(),
  };
}
