import { describe, expect, it } from 'vitest';
import { RequestCore } from '../src/adi/request-core.js';
import { ANY_SOURCE, ANY_TAG } from '../src/api/constants.js';
import { ErrorClass, MpiError } from '../src/api/errors.js';
import { PersistentRequest } from '../src/api/persistent-request.js';
import { Request } from '../src/api/request.js';
import { Status } from '../src/api/status.js';

/** A persistent request whose starts hand out cores the test completes. */
function fixture() {
  const cores: RequestCore[] = [];
  const request = new PersistentRequest(() => {
    const core = new RequestCore();
    cores.push(core);
    return new Request(core);
  }, 'test op');
  return { request, cores };
}

describe('PersistentRequest', () => {
  it('inactive before a start and after its completion is handed out: the empty status at once', async () => {
    const { request, cores } = fixture();
    expect(request.done).toBe(true);
    expect(await request.wait()).toBe(Status.EMPTY);
    expect(Status.EMPTY).toMatchObject({ source: ANY_SOURCE, tag: ANY_TAG, count: 0 });
    request.start();
    expect(request.active && !request.done).toBe(true);
    expect(request.test()).toBeUndefined();
    cores[0].complete(new Status(3, 4, 8, false, 4));
    const st = request.test()!;
    expect([st.source, st.tag, st.getCount()]).toEqual([3, 4, 2]);
    expect(request.active).toBe(false);
    expect(request.test()).toBe(Status.EMPTY);
  });

  it('each start is a new operation; waitAny skips the inactive one; a failure leaves it inactive', async () => {
    const { request, cores } = fixture();
    expect((await Request.waitAny([request, null])).index).toBe(-32766);
    request.start();
    const any = Request.waitAny([null, request]);
    cores[0].fail(new MpiError(ErrorClass.ERR_TRUNCATE, 'too long'));
    await expect(any).rejects.toMatchObject({ errorClass: ErrorClass.ERR_TRUNCATE });
    expect(request.active).toBe(false);
    request.start();
    expect(cores).toHaveLength(2);
    cores[1].complete(Status.EMPTY);
    expect(await Request.waitAll([request])).toHaveLength(1);
    expect(request.active).toBe(false);
  });

  it('start while active, and any use once freed, are ERR_REQUEST; startAll checks all before starting any', () => {
    const a = fixture();
    const b = fixture();
    a.request.start();
    expect(() => a.request.start()).toThrow(MpiError);
    expect(() => Request.startAll([b.request, a.request])).toThrow(/requests\[1\].*is active/);
    expect(b.cores).toHaveLength(0);
    expect(() => Request.startAll([b.request, b.request])).toThrow(/requests\[1\] appears twice/);
    expect(b.cores).toHaveLength(0);
    b.request.free();
    expect(() => b.request.start()).toThrow(/has been freed/);
    expect(() => b.request.test()).toThrow(/has been freed/);
    expect(() => new Request(new RequestCore()).start()).toThrow(/not persistent/);
  });
});
