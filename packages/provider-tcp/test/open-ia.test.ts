import { DatStatus, isDatError } from '@dapl/core';
import { describe, expect, it } from 'vitest';
import { tcpProvider } from '../src/index.js';

describe('tcp openIa', () => {
  it('refuses an interface this host does not have, naming tcp.interface (192.0.2.1 is a documentation address)', async () => {
    const refused = await tcpProvider.openIa({ parameters: { interface: '192.0.2.1' } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isDatError(refused, DatStatus.INVALID_PARAMETER)).toBe(true);
    expect((refused as Error).message).toContain('tcp.interface "192.0.2.1" is not an address of this host: cannot listen on it (EADDRNOTAVAIL)');
    expect((refused as { argument?: string }).argument).toBe('tcp.interface');
  });

  it('opens on a local interface and on the wildcard', async () => {
    for (const iface of ['127.0.0.1', '0.0.0.0']) {
      const ia = await tcpProvider.openIa({ parameters: { interface: iface } });
      expect(ia.query().address).not.toBe('');
      await ia.close();
    }
  });
});
