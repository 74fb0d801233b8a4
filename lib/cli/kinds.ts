/**
 * Value kinds for option tables: each parses raw flag or environment text and says in words what
 * it accepts, so error messages and help text come from one place.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { MAX_TIMER_MS } from "../util/clock.ts";
import { formatDuration, parseDuration } from "../util/duration.ts";
import { formatIp, parseIp } from "../util/ip.ts";
import { isDns1035Label, isDnsLabel, isDnsSubdomain } from "../util/kube_names.ts";
import { type ListenAddress, parseListenAddress } from "../util/listen_address.ts";
import type { Parsed, ValueKind } from "./options.ts";

function ok<T>(value: T): Parsed<T> {
  return { ok: true, value };
}

function bad<T>(reason?: string): Parsed<T> {
  return reason === undefined ? { ok: false } : { ok: false, reason };
}

/** Free text; every string is accepted (empty means "not set" for optional settings). */
export function text(placeholder = "STRING", accepted = "any text"): ValueKind<string> {
  return { placeholder, accepted, parse: (raw) => ok(raw) };
}

/**
 * A path to a file, or empty for "not set": a value ending in `/` names a folder (`--routes-file`
 * wants the file in it), and a NUL byte names nothing.
 */
export function filePath(what: string): ValueKind<string> {
  return {
    placeholder: "PATH",
    accepted: `a path to ${what}, not ending in / (empty: not set)`,
    parse: (raw) => raw.endsWith("/") || raw.includes("\0") ? bad() : ok(raw),
  };
}

/** A TCP port from 1 to 65535. */
export function port(): ValueKind<number> {
  return {
    placeholder: "PORT",
    accepted: "a TCP port number from 1 to 65535",
    parse(raw) {
      if (!/^\d+$/.test(raw)) return bad("not a whole number");
      const value = Number(raw);
      return value >= 1 && value <= 65535 ? ok(value) : bad(`${raw} is out of range`);
    },
  };
}

/** Options for {@linkcode duration}. */
export interface DurationOptions {
  /** Accept zero; otherwise a duration must be greater than zero. */
  readonly allowZero?: boolean;
}

/** Re-exported: longer durations are refused at parse time rather than firing after 1 ms. */
export { MAX_TIMER_MS };

/**
 * A Go-syntax duration, returned in milliseconds, at most {@linkcode MAX_TIMER_MS}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { duration } from "./kinds.ts";
 *
 * assert.deepEqual(duration().parse("1m30s"), { ok: true, value: 90000 });
 * assert.deepEqual(duration().parse("0s"), { ok: false, reason: "must be greater than 0" });
 * ```
 */
export function duration(options: DurationOptions = {}): ValueKind<number> {
  const floor = options.allowZero ? "0 or more" : "greater than 0";
  return {
    placeholder: "DURATION",
    accepted: `a duration ${floor} in Go syntax, such as 5s, 1m30s or 250ms`,
    parse(raw) {
      const value = parseDuration(raw);
      if (value === undefined) return bad("not a duration");
      if (value < 0) return bad("must not be negative");
      if (value === 0 && !options.allowZero) return bad("must be greater than 0");
      if (value > MAX_TIMER_MS) return bad(`must be at most ${formatDuration(MAX_TIMER_MS)}`);
      return ok(value);
    },
  };
}

/** Re-exported so tables can show durations the way they parse them. */
export { formatDuration };

/** Options for {@linkcode listenAddress}. */
export interface ListenAddressOptions {
  /** Accept the empty string: the listener is disabled. */
  readonly allowEmpty?: boolean;
}

/** A `host:port` listen address; `null` when empty and allowed (the listener is off). */
export function listenAddress(options: ListenAddressOptions = {}): ValueKind<ListenAddress | null> {
  const empty = options.allowEmpty ? " (empty disables the listener)" : "";
  return {
    placeholder: "ADDR",
    accepted: `a listen address such as :8080, 0.0.0.0:8080 or [::]:8080${empty}`,
    parse(raw) {
      if (raw === "") return options.allowEmpty ? ok(null) : bad("must not be empty");
      const parsed = parseListenAddress(raw);
      return typeof parsed === "string" ? bad(parsed) : ok(parsed);
    },
  };
}

/** One of a fixed list of words, compared case-insensitively and returned as listed. */
export function oneOf<const W extends string>(
  words: readonly W[],
  aliases: Readonly<Record<string, W>> = {},
): ValueKind<W> {
  return {
    placeholder: words.join("|"),
    accepted: `one of ${words.join(", ")}`,
    parse(raw) {
      const lower = raw.toLowerCase();
      const found = words.find((word) => word.toLowerCase() === lower) ?? aliases[lower];
      return found === undefined ? bad() : ok(found);
    },
  };
}

/** An on/off switch: `true`/`false` and the other spellings Go's `strconv.ParseBool` takes. */
export function boolean(): ValueKind<boolean> {
  const truthy = new Set(["1", "t", "T", "TRUE", "true", "True"]);
  const falsy = new Set(["0", "f", "F", "FALSE", "false", "False"]);
  return {
    placeholder: "BOOL",
    accepted: "true or false",
    isSwitch: true,
    parse(raw) {
      if (truthy.has(raw)) return ok(true);
      if (falsy.has(raw)) return ok(false);
      return bad();
    },
  };
}

/** Options for {@linkcode integer}. */
export interface IntegerOptions {
  readonly min: number;
  readonly max: number;
  /** Shown in help: `--resync=SECONDS`. @default "N" */
  readonly placeholder?: string;
}

/** A whole number within an inclusive range. */
export function integer(options: IntegerOptions): ValueKind<number> {
  const { min, max, placeholder = "N" } = options;
  return {
    placeholder,
    accepted: `a whole number from ${min} to ${max}`,
    parse(raw) {
      if (!/^[+-]?\d+$/.test(raw)) return bad("not a whole number");
      const value = Number(raw);
      return value >= min && value <= max ? ok(value) : bad(`${raw} is out of range`);
    },
  };
}

/** A parser taking the empty string ("not set") or text that `valid` accepts as it is. */
function optionalMatch(valid: (name: string) => boolean): (raw: string) => Parsed<string> {
  return (raw) => (raw === "" || valid(raw) ? ok(raw) : bad());
}

/** A Kubernetes Service name (an RFC 1035 label); empty means "not set". */
export function serviceName(): ValueKind<string> {
  return {
    placeholder: "NAME",
    accepted:
      "a Service name (lower-case letters, digits and '-', starting with a letter, at most 63 characters)",
    parse: optionalMatch(isDns1035Label),
  };
}

/** An RFC 1123 label used as an identifier (`--marker-id`); empty means "not set". */
export function dnsLabel(placeholder: string, what: string): ValueKind<string> {
  return {
    placeholder,
    accepted: `${what} (lower-case letters, digits and '-', at most 63 characters, starting and ending ` +
      "with a letter or digit)",
    parse: optionalMatch(isDnsLabel),
  };
}

/** A namespace name (an RFC 1123 label); empty means "not set". */
export function namespaceName(): ValueKind<string> {
  return {
    placeholder: "NAMESPACE",
    accepted: "a namespace name (lower-case letters, digits and '-', at most 63 characters)",
    parse: optionalMatch(isDnsLabel),
  };
}

/** A DNS domain such as `cluster.local`, lower-cased, no trailing dot; empty means "not set". */
export function domainName(): ValueKind<string> {
  return {
    placeholder: "DOMAIN",
    accepted: "a DNS domain such as cluster.local (labels of lower-case letters, digits and '-')",
    parse(raw) {
      const name = raw.toLowerCase().replace(/\.$/, "");
      return raw === "" || isDnsSubdomain(name) ? ok(raw === "" ? "" : name) : bad();
    },
  };
}

/** A host to connect to: a DNS name or an IP literal (IPv6 maybe bracketed); empty is "not set". */
export function hostName(): ValueKind<string> {
  return {
    placeholder: "HOST",
    accepted: "a host name or IP address, such as ingress-nginx-controller.ingress-nginx.svc.cluster.local",
    parse(raw) {
      if (raw === "") return ok("");
      const unbracketed = raw.startsWith("[") && raw.endsWith("]") ? raw.slice(1, -1) : raw;
      if (parseIp(unbracketed) !== undefined) return ok(unbracketed);
      const name = raw.toLowerCase().replace(/\.$/, "");
      // All digits and dots is a mistyped IPv4 address, not a name: no top-level domain is numeric.
      if (/^[\d.]+$/.test(name)) return bad("not a valid IPv4 address");
      return isDnsSubdomain(name) ? ok(raw.replace(/\.$/, "")) : bad();
    },
  };
}

/** An IPv4 or IPv6 address literal (no brackets, no zone); empty means "not set". */
export function ipAddress(): ValueKind<string> {
  return {
    placeholder: "IP",
    accepted: "an IPv4 or IPv6 address such as 10.96.0.20 or fd00::20",
    parse(raw) {
      if (raw === "") return ok("");
      const parsed = parseIp(raw);
      return parsed === undefined || raw.includes("%") || raw.startsWith("[") ? bad() : ok(formatIp(parsed));
    },
  };
}

/** `key=value`, split at the first `=`; the value may be empty, the key may not. */
export function keyValue(): ValueKind<readonly [string, string]> {
  return {
    placeholder: "KEY=VALUE",
    accepted: "key=value (the key may not be empty)",
    parse(raw) {
      const equals = raw.indexOf("=");
      if (equals <= 0) return bad(equals < 0 ? "no '='" : "empty key");
      return ok([raw.slice(0, equals), raw.slice(equals + 1)] as const);
    },
  };
}

/** A comma-separated, non-empty choice among `words` (case-insensitive), in `words` order. */
export function someOf<const W extends string>(words: readonly W[]): ValueKind<readonly W[]> {
  return {
    placeholder: words.join(","),
    accepted: `one or more of ${words.join(", ")}, comma-separated`,
    parse(raw) {
      const chosen = new Set<W>();
      for (const part of raw.split(",")) {
        const item = part.trim();
        if (item === "") return bad("an empty item");
        const found = words.find((word) => word.toLowerCase() === item.toLowerCase());
        if (found === undefined) return bad(`unknown ${JSON.stringify(item)}`);
        chosen.add(found);
      }
      return ok(words.filter((word) => chosen.has(word)));
    },
  };
}
