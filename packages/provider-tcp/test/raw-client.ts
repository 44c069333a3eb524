import { connect, type Socket } from 'node:net';
import {
  decodeChallenge,
  encodeFrame,
  encodeHello,
  FrameType,
  helloProof,
  HEADER_SIZE,
  newNonce,
} from '../src/wire/index.js';
import { isFrameError } from '@dapl/core/provider-kit';
import type { Endpoint, EventDispatcher, InterfaceAdapter, ProtectionZone } from '@dapl/core';

/** A raw socket to a tcp PSP, for tests that speak (or break) the wire protocol by hand. */
export class RawClient {
  private received = Buffer.alloc(0);
  private waiter: (() => void) | undefined;
  readonly closed: Promise<void>;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.waiter?.();
    });
    socket.on('error', () => {});
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
  }

  static open(host: string, port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port }, () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  /** Read exactly `n` bytes (or fail after `timeoutMs`). */
  async read(n: number, timeoutMs = 2000): Promise<Buffer> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < n) {
      if (Date.now() > deadline || this.socket.destroyed) throw new Error(`expected ${n} bytes, have ${this.received.length}`);
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        setTimeout(resolve, 20);
      });
    }
    const out = this.received.subarray(0, n);
    this.received = this.received.subarray(n);
    return out;
  }

  /** Read the server's CHALLENGE and answer with a HELLO proved with `jobKey`. */
  async handshake(jobKey: Uint8Array, connQual: number, privateData = new Uint8Array(0)): Promise<void> {
    const header = await this.read(HEADER_SIZE);
    const length = header.readUInt32LE(4);
    const challenge = decodeChallenge(await this.read(length));
    if (isFrameError(challenge)) throw new Error(challenge.message);
    const clientNonce = newNonce();
    const proof = helloProof(jobKey, challenge.serverNonce, clientNonce);
    this.socket.write(encodeFrame({ type: FrameType.HELLO }, encodeHello({ clientNonce, proof, connQual, address: '127.0.0.1', privateData })));
  }

  write(bytes: Uint8Array): void {
    if (!this.socket.destroyed) this.socket.write(bytes);
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/**
 * A raw client connected to a new endpoint of `ia` (whose job key is `jobKey`), which `before` may
 * post receives on before it accepts; the server's ACCEPT is read, so the next bytes are frames of
 * the data path.
 */
export async function rawPeer(ia: InterfaceAdapter, jobKey: Uint8Array, before: (ep: Endpoint, pz: ProtectionZone) => void = () => {}): Promise<{ raw: RawClient; ep: Endpoint; pz: ProtectionZone; evd: EventDispatcher }> {
  const listenEvd = ia.createEvd();
  const psp = await ia.createPspAny(listenEvd);
  const evd = ia.createEvd();
  const pz = ia.createPz();
  const ep = ia.createEp(pz, { recv: evd, request: evd, connect: evd });
  before(ep, pz);
  const raw = await RawClient.open(ia.address, psp.connQual);
  await raw.handshake(jobKey, psp.connQual);
  const request = await listenEvd.wait({ timeoutMs: 5_000 });
  if (request.type !== 'connection-request') throw new Error(`expected a connection request, got ${request.type}`);
  request.request.accept(ep);
  const established = await evd.wait({ timeoutMs: 5_000 });
  if (established.type !== 'connection-established') throw new Error(`expected connection-established, got ${established.type}`);
  const accept = await raw.read(HEADER_SIZE);
  await raw.read(accept.readUInt32LE(4));
  return { raw, ep, pz, evd };
}
