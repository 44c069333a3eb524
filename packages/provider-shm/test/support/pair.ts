// Two shm IAs of this thread with an endpoint each, connected: what the provider's own tests start from.
import { MemAccess, type InterfaceAdapter } from '@dapl/core';
import type { Logger } from 'pino';
import { expect } from 'vitest';
import { shmProvider } from '../../src/index.js';

/** An IA with a zone, an endpoint on fresh EVDs, and `bytes` of registered memory (`iov` covers it). */
export async function openSide(jobKey: Uint8Array, parameters: Record<string, unknown>, opened: InterfaceAdapter[], options: { logger?: Logger; bytes?: number } = {}) {
  const bytes = options.bytes ?? 4;
  const ia = await shmProvider.openIa({ jobKey, parameters, ...(options.logger === undefined ? {} : { logger: options.logger }) });
  opened.push(ia);
  const pz = ia.createPz();
  const evds = { recv: ia.createEvd(), request: ia.createEvd(), connect: ia.createEvd() };
  const lmr = pz.registerLmr(new Uint8Array(bytes), MemAccess.LOCAL);
  return { ia, ep: ia.createEp(pz, evds), evds, lmr, iov: [{ lmr, offset: 0, length: bytes }] };
}

export type Side = Awaited<ReturnType<typeof openSide>>;

/** Connect `client`'s endpoint to `server`'s (a PSP of the server's IA); both see the connection established. */
export async function connectSides(client: Side, server: Side, timeoutMs = 30_000): Promise<void> {
  const listen = server.ia.createEvd();
  const psp = await server.ia.createPspAny(listen);
  client.ep.connect(server.ia.address, psp.connQual);
  const request = await listen.wait({ timeoutMs });
  if (request.type !== 'connection-request') throw new Error(request.type);
  request.request.accept(server.ep);
  for (const side of [client, server]) expect((await side.evds.connect.wait({ timeoutMs })).type).toBe('connection-established');
}
