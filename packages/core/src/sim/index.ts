/**
 * The simulator's virtual-time kernel (DESIGN §6): an event heap, per-rank virtual clocks, the
 * driver that advances time only when every rank is blocked, deadlock reports, and a LogGP-like
 * network model with topologies (SimNetwork books a target's NIC from a kernel event, in arrival
 * order). Simulated providers (ib, lapi, combuf) build on it.
 */
export { EventHeap } from './event-heap.js';
export { SimClock, type VirtualTimeSource } from './sim-clock.js';
export { SimKernel, type SimKernelOptions, type SimRankMain } from './sim-kernel.js';
export type { WaitDescription } from './sim-rank-table.js';
export { SimDeadlockError, isSimDeadlockError } from './sim-deadlock-error.js';
export type { SimAbort, SimBlockedRank, SimOutcome, SimRankFailure, SimRunOptions, SimRunResult, SimStats } from './sim-run.js';
export { NetworkModel, type NetworkParameters } from './network-model.js';
export { SimNetwork } from './sim-network.js';
export { Crossbar2D, Hypercube, flatTopology, type Topology } from './topology.js';
export { isSimulatedProvider, type SimulatedProvider } from './simulated-provider.js';
