/**
 * Who a request to the fake API server comes from: bearer tokens mapped to user names, so that
 * several clients of one fake (two or three controller processes electing a leader) can be told
 * apart in the audit log, aimed at by a fault, or cut off by a partition.
 *
 * Authentication is on as soon as a token is known (the single `token` option, whose user is
 * {@linkcode TOKEN_USER}, or any entry of `users`). Then a request must present one of them as
 * `Authorization: Bearer <token>` (the scheme is case-insensitive, as the real server's bearer
 * authenticator reads it); anything else is refused, and the HTTP layer answers 401 with the
 * real server's bare `Unauthorized` Status. With authentication off every request is accepted
 * and its user is `""`.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** The user name of the single `token` option. */
export const TOKEN_USER = "admin";

/** Tokens and their users, changeable at runtime (`setToken`). */
export class Authenticator {
  #token: string | undefined;
  readonly #users: ReadonlyMap<string, string>;

  /** `users` maps bearer tokens to user names; `token` is one more token, for {@linkcode TOKEN_USER}. */
  constructor(options: { token?: string | undefined; users?: Readonly<Record<string, string>> | undefined }) {
    this.#token = options.token;
    const users = new Map<string, string>();
    for (const [token, user] of Object.entries(options.users ?? {})) {
      if (token === "") throw new Error("a user's bearer token must not be empty");
      if (user === "") throw new Error(`the user of a bearer token must have a name`);
      if (token === options.token && user !== TOKEN_USER) {
        throw new Error(`the token "${token}" is both the admin token and the token of user "${user}"`);
      }
      users.set(token, user);
    }
    this.#users = users;
  }

  /** Replaces the single token (token rotation); `undefined` removes it. The `users` stay. */
  setToken(token: string | undefined): void {
    this.#token = token;
  }

  /** Whether requests must carry a known token. */
  get enabled(): boolean {
    return this.#token !== undefined || this.#users.size > 0;
  }

  /** Every user name a request can have right now (`[""]` with authentication off). */
  userNames(): string[] {
    if (!this.enabled) return [""];
    const names = new Set(this.#users.values());
    if (this.#token !== undefined) names.add(TOKEN_USER);
    return [...names].sort();
  }

  /**
   * The user of a request with this `Authorization` header: `""` when authentication is off, the
   * token's user when the token is known, `undefined` when the request must be refused.
   */
  authenticate(authorization: string | null): string | undefined {
    if (!this.enabled) return "";
    const token = bearerToken(authorization);
    if (token === undefined) return undefined;
    const user = this.#users.get(token);
    if (user !== undefined) return user;
    return token === this.#token ? TOKEN_USER : undefined;
  }
}

/** The token of `Authorization: Bearer <token>` (scheme in any case), or undefined. */
export function bearerToken(authorization: string | null): string | undefined {
  if (authorization === null) return undefined;
  const parts = authorization.split(" ");
  if (parts.length < 2 || parts[0]!.toLowerCase() !== "bearer") return undefined;
  const token = parts[1]!;
  return token === "" ? undefined : token;
}
