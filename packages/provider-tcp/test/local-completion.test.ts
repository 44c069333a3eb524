import { DtoStatus, EpState, MemAccess } from '@dapl/core';
import { describe, expect, it } from 'vitest';
import { connectedEndpoints, next } from './pairs.js';

describe('tcp localCompletion', () => {
  it('completes a write before the peer has acknowledged it, and a refusal found later breaks the connection, naming it', async () => {
    const { a, b, client, clientEvd, server } = await connectedEndpoints();
    try {
      const target = new Uint8Array(64);
      const readOnly = server.pz.createRmr().bind(server.pz.registerLmr(target, MemAccess.ALL), 0, 64, MemAccess.REMOTE_READ);
      const src = client.pz.registerLmr(new Uint8Array(64).fill(7), MemAccess.LOCAL);
      client.postRdmaWrite([{ lmr: src, offset: 0, length: 64 }], 'refused', readOnly, { localCompletion: true });
      const done = await next(clientEvd);
      // Completed on the write to the socket: the target has not even looked at it yet.
      expect(done).toMatchObject({ type: 'dto-completion', cookie: 'refused', status: DtoStatus.SUCCESS });
      const lost = await next(clientEvd);
      expect(lost.type).toBe('connection-broken');
      expect(lost.type === 'connection-broken' && lost.reason).toBe('protocol error: the peer refused request 1 (DAT_DTO_ERR_REMOTE_ACCESS, DAT_PRIVILEGES_VIOLATION) after it had completed locally');
      expect(client.state).not.toBe(EpState.CONNECTED);
      expect([...target]).toEqual(new Array(64).fill(0));
    } finally {
      await a.close();
      await b.close();
    }
  });
});
