import { MemAccess, type ActiveMessages, type AmCounter, type AmPlacement, type Endpoint, type Iov, type ProtectionZone } from '@dapl/core';
import { ErrorClass, MpiError } from '../api/errors.js';
import { encodeControl, type ControlHandler, type RmaChannel } from './channel.js';
import { describe, issue, payload, type RmaPath } from './paths.js';
import { RmaFlag } from './wire.js';

/** Header handler ids of windows: this base plus the window's context id (which its members agreed on). */
const HANDLER_BASE = 0x524d_0000;

/**
 * A window's route over LAPI's active messages (IBM's patent on MPI-2 one-sided communication
 * over LAPI, as written): an operation is one `amsend` whose user header is the control header with
 * the target's datatype program (a header of any length) and the origin's rank (in the header's
 * value field); the target's header handler places the data right behind a copy of that header,
 * and the completion handler, run in the dispatcher's context (no thread switch), applies the
 * result as the control message it is, counted like any other.
 */
export class AmRoute {
  /**
   * Per target, LAPI's completion counter (incremented here once the target's completion handler
   * has run), the operations sent and those a flush has waited for: a flush waits for the
   * difference on the counter instead of asking the target (the patent's counters in place of
   * acknowledgements).
   */
  readonly #completions: AmCounter[];
  readonly #sent: Float64Array;
  readonly #waited: Float64Array;
  readonly #lost: (MpiError | undefined)[];
  readonly #onLost: ((error: MpiError) => void)[][];

  private constructor(
    readonly am: ActiveMessages,
    readonly pz: ProtectionZone,
    /** Connected endpoints by window rank (undefined for this rank). */
    readonly endpoints: readonly (Endpoint | undefined)[],
    readonly handler: number,
  ) {
    this.#completions = endpoints.map(() => am.createCounter());
    this.#sent = new Float64Array(endpoints.length);
    this.#waited = new Float64Array(endpoints.length);
    this.#lost = endpoints.map(() => undefined);
    this.#onLost = endpoints.map(() => []);
  }

  /** Send one operation (`header` the user header, then `data`) to window rank `target`, counted. */
  send(target: number, header: Uint8Array, data: Iov): void {
    this.am.amsend(this.endpoints[target]!, this.handler, header, data, { completion: this.#completions[target] });
    this.#sent[target]++;
  }

  /** Settles once every operation sent to `target` has been applied there; fails if `target` is lost. */
  async applied(target: number): Promise<void> {
    const n = this.#sent[target] - this.#waited[target];
    if (n === 0) return;
    this.#waited[target] += n;
    const lost = this.#lost[target];
    if (lost !== undefined) throw lost;
    await Promise.race([this.#completions[target].wait(n), new Promise<never>((_, reject) => this.#onLost[target].push(reject))]);
  }

  /** `target` was lost: a flush waiting on its counter fails, and every later one. */
  lostPeer(target: number, error: MpiError): void {
    this.#lost[target] ??= error;
    const waiting = this.#onLost[target];
    this.#onLost[target] = [];
    for (const reject of waiting) reject(error);
  }

  /**
   * The route of a window whose provider has active messages (else undefined): registers the
   * window's header handler, which gives what arrives to `apply`, and connects to every member
   * first, so that operations go out in the order they are issued.
   */
  static async open(channel: RmaChannel, am: ActiveMessages | undefined, connections: { readonly pz: ProtectionZone; endpoint(peer: number): Promise<Endpoint> }, apply: ControlHandler): Promise<AmRoute | undefined> {
    if (am === undefined) return undefined;
    const endpoints = await Promise.all(channel.worldRanks.map((w, r) => (r === channel.rank ? undefined : connections.endpoint(w))));
    const pz = connections.pz;
    const route = new AmRoute(am, pz, endpoints, HANDLER_BASE + channel.context);
    am.registerHandler(route.handler, (uhdr, dataLength): AmPlacement => {
      const message = new Uint8Array(uhdr.length + dataLength);
      message.set(uhdr);
      channel.clock.chargeCopy(uhdr.length);
      const origin = new DataView(uhdr.buffer, uhdr.byteOffset, uhdr.length).getFloat64(16, true);
      const lmr = dataLength === 0 ? undefined : pz.registerLmr(message, MemAccess.LOCAL);
      return {
        iov: lmr === undefined ? [] : [{ lmr, offset: uhdr.length, length: dataLength }],
        inContext: true,
        completion: () => {
          lmr?.free();
          apply(origin, message, message.length);
        },
      };
    });
    return route;
  }
}

/**
 * Over active messages where the provider has them (lapi): every operation the messages path would
 * carry, as one `amsend` whatever its size. The target counts it like a control message, so fence,
 * PSCW, lock and flush work unchanged; replies of fetches come back as messages.
 */
export const ACTIVE_MESSAGE_PATH: RmaPath = {
  name: 'active-messages',
  describes: "non-contiguous put / get, accumulate and fetches: one LAPI amsend each, the target's datatype program in its header, applied by the completion handler in the dispatcher's context",
  accepts: (_op, state) => state.am !== undefined,
  start(op, state) {
    const route = state.am!;
    const { h, program } = describe(op);
    const data = payload(op, state);
    h.dataBytes = data === undefined ? 0 : data.size;
    if (program !== undefined) h.flags |= RmaFlag.PROGRAM;
    h.value = state.channel.rank;
    // The header and its program (of any length: LAPI carries headers over several packets), then the data.
    const message = encodeControl(h, program, data, state.channel.clock);
    const headerLength = message.length - h.dataBytes;
    // Counted at the target like a control message; a flush waits on LAPI's completion counter, so
    // an operation without a reply is not left for the flush to confirm by message.
    const done = issue(op, state, 1, false);
    const lmr = h.dataBytes === 0 ? undefined : route.pz.registerLmr(message, MemAccess.LOCAL);
    try {
      // LAPI copies the data out at the call: the registration is not needed after it.
      route.send(op.target, message.subarray(0, headerLength), lmr === undefined ? [] : [{ lmr, offset: headerLength, length: h.dataBytes }]);
      done();
    } catch (error) {
      done(new MpiError(ErrorClass.ERR_PROC_FAILED, `amsend to rank ${op.target} failed: ${String(error)}`, { cause: error }));
    } finally {
      lmr?.free();
    }
  },
};
