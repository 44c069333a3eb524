import { ACTIVE_MESSAGE_PATH } from './am-path.js';
import type { RmaOperation } from './operation.js';
import { EMPTY_PATH, MESSAGE_PATH, RDMA_DIRECT_PATH, SELF_PATH, type OriginState, type RmaPath } from './paths.js';

/**
 * The paths in order of preference (the contribution point: a transport's protocol is an entry):
 * nothing to move, the rank itself, direct RDMA for contiguous transfers where the device offers
 * it, LAPI active messages where the provider has them, and messages on every device.
 */
export const RMA_PATHS: readonly RmaPath[] = [EMPTY_PATH, SELF_PATH, RDMA_DIRECT_PATH, ACTIVE_MESSAGE_PATH, MESSAGE_PATH];

/** Carry out `op` by the first path of `paths` that accepts it. */
export function startOperation(op: RmaOperation, state: OriginState, paths: readonly RmaPath[] = RMA_PATHS): void {
  for (const path of paths) {
    if (!path.accepts(op, state)) continue;
    state.uses[path.name] = (state.uses[path.name] ?? 0) + 1;
    return path.start(op, state);
  }
}
