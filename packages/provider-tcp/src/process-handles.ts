import type { Server, Socket } from 'node:net';

/**
 * An IA's listeners and sockets, ref'd or unref'd together (`InterfaceAdapter.keepProcessAlive`):
 * an upper library that holds the process while it waits lets the IA's handles stop doing so, and a
 * program whose code has ended can then exit (or finalize at exit) instead of hanging on them.
 */
export class ProcessHandles {
  readonly #handles = new Set<Server | Socket>();
  #alive = true;

  track(handle: Server | Socket): void {
    if (!this.#alive) handle.unref();
    this.#handles.add(handle);
    handle.once('close', () => this.#handles.delete(handle));
  }

  keepAlive(alive: boolean): void {
    this.#alive = alive;
    for (const handle of this.#handles) {
      if (alive) handle.ref();
      else handle.unref();
    }
  }
}
