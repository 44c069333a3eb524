import { describeUnknownKeys, isDatError, jobConfig, parseParameterValue, rankContext, runtimeFromEnvironment, startJob, type DaplConfig, type DaplJob, type RankContext } from '@dapl/core';
import { createMpiModule } from '../mpi-module.js';
import { MpiDevice, PointToPoint } from '../tokens.js';
import { AttachedBuffer } from './attached-buffer.js';
import { checkOptionKeys } from './check.js';
import { Comm } from './comm.js';
import { createIntercomm } from './intercomm-create.js';
import { finalizeAtExit } from './finalize-at-exit.js';
import { drainSends } from './finalize.js';
import { ErrorClass, MpiError, describeValue } from './errors.js';
import { Group } from './group.js';
import { MPI_PARAMETERS, type MpiParameters } from './mpi-parameters.js';
import { MpiState, SELF_CONTEXT, WORLD_CONTEXT } from './mpi-state.js';
import { processorName } from './processor-name.js';
import { dimsCreate } from '../topo/dims-create.js';
// After ./comm.js: the topology communicators extend Comm.
import { TOPOLOGIES } from '../topo/create.js';

/** Options of `Mpi.init`. */
export interface MpiInitOptions {
  /** Default: the rank's configuration (flags none, environment, dapl.config.json, defaults). */
  readonly config?: DaplConfig;
  /** Values that beat the configuration's `mpi` section (e.g. in tests). */
  readonly parameters?: Partial<MpiParameters>;
}

const INIT_OPTION_KEYS: readonly string[] = ['config', 'parameters'];

/** Where a rank's MPI lives: per rank context (in-process and simulated ranks share the module), else per process. */
const PROCESS = {};
type Slot = { phase: 'initializing' } | { phase: 'ready'; mpi: Mpi } | { phase: 'finalized' };
const slots = new WeakMap<RankContext | typeof PROCESS, Slot>();

function slotKey(): RankContext | typeof PROCESS {
  return rankContext.getStore() ?? PROCESS;
}

/**
 * A rank's MPI library (MPI_Init … MPI_Finalize). `Mpi.init()` finds the runtime and the provider
 * from the launcher, the environment and the configuration, as `startJob` does, so one program runs
 * under `dapl run`, mpiexec, plain `node` (a job of one) and the simulator.
 */
export class Mpi {
  readonly #state: MpiState;
  readonly world: Comm;
  readonly self: Comm;
  readonly parameters: MpiParameters;
  /** Removes the finalize-at-exit hook (`finalizeAtExit`); undefined for in-process ranks. */
  #stopAtExit: (() => void) | undefined;

  private constructor(state: MpiState, parameters: MpiParameters) {
    this.#state = state;
    this.parameters = parameters;
    const me = state.job.rank;
    this.world = new Comm(state, Group.world(state.job.size, me), WORLD_CONTEXT, 'world');
    this.self = new Comm(state, new Group([me], me), SELF_CONTEXT, 'self');
    state.world = this.world;
    state.self = this.self;
    state.intercomms = { create: createIntercomm };
  }

  /** Join the job (MPI_Init). Once per rank: a second call, or one after `finalize`, is ERR_OTHER. */
  static async init(options: MpiInitOptions = {}): Promise<Mpi> {
    const key = slotKey();
    const slot = slots.get(key);
    if (slot !== undefined) {
      throw new MpiError(ErrorClass.ERR_OTHER, slot.phase === 'finalized' ? 'Mpi.init() after Mpi.finalize(): MPI can be initialized once per rank' : 'Mpi.init() was already called in this rank');
    }
    if (typeof options !== 'object' || options === null) throw new MpiError(ErrorClass.ERR_ARG, `options must be an object, got ${describeValue(options)}`, { argument: 'options' });
    checkOptionKeys(options, INIT_OPTION_KEYS, 'Mpi.init');
    slots.set(key, { phase: 'initializing' });
    try {
      const mpi = await Mpi.#start(options);
      slots.set(key, { phase: 'ready', mpi });
      return mpi;
    } catch (error) {
      slots.delete(key);
      throw error;
    }
  }

  /** The rank's initialized library; ERR_OTHER before `init` or after `finalize`. */
  static current(): Mpi {
    const slot = slots.get(slotKey());
    if (slot?.phase === 'ready') return slot.mpi;
    throw new MpiError(ErrorClass.ERR_OTHER, slot?.phase === 'finalized' ? 'MPI has been finalized in this rank' : 'MPI is not initialized in this rank: call `await Mpi.init()` first');
  }

  /** Whether `init` has been called in this rank (MPI_Initialized), finalized or not. */
  static isInitialized(): boolean {
    return slots.get(slotKey()) !== undefined;
  }

  /** Whether `finalize` has completed in this rank (MPI_Finalized). */
  static isFinalized(): boolean {
    return slots.get(slotKey())?.phase === 'finalized';
  }

  static async #start(options: MpiInitOptions): Promise<Mpi> {
    const config = options.config ?? (await jobConfig());
    const parameters = resolveParameters(config, options.parameters);
    const runtime = await runtimeFromEnvironment();
    // The one composition root: core's bindings and MPI's module; the device exists before the
    // connections start, through its EndpointPreparer binding.
    const job = await startJob({ config, runtime, modules: [createMpiModule(parameters)] });
    const device = job.container.get<MpiDevice>(MpiDevice);
    const p2p = job.container.get(PointToPoint);
    try {
      await device.attach({ ia: job.ia, connections: job.connections, runtime, logger: job.logger });
    } catch (error) {
      await job.finish().catch(() => undefined);
      throw error;
    }
    const mpi = new Mpi(new MpiState(job, p2p, device, parameters, TOPOLOGIES), parameters);
    // A rank that is the whole process finalizes at exit if its program does not (as mpi4py does).
    if (rankContext.getStore() === undefined) {
      const exiting = {
        rank: mpi.rank,
        finalize: () => mpi.finalize(),
        sendsInFlight: () => (device.counters().sendsInFlight ?? device.pendingSends?.().length ?? 0) > 0,
        drain: () => device.drain(),
        drainBoundMs: parameters.finalizeTimeout * 1000,
      };
      mpi.#stopAtExit = finalizeAtExit(exiting, job);
    }
    if (parameters.protocolInfo && job.rank === 0) process.stdout.write(`${device.protocolInfo().join('\n')}\n`);
    return mpi;
  }

  get rank(): number {
    return this.#state.worldRank;
  }

  get size(): number {
    return this.#state.job.size;
  }

  /** The job under this library (its IA, runtime and connections), for tools and benchmarks that work beside MPI at the DAT level. */
  get job(): DaplJob {
    return this.#state.job;
  }

  /** The provider this job runs on. */
  get provider(): string {
    return this.#state.job.ia.provider.name;
  }

  /** Seconds on the rank's clock (MPI_Wtime): wall time, or virtual time under the simulator. */
  wtime(): number {
    return this.#state.job.runtime.clock.now();
  }

  /** The name of the host this rank runs on (MPI_Get_processor_name); see `processorName`. */
  getProcessorName(): string {
    return processorName(this.#state);
  }

  /** A balanced grid of `n` processes: `dims`' zero entries filled (MPI_Dims_create); see `dimsCreate`. */
  static dimsCreate(n: number, dims: readonly number[]): number[] {
    return dimsCreate(n, dims);
  }

  /** Resolution of `wtime` in seconds (MPI_Wtick). */
  wtick(): number {
    return this.#state.job.runtime.clock.tick;
  }

  /**
   * `bytes` of zeroed memory for message buffers (MPI_Alloc_mem): the provider's fastest kind, from
   * its protection zone's `allocate` — on shm a SharedArrayBuffer its peers' threads reach directly,
   * elsewhere plain memory. Use it for large buffers that move often.
   */
  allocMem(bytes: number): Uint8Array {
    this.#state.requireActive();
    if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes < 0 || bytes > 2 ** 32) {
      throw new MpiError(ErrorClass.ERR_ARG, `bytes must be a byte count in [0, 2^32], got ${describeValue(bytes)}`, { argument: 'bytes' });
    }
    return this.#state.job.connections.pz.allocate(bytes);
  }

  /** Give buffered sends `bytes` (a byte count to allocate, or memory to use) (MPI_Buffer_attach). */
  bufferAttach(bytes: number | Uint8Array): void {
    this.#state.requireActive();
    if (this.#state.attached !== undefined) throw new MpiError(ErrorClass.ERR_BUFFER, 'a buffer is already attached: detach it first', { argument: 'bytes' });
    let memory: Uint8Array;
    if (bytes instanceof Uint8Array) memory = bytes;
    else if (typeof bytes === 'number' && Number.isInteger(bytes) && bytes >= 0 && bytes <= 2 ** 31 - 1) memory = new Uint8Array(bytes);
    else throw new MpiError(ErrorClass.ERR_BUFFER, `bytes must be a Uint8Array or a byte count in [0, 2^31 - 1], got ${describeValue(bytes)}`, { argument: 'bytes' });
    this.#state.attached = new AttachedBuffer(memory);
  }

  /**
   * Wait for the buffered sends in flight, then hand the buffer back (MPI_Buffer_detach). If one of
   * them failed after `bsend` had returned, the buffer is detached all the same and this rejects
   * with that failure's class. (`finalize` does not report such failures: detach first to see them.)
   */
  async bufferDetach(): Promise<Uint8Array> {
    this.#state.requireActive();
    const attached = this.#state.attached;
    if (attached === undefined) throw new MpiError(ErrorClass.ERR_BUFFER, 'no buffer is attached', { argument: 'buffer' });
    // Detached at once: a buffered send started from now on finds no buffer, so none can take a
    // region of this memory while we wait for those already in flight.
    this.#state.attached = undefined;
    const runtime = this.#state.job.runtime;
    const idle = attached.idle();
    await (runtime.declareWait === undefined ? idle : runtime.declareWait('MPI bufferDetach, waiting for the buffered sends in flight', idle));
    // A buffered send's caller was told it was done when its data was copied: a transfer that
    // failed later is reported here, where the library waits for them (MPICH does the same).
    const { first, count } = attached.failures;
    if (first !== undefined) {
      const which = count === 1 ? 'a buffered send' : `${count} buffered sends`;
      throw new MpiError(first.errorClass, `${which} from the detached buffer failed after bsend had returned (the buffer is detached all the same); the first: ${first.detail}`, { cause: first });
    }
    return attached.bytes;
  }

  /** Which protocol serves which message sizes (what `DAPL_MPI_PROTOCOL_INFO=1` prints). */
  protocolInfo(): string[] {
    return this.#state.device.protocolInfo();
  }

  /**
   * The device's counters (unexpected bytes held, eager and rendezvous sends, credit stalls …), the
   * collectives' (hardware and software barriers and broadcasts), and the blocking calls' polling
   * (`waitsPolledDone`: waits whose request completed while they polled; `waitsPolledOut`: waits that
   * polled their window out and then awaited; both 0 where the transport is not polled, see `mpi.pollWait`).
   */
  counters(): Readonly<Record<string, number>> {
    const polled = this.#state.polledWait;
    return { ...this.#state.device.counters(), ...this.#state.collCounters, waitsPolledDone: polled?.completed ?? 0, waitsPolledOut: polled?.awaited ?? 0 };
  }

  /**
   * Leave the job (MPI_Finalize): waits for this rank's sends (at most `mpi.finalizeTimeout` s, then
   * MPI_ERR_PENDING naming them), then for every rank. Collective. Whatever fails, the connections,
   * the IA and the runtime are closed, so the process can end.
   */
  async finalize(): Promise<void> {
    this.#state.requireActive();
    this.#state.finalized = true;
    slots.set(slotKey(), { phase: 'finalized' });
    this.#stopAtExit?.();
    let failure: unknown;
    try {
      await drainSends(this.#state);
    } catch (error) {
      failure = error;
    }
    const device = this.#state.device;
    for (const close of [() => device.closeConnections?.(), () => this.#state.job.finish(), () => device.close()]) {
      try {
        await close();
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
  }

  /** End every rank of the job with `code` (MPI_Abort). */
  abort(code = 1, message = `MPI_Abort(${code}) called by rank ${this.rank}`): Promise<never> {
    if (typeof code !== 'number' || !Number.isInteger(code)) throw new MpiError(ErrorClass.ERR_ARG, `code must be an integer, got ${describeValue(code)}`, { argument: 'code' });
    return this.#state.job.runtime.abort(code, message);
  }
}

function resolveParameters(config: DaplConfig, overrides: Partial<MpiParameters> | undefined): MpiParameters {
  const unknown = config.unknownKeys('mpi', MPI_PARAMETERS);
  if (unknown.length > 0) {
    const known = MPI_PARAMETERS.map((p) => `mpi.${p.name}`).join(', ');
    throw new MpiError(ErrorClass.ERR_ARG, `unknown MPI setting ${describeUnknownKeys(unknown)}; known: ${known}`, { argument: unknown[0].key });
  }
  let values: Record<string, unknown>;
  try {
    values = { ...config.resolveSection('mpi', MPI_PARAMETERS).values };
  } catch (error) {
    throw new MpiError(ErrorClass.ERR_ARG, (error as Error).message, { cause: error, argument: (error as { argument?: string }).argument });
  }
  for (const [name, value] of Object.entries(overrides ?? {})) {
    const spec = MPI_PARAMETERS.find((p) => p.name === name);
    if (spec === undefined) throw new MpiError(ErrorClass.ERR_ARG, `options.parameters.${name} is not an MPI setting`, { argument: `options.parameters.${name}` });
    values[name] = checkOverride(spec, value, `options.parameters.${name}`);
  }
  return values as unknown as MpiParameters;
}

/** An override is parsed as a configuration value would be; its error becomes an MPI_ERR_ARG. */
function checkOverride(spec: (typeof MPI_PARAMETERS)[number], value: unknown, argument: string): unknown {
  try {
    return parseParameterValue(spec, value, 'options.parameters', argument);
  } catch (error) {
    if (!isDatError(error)) throw error;
    throw new MpiError(ErrorClass.ERR_ARG, error.message, { argument, cause: error });
  }
}
