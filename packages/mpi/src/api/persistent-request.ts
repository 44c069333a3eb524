import { bufferSpan, type BufferOptions } from './buffer-span.js';
import { BUFFER_OPTION_KEYS, requireDest, requireOptions, requireRecvTag, requireSource, requireTag } from './check.js';
import type { SendOptions } from './p2p-options.js';
import { ErrorClass, MpiError } from './errors.js';
import { INACTIVE, Request } from './request.js';

/**
 * A persistent request (MPI_Send_init, MPI_Recv_init …): the arguments of one operation, bound
 * once, started any number of times. Inactive until `start()` and again once a completion has been
 * handed out (by `wait`, `test` or the array calls): an inactive one waits and tests as complete
 * with the empty status, and waitAny skips it. Each start runs the non-blocking call (`isend` in
 * the request's mode, or `irecv`) with the bound arguments, so a start costs what that call costs.
 */
export class PersistentRequest extends Request {
  readonly #begin: () => Request;
  readonly #what: string;
  #active = false;

  /** @internal `begin` starts the operation; its arguments were checked when the request was made. */
  constructor(begin: () => Request, what: string) {
    super(INACTIVE);
    this.#begin = begin;
    this.#what = what;
    this.deactivate();
  }

  override get persistent(): boolean {
    return true;
  }

  /** Whether started and its completion not yet handed out. */
  get active(): boolean {
    return this.#active;
  }

  /** Start the operation (MPI_Start): ERR_REQUEST while active or once freed. */
  override start(): void {
    this.requireStartable('request');
    // A call that throws (its communicator freed since) leaves the request inactive.
    this.activate(this.#begin());
    this.#active = true;
  }

  protected override requireStartable(argument: string): void {
    this.requireLive(argument);
    if (this.#active) throw new MpiError(ErrorClass.ERR_REQUEST, `${argument} (${this.#what}) is active: wait for or test it to completion before starting it again`, { argument });
  }

  protected override deactivate(): void {
    super.deactivate();
    this.#active = false;
  }
}


type SendMode = NonNullable<SendOptions['mode']>;

/** What `sendInit` and its kin need of the communicator (a `Comm`). */
interface PersistentHost {
  readonly size: number;
  readonly freed: boolean;
  readonly name: string;
  isend(buf: ArrayBufferView, dest: number, tag: number, options?: SendOptions): Request;
  irecv(buf: ArrayBufferView, source: number, tag: number, options?: BufferOptions): Request;
}

/** MPI_Send_init and kin: the arguments checked now, each `start()` an `isend` in `mode`. */
export function sendInit(comm: PersistentHost, buf: ArrayBufferView, dest: number, tag: number, options: BufferOptions | undefined, mode: SendMode): PersistentRequest {
  requireLiveComm(comm);
  const o = requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'sendInit');
  const to = requireDest(dest, comm.size, 'dest');
  const t = requireTag(tag, 'tag');
  bufferSpan(buf, o, 'buf');
  const bound: SendOptions = { ...o, mode };
  return new PersistentRequest(() => comm.isend(buf, to, t, bound), `${mode} send to ${to} tag ${t} on ${comm.name}`);
}

/** MPI_Recv_init: the arguments checked now, each `start()` an `irecv`. */
export function recvInit(comm: PersistentHost, buf: ArrayBufferView, source: number, tag: number, options: BufferOptions | undefined): PersistentRequest {
  requireLiveComm(comm);
  const o = requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'recvInit');
  const from = requireSource(source, comm.size, 'source');
  const t = requireRecvTag(tag, 'tag');
  bufferSpan(buf, o, 'buf');
  return new PersistentRequest(() => comm.irecv(buf, from, t, o), `receive from ${from} tag ${t} on ${comm.name}`);
}

function requireLiveComm(comm: PersistentHost): void {
  if (comm.freed) throw new MpiError(ErrorClass.ERR_COMM, `${comm.name} has been freed`, { argument: 'comm' });
}
