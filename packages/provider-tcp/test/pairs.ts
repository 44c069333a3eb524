import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { DatEvent, Endpoint, EventDispatcher, InterfaceAdapter } from '@dapl/core';
import { expect } from 'vitest';
import { tcpProvider } from '../src/index.js';

/** Sockets and servers a test opened; `closeSockets` (an `afterEach`) ends them. */
export const sockets: Socket[] = [];
const servers: Server[] = [];

export function closeSockets(): void {
  for (const s of sockets.splice(0)) s.destroy();
  for (const s of servers.splice(0)) s.close();
}

/** A pausing server and a client connected to it: the accepted socket and the client. */
export async function socketPair(): Promise<{ accepted: Socket; client: Socket }> {
  const server = createServer({ pauseOnConnect: true });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = connect((server.address() as { port: number }).port, '127.0.0.1');
  sockets.push(client);
  const [accepted] = (await once(server, 'connection')) as [Socket];
  sockets.push(accepted);
  return { accepted, client };
}

/** Resolves once `check` holds; fails after 5 s. */
export async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

export async function next(evd: EventDispatcher): Promise<DatEvent> {
  return evd.wait({ timeoutMs: 5_000 });
}

export interface ConnectedEndpoints {
  readonly a: InterfaceAdapter;
  readonly b: InterfaceAdapter;
  readonly client: Endpoint;
  readonly clientEvd: EventDispatcher;
  readonly server: Endpoint;
  readonly serverEvd: EventDispatcher;
}

/** Provider parameters of the server's IA (`a`) and the client's (`b`). */
export interface PairParameters {
  readonly server?: Readonly<Record<string, unknown>>;
  readonly client?: Readonly<Record<string, unknown>>;
}

/** Two connected tcp endpoints in this process, each with one EVD for everything; both sides established. */
export async function connectedEndpoints(parameters: PairParameters = {}): Promise<ConnectedEndpoints> {
  const jobKey = randomBytes(32);
  const a = await tcpProvider.openIa({ jobKey, parameters: parameters.server });
  const b = await tcpProvider.openIa({ jobKey, parameters: parameters.client });
  const serverEvd = a.createEvd();
  const psp = await a.createPspAny(serverEvd);
  const server = a.createEp(a.createPz(), { recv: serverEvd, request: serverEvd, connect: serverEvd });
  const clientEvd = b.createEvd();
  const client = b.createEp(b.createPz(), { recv: clientEvd, request: clientEvd, connect: clientEvd });
  client.connect(a.address, psp.connQual);
  const cr = await next(serverEvd);
  if (cr.type !== 'connection-request') throw new Error(`expected a connection request, got ${cr.type}`);
  cr.request.accept(server);
  expect((await next(clientEvd)).type).toBe('connection-established');
  expect((await next(serverEvd)).type).toBe('connection-established');
  return { a, b, client, clientEvd, server, serverEvd };
}
