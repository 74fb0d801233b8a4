/**
 * Network partitions of single clients: while a user is partitioned, the fake API server takes
 * that user's requests and never answers them, as if the packets were lost on the way.
 *
 * Why a hang and not a dropped connection: a partition (a dead link, a firewall that drops, a
 * node cut off) sends nothing back, no RST and no FIN, so the client learns of it only through
 * its own deadlines; an immediate connection error is what a crashed or restarting server looks
 * like, which `stop()` already plays. (`Deno.serve` also cannot drop a connection without first
 * sending a status line.) A partition therefore tests what matters for leader election: that
 * every request of the leader is bounded by its own deadline, so a leader that cannot renew stops
 * writing within its renew deadline.
 *
 * What happens to held requests when {@linkcode PartitionTable.heal} runs:
 * - a request that changes nothing (GET: get, list, watch, discovery) is served then, as a real
 *   network delivers a request late once the path is back, so a watch opened during the
 *   partition comes to life instead of hanging until the client's idle timeout;
 * - a write (POST, PUT, PATCH, DELETE) is lost for good: never applied, and unanswered until the
 *   server stops or closes. A client that timed out on a write must not find it applied later,
 *   and a test must not see a fenced-off leader's old write land by surprise after `heal`.
 *
 * Pure: no I/O; the waiting is on promises the HTTP layer awaits.
 *
 * @module
 */

/** Which users are cut off, and the requests each has waiting for the partition to heal. */
export class PartitionTable {
  readonly #cut = new Set<string>();
  readonly #waiting = new Map<string, Set<() => void>>();

  /** Cuts `user` off: its next requests are held. */
  cut(user: string): void {
    this.#cut.add(user);
  }

  /** Ends `user`'s partition and releases its held reads. */
  heal(user: string): void {
    this.#cut.delete(user);
    const waiting = this.#waiting.get(user);
    this.#waiting.delete(user);
    for (const release of waiting ?? []) release();
  }

  /** Whether `user` is cut off now. */
  isCut(user: string): boolean {
    return this.#cut.has(user);
  }

  /** The users cut off now, sorted. */
  users(): string[] {
    return [...this.#cut].sort();
  }

  /**
   * Holds a request of a cut-off user. Resolves `true` when it is to be served now (a read whose
   * partition healed), `false` when the server stops or closes first; a write never resolves
   * `true`, since it is lost.
   */
  hold(user: string, request: { readonly method: string; readonly signal: AbortSignal }): Promise<boolean> {
    if (servedAfterHeal(request.method)) return this.#waitForHeal(user, request.signal);
    const { signal } = request;
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => signal.addEventListener("abort", () => resolve(false), { once: true }));
  }

  #waitForHeal(user: string, signal: AbortSignal): Promise<boolean> {
    if (!this.#cut.has(user)) return Promise.resolve(true);
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      let waiting = this.#waiting.get(user);
      if (waiting === undefined) {
        waiting = new Set();
        this.#waiting.set(user, waiting);
      }
      const onAbort = () => {
        waiting.delete(release);
        resolve(false);
      };
      const release = () => {
        signal.removeEventListener("abort", onAbort);
        resolve(true);
      };
      waiting.add(release);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}

/** Whether a held request is served when its partition heals: reads are, writes are lost. */
function servedAfterHeal(method: string): boolean {
  return method === "GET" || method === "HEAD";
}
