import type { SimKernel } from '../../sim/sim-kernel.js';
import type { EvdQueue } from '../evd-queue.js';

/** What an EVD is used for, as a deadlock report names it. */
export type EvdRole = 'recv' | 'request' | 'connect' | 'connection-request';

/**
 * Declares a rank's EVD waits to the kernel (`evd.wait() on the recv EVD of ib:1`), so that a
 * deadlock report says which EVD each rank waits on. The kit's IA makes plain `EvdQueue`s and has
 * no factory to override, so each EVD's `wait` is wrapped on the instance. An event already queued
 * is no wait and is not declared.
 */
export class EvdWaits {
  private readonly roles = new Map<EvdQueue, Set<EvdRole>>();
  private readonly descriptions = new Map<EvdQueue, string>();

  constructor(
    private readonly kernel: SimKernel,
    private readonly rank: number,
    /** The IA's address, for the descriptions. */
    private readonly address: string,
  ) {}

  /** Wrap `evd.wait` so that a wait on an empty queue is declared to the kernel as blocking this rank. */
  declare(evd: EvdQueue): void {
    const wait = evd.wait.bind(evd);
    evd.wait = (options) => {
      if (evd.size > 0 || evd.freed) return wait(options);
      return this.kernel.blockedOn(this.rank, this.describe(evd), wait(options));
    };
  }

  /** `evd` serves as `role` (an endpoint's or a PSP's EVD). */
  addRole(evd: EvdQueue, role: EvdRole): void {
    const roles = this.roles.get(evd) ?? new Set<EvdRole>();
    if (roles.has(role)) return;
    roles.add(role);
    this.roles.set(evd, roles);
    this.descriptions.delete(evd);
  }

  private describe(evd: EvdQueue): string {
    let text = this.descriptions.get(evd);
    if (text === undefined) {
      const roles = [...(this.roles.get(evd) ?? [])];
      const name = roles.length === 0 ? 'an EVD' : `the ${roles.join('/')} EVD`;
      text = `evd.wait() on ${name} of ${this.address}`;
      this.descriptions.set(evd, text);
    }
    return text;
  }
}
