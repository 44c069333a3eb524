import type { SimKernel } from './sim-kernel.js';

/**
 * A provider of simulated hardware (DESIGN §6): its fabric runs on `kernel`, so a job of its ranks
 * must run in this process under that kernel, in virtual time. `dapl run` finds the kernel through
 * this interface, without importing the provider.
 */
export interface SimulatedProvider {
  /** The kernel the provider's fabric schedules on and whose `clock(rank)` its IAs read. */
  readonly kernel: SimKernel;
}

/** Whether `provider` runs on a kernel: by shape, so that a provider built against another copy of core matches too. */
export function isSimulatedProvider(provider: unknown): provider is SimulatedProvider {
  if (typeof provider !== 'object' || provider === null) return false;
  const kernel = (provider as { kernel?: unknown }).kernel as Partial<Record<'run' | 'clock' | 'blockedOn', unknown>> | null | undefined;
  return typeof kernel === 'object' && kernel !== null && typeof kernel.run === 'function' && typeof kernel.clock === 'function' && typeof kernel.blockedOn === 'function';
}
