import type { InterfaceAdapter } from '../dat/ia.js';

/**
 * The IAs a container opened, so that `closeContainer` closes exactly those (inversify keeps a
 * failed async singleton as a rejected promise, so asking the container would re-throw).
 */
export class OpenedInterfaceAdapters {
  readonly #open = new Set<InterfaceAdapter>();

  add(ia: InterfaceAdapter): void {
    this.#open.add(ia);
  }

  get size(): number {
    return this.#open.size;
  }

  async closeAll(): Promise<void> {
    const ias = [...this.#open];
    this.#open.clear();
    await Promise.all(ias.map((ia) => ia.close()));
  }
}
