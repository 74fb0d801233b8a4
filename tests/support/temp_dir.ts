/**
 * A temporary directory that removes itself: `await using dir = await tempDir("ouroboros-x-")`
 * replaces the `makeTempDir` … `try` … `finally { remove }` every file test would otherwise repeat.
 *
 * Effects: creates a directory under the system's temporary folder and removes it (with all it
 * holds) when disposed.
 *
 * @module
 */

/** A directory that exists until it is disposed. */
export interface TempDir extends AsyncDisposable {
  /** The directory's absolute path. */
  readonly path: string;
}

/** Creates an empty directory whose name starts with `prefix`; disposing it removes it recursively. */
export async function tempDir(prefix: string): Promise<TempDir> {
  const path = await Deno.makeTempDir({ prefix });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}
