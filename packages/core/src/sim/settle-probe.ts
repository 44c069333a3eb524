/**
 * How the kernel knows that no JS work is pending (DESIGN §6: time advances only when every rank
 * is blocked). The kernel's driver runs as a `setImmediate` callback: Node runs one only after the
 * microtask and nextTick queues have drained completely, however deep the chains of awaits that
 * fed them. What can still be pending then is other `setImmediate` callbacks (a rank yielding with
 * one), which `process.getActiveResourcesInfo()` counts — minus the driver hops of every kernel in
 * the process, which are not work. Wall-clock timers and I/O do not count: a timer is a timeout
 * in real time, not work in virtual time, and I/O a rank does must be announced (`SimKernel.hold`).
 */

const HOPS_KEY = Symbol.for('@dapl/core/sim-driver-hops');

interface DriverHops {
  /** Driver hops queued (not yet running) across every kernel in this process. */
  queued: number;
}

type WithDriverHops = typeof globalThis & { [HOPS_KEY]?: DriverHops };

/** On `globalThis` under a `Symbol.for` key, so that two copies of core running kernels side by side agree. */
const driverHops: DriverHops = ((globalThis as WithDriverHops)[HOPS_KEY] ??= { queued: 0 });

/** Queue a driver hop; `callback` must call `driverHopStarted()` first thing. */
export function queueDriverHop(callback: () => void): void {
  driverHops.queued++;
  setImmediate(callback);
}

export function driverHopStarted(): void {
  driverHops.queued--;
}

/** Ref'd `setImmediate` callbacks queued by anyone but a kernel's driver (the running one is not counted). */
export function foreignImmediates(): number {
  const resources = process.getActiveResourcesInfo();
  let immediates = 0;
  for (let i = 0; i < resources.length; i++) if (resources[i] === 'Immediate') immediates++;
  return immediates - driverHops.queued;
}
