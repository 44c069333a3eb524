import { RmrTable, type RmrWindow } from '@dapl/core/provider-kit';

/** Int32 words of one directory entry. */
const SEQ = 0;
const CONTEXT_LO = 1;
const CONTEXT_HI = 2;
const MEMORY = 3;
/** Where the bound LMR starts in its SharedArrayBuffer (bytes). */
const LMR_START = 4;
const BASE = 5;
const LENGTH = 6;
const ACCESS_AND_ZONE = 7;
const ENTRY_WORDS = 8;
export const DIRECTORY_ENTRIES = 1024;
const PROBES = 16;

/** A window found in a peer's directory: where it lies in which of the peer's memories. */
export interface DirectWindow {
  readonly memory: number;
  readonly lmrStart: number;
  readonly base: number;
  readonly length: number;
  readonly access: number;
  readonly zone: number;
}

/**
 * The IA's RMR table, which also publishes every window over a SharedArrayBuffer in a directory in
 * shared memory that the IA's peers read: an initiator that holds the window's memory (sent once
 * per buffer over the control channel) checks context, zone, bounds and rights there and copies
 * straight into or out of the target's memory, with no ring in between. The target checks the
 * access again when the request's frame arrives (the table here stays the authority); an entry is
 * cleared when its context is revoked. Each entry is guarded by a sequence word (odd while written),
 * so a reader never takes a half-written entry. One writer: the IA's thread.
 */
export class DirectoryRmrTable extends RmrTable {
  readonly directory = new Int32Array(new SharedArrayBuffer(DIRECTORY_ENTRIES * ENTRY_WORDS * 4));
  readonly #memories = new Map<ArrayBufferLike, number>();
  readonly #slots = new Map<bigint, number>();

  constructor(
    private readonly zoneOf: (window: RmrWindow) => number,
    /** A memory got its id: send it to the peers. */
    private readonly announce: (id: number, memory: SharedArrayBuffer) => void,
  ) {
    super();
  }

  override expose(window: RmrWindow): bigint {
    const context = super.expose(window);
    const buffer = window.bytes.buffer;
    if (buffer instanceof SharedArrayBuffer && window.length > 0) this.#publish(context, window, buffer);
    return context;
  }

  override revoke(context: bigint): void {
    super.revoke(context);
    const slot = this.#slots.get(context);
    if (slot === undefined) return;
    this.#slots.delete(context);
    const d = this.directory;
    const at = slot * ENTRY_WORDS;
    Atomics.add(d, at + SEQ, 1);
    Atomics.store(d, at + CONTEXT_LO, 0);
    Atomics.store(d, at + CONTEXT_HI, 0);
    Atomics.add(d, at + SEQ, 1);
  }

  #publish(context: bigint, window: RmrWindow, buffer: SharedArrayBuffer): void {
    const d = this.directory;
    const lo = Number(context & 0xffffffffn) | 0;
    const hi = Number(context >> 32n) | 0;
    for (let probe = 0; probe < PROBES; probe++) {
      const slot = (lo + probe) & (DIRECTORY_ENTRIES - 1);
      const at = slot * ENTRY_WORDS;
      if (Atomics.load(d, at + CONTEXT_LO) !== 0 || Atomics.load(d, at + CONTEXT_HI) !== 0) continue;
      let id = this.#memories.get(buffer);
      if (id === undefined) {
        id = this.#memories.size + 1;
        this.#memories.set(buffer, id);
        this.announce(id, buffer);
      }
      Atomics.add(d, at + SEQ, 1);
      Atomics.store(d, at + MEMORY, id);
      Atomics.store(d, at + LMR_START, window.bytes.byteOffset);
      Atomics.store(d, at + BASE, window.base);
      Atomics.store(d, at + LENGTH, window.length);
      Atomics.store(d, at + ACCESS_AND_ZONE, (this.zoneOf(window) << 8) | window.access);
      Atomics.store(d, at + CONTEXT_HI, hi);
      Atomics.store(d, at + CONTEXT_LO, lo);
      Atomics.add(d, at + SEQ, 1);
      this.#slots.set(context, slot);
      return;
    }
    // No free slot near the context's: the window is reached through the rings only.
  }

  /** Every memory announced so far (for a peer that connects later). */
  memories(): IterableIterator<[ArrayBufferLike, number]> {
    return this.#memories.entries();
  }
}

/** Look `context` up in a peer's directory; undefined if absent or being changed. */
export function findWindow(directory: Int32Array, context: bigint): DirectWindow | undefined {
  const lo = Number(context & 0xffffffffn) | 0;
  const hi = Number(context >> 32n) | 0;
  for (let probe = 0; probe < PROBES; probe++) {
    const at = ((lo + probe) & (DIRECTORY_ENTRIES - 1)) * ENTRY_WORDS;
    const seq = Atomics.load(directory, at + SEQ);
    if ((seq & 1) !== 0) return undefined;
    if (Atomics.load(directory, at + CONTEXT_LO) !== lo || Atomics.load(directory, at + CONTEXT_HI) !== hi) continue;
    const accessAndZone = Atomics.load(directory, at + ACCESS_AND_ZONE);
    const found: DirectWindow = {
      memory: Atomics.load(directory, at + MEMORY),
      lmrStart: Atomics.load(directory, at + LMR_START),
      base: Atomics.load(directory, at + BASE),
      length: Atomics.load(directory, at + LENGTH),
      access: accessAndZone & 0xff,
      zone: accessAndZone >>> 8,
    };
    return Atomics.load(directory, at + SEQ) === seq ? found : undefined;
  }
  return undefined;
}
