import { DatError, DatStatus, type HwCollectives, type HwGroup, type Lmr, type SimClock } from '@dapl/core';
import type { CombufFabric } from './fabric.js';
import { hardwareNodes } from './hw-group.js';
import type { BroadcastArgs, HwCollectiveKind } from './hw-rendezvous.js';

/** Who calls: one node's IA. */
export interface HwCaller {
  readonly node: number;
  readonly address: string;
  readonly clock: SimClock;
  /** The rank of `kernel.run` that owns the IA (its waits are declared); undefined when driven directly. */
  readonly rank: number | undefined;
  /** Wall-clock bound on a wait when driven directly (under `kernel.run` a missing member is a deadlock report). */
  readonly timeoutMs: number;
  readonly closed: boolean;
}

/**
 * The `hw-collectives` extension of one combuf IA: the SR8000 hardware barrier and broadcast
 * (Tatebe et al. §3.2–3.3) on rectangular or hypercube node sets of the crossbar grid. Groups are node numbers
 * (= ranks when each rank's IA is node `rank`). The members meet in the fabric (hw-rendezvous.ts).
 */
export class CombufHwCollectives implements HwCollectives {
  constructor(
    private readonly fabric: CombufFabric,
    private readonly caller: HwCaller,
  ) {}

  usable(group: HwGroup): boolean {
    return hardwareNodes(this.fabric.crossbar, this.fabric.params.maxNodes, group) !== undefined;
  }

  /**
   * The hardware barrier of `group`: resolves once every member has entered it.
   * @throws DatError INVALID_PARAMETER for a group without this IA's node, MODEL_NOT_SUPPORTED for one
   * the hardware cannot serve (see `usable`), INVALID_STATE once the IA is closed.
   */
  async barrier(group: HwGroup): Promise<void> {
    const nodes = this.checkGroup(group);
    return this.wait('barrier', nodes, undefined);
  }

  async broadcast(group: HwGroup, root: number, segment: Lmr, offset: number, length: number): Promise<void> {
    const nodes = this.checkGroup(group);
    if (!nodes.includes(root)) throw new DatError(DatStatus.INVALID_PARAMETER, `root must be a member of group [${nodes.join(',')}], got ${String(root)}`, { argument: 'root' });
    if (typeof segment !== 'object' || segment === null || !(segment.bytes instanceof Uint8Array) || segment.freed) {
      throw new DatError(DatStatus.INVALID_PARAMETER, 'segment must be a registered, not freed LMR', { argument: 'segment' });
    }
    const size = segment.bytes.length;
    if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0 || offset > size) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `offset must be an integer in 0..${size}, got ${String(offset)}`, { argument: 'offset' });
    }
    if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0 || offset + length > size) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `length must be an integer in 0..${size - offset} (the segment's ${size} bytes past offset ${offset}), got ${String(length)}`, { argument: 'length' });
    }
    return this.wait('broadcast', nodes, { root, segment, offset, length });
  }

  /** The group's nodes, sorted: this node must be one, and the set a rectangle or a hypercube of the grid. */
  private checkGroup(group: HwGroup): number[] {
    if (this.caller.closed) throw new DatError(DatStatus.INVALID_STATE, `the IA ${this.caller.address} is closed`, { argument: 'ia' });
    if (!Array.isArray(group) || !group.includes(this.caller.node)) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `group must be an array of nodes that includes this IA's node ${this.caller.node}`, { argument: 'group' });
    }
    const nodes = hardwareNodes(this.fabric.crossbar, this.fabric.params.maxNodes, group);
    if (nodes === undefined) {
      throw new DatError(
        DatStatus.MODEL_NOT_SUPPORTED,
        `group must be distinct nodes below ${this.fabric.params.maxNodes} forming a rectangle or a hypercube of the ${this.fabric.crossbar.x}-wide crossbar grid (Tatebe et al. §3.2), got [${group.slice(0, 32).map(String).join(',')}]`,
        { argument: 'group' },
      );
    }
    return nodes;
  }

  private wait(kind: HwCollectiveKind, nodes: readonly number[], broadcast: BroadcastArgs | undefined): Promise<void> {
    const c = this.caller;
    const done = this.fabric.collectives.arrive(kind, nodes, { node: c.node, clock: c.clock, broadcast });
    if (c.rank !== undefined) {
      // Written when a deadlock report is made: by then it knows who never came.
      const what = (): string => {
        const absent = this.fabric.collectives.absent(nodes);
        return `hw-collectives ${kind} on nodes [${nodes.join(',')}] at ${c.address}${absent.length === 0 ? '' : `, without ${whom(absent)}`}`;
      };
      return this.fabric.kernel.blockedOn(c.rank, what, done);
    }
    return this.withTimeout(kind, nodes, done);
  }

  /** Driven directly, nothing reports a missing member: give up after `timeoutMs` of wall-clock time. */
  private withTimeout(kind: HwCollectiveKind, nodes: readonly number[], done: Promise<void>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const missing = this.fabric.collectives.withdraw(nodes, this.caller.node);
        if (missing !== undefined) {
          reject(new DatError(DatStatus.TIMEOUT_EXPIRED, `hardware ${kind} on nodes [${nodes.join(',')}]: ${whom(missing)} did not arrive within ${this.caller.timeoutMs} ms`, { argument: 'group' }));
        }
      }, this.caller.timeoutMs);
      timer.unref();
      done.then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (e: unknown) => {
          clearTimeout(timer);
          reject(e);
        },
      );
    });
  }
}

/** `node 3`, `nodes 2, 3`. */
function whom(nodes: readonly number[]): string {
  return `node${nodes.length === 1 ? '' : 's'} ${nodes.join(', ')}`;
}
