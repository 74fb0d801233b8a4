/**
 * A free list of equal-sized byte buffers, so bursts borrow buffers instead of allocating them.
 *
 * Pure: no I/O.
 *
 * @module
 */

/**
 * Keeps at most `maxFree` returned buffers; the rest go to the garbage collector, so an idle
 * proxy does not keep its peak's memory.
 */
export class BufferPool {
  /** Size of every buffer this pool hands out. */
  readonly size: number;
  readonly #maxFree: number;
  readonly #free: Uint8Array[] = [];

  /** Creates a pool of `size`-byte buffers that keeps at most `maxFree` spare ones. */
  constructor(size: number, maxFree: number) {
    if (!Number.isInteger(size) || size <= 0) {
      throw new RangeError(`Cannot create buffer pool: size must be a positive integer, got ${size}`);
    }
    this.size = size;
    this.#maxFree = maxFree;
  }

  /** A buffer of {@linkcode BufferPool.size} bytes; contents are unspecified. */
  take(): Uint8Array {
    return this.#free.pop() ?? new Uint8Array(this.size);
  }

  /** Returns a buffer taken from this pool. */
  give(buffer: Uint8Array): void {
    if (buffer.length === this.size && this.#free.length < this.#maxFree) this.#free.push(buffer);
  }

  /** Spare buffers held right now. */
  get spare(): number {
    return this.#free.length;
  }
}
