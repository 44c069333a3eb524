import { expect } from 'vitest';
import { EXTENSION_NAMES } from '../../dat/extensions.js';
import { MemAccess, type RmrTriplet } from '../../dat/memory.js';
import { DTO_CAPABILITIES, type DtoCapability, type IaOptions } from '../../dat/provider.js';
import { DatStatus, DtoStatus } from '../../dat/status.js';
import type { Harness } from './harness.js';
import { expectThrowsSync } from './helpers.js';
import { connectPair, expectRoundTrip, region, seg, type Pair } from './pair.js';

interface Armed extends Pair {
  readonly window: RmrTriplet;
  readonly post: (capability: DtoCapability, cookie: string) => void;
}

/** A connected pair opened with `iaOptions`, a remote window on the server, and a way to post each optional DTO. */
async function armedPair(h: Harness, iaOptions?: IaOptions): Promise<Armed> {
  const pair = await connectPair(h, { iaOptions });
  const target = region(pair.server.pz, 256);
  const window = pair.server.pz.createRmr().bind(target.lmr, 0, 256, MemAccess.REMOTE);
  const src = region(pair.client.pz, 64, MemAccess.LOCAL);
  const iov = [seg(src.lmr, 0, 32)];
  const post = (capability: DtoCapability, cookie: string): void => {
    if (capability === 'rdma-read') pair.client.ep.postRdmaRead(iov, cookie, window);
    else pair.client.ep.postRdmaWrite(iov, cookie, window, capability === 'rdma-write-immediate' ? { immediate: 5 } : {});
  };
  return { ...pair, window, post };
}

const OP_OF: Record<DtoCapability, string> = { 'rdma-write': 'postRdmaWrite', 'rdma-read': 'postRdmaRead', 'rdma-write-immediate': 'postRdmaWrite' };

/** What a provider does not offer — by declaration or by the consumer's hints — answers NOT_IMPLEMENTED. */
export function registerNegativeTests(h: Harness): void {
  const declared = h.fixture.provider.capabilities.dto;
  for (const capability of DTO_CAPABILITIES) {
    if (declared.includes(capability)) {
      h.test(`an IA opened without '${capability}' answers NOT_IMPLEMENTED naming it; its other capabilities still work`, [], async () => {
        const hint = declared.filter((c) => c !== capability);
        const a = await armedPair(h, { capabilities: hint });
        expect(a.client.ia.query().capabilities).not.toContain(capability);
        const error = expectThrowsSync(() => a.post(capability, 'excluded'), DatStatus.NOT_IMPLEMENTED);
        expect(error.message).toContain(capability);
        expect(`${error.argument ?? ''} ${error.message}`).toContain(OP_OF[capability]);
        for (const other of hint) {
          a.post(other, other);
          await h.nextCompletion(a.client.request, { cookie: other, status: DtoStatus.SUCCESS });
        }
      });
    } else {
      h.test(`'${capability}' is not declared: ${OP_OF[capability]} answers NOT_IMPLEMENTED without any hint`, [], async () => {
        const a = await armedPair(h);
        expect(a.client.ia.query().capabilities).not.toContain(capability);
        const error = expectThrowsSync(() => a.post(capability, 'undeclared'), DatStatus.NOT_IMPLEMENTED);
        expect(error.message).toContain(capability);
      });
    }
  }

  h.test('an IA opened with an empty capability hint still sends and receives', [], async () => {
    const pair = await connectPair(h, { iaOptions: { capabilities: [] } });
    expect(pair.client.ia.query().capabilities).toEqual([]);
    await expectRoundTrip(h, pair.client, pair.server);
  });

  const listedExtensions = h.fixture.provider.capabilities.extensions;
  for (const name of EXTENSION_NAMES) {
    const listed = listedExtensions.includes(name);
    h.test(listed ? `extension('${name}') is listed: returns an object` : `extension('${name}') is not listed: returns undefined`, [], async () => {
      const ia = await h.openIa();
      const found = ia.extension(name);
      if (listed) expect(typeof found === 'object' && found !== null, `extension('${name}')`).toBe(true);
      else expect(found).toBeUndefined();
      expect(ia.query().extensions.includes(name)).toBe(listed);
    });
  }
}
