import { describe, expect, it } from 'vitest';
import { RequestCore } from '../src/adi/request-core.js';
import { RecvRequest } from '../src/adi/requests.js';
import { byteSpan } from '../src/adi/transfer.js';
import { ErrorClass, MpiError } from '../src/api/errors.js';
import { Request, type WaitDeclarer } from '../src/api/request.js';
import { Status } from '../src/api/status.js';

function settled<T>(promise: Promise<T>): { value?: T; error?: unknown; done: boolean } {
  const state: { value?: T; error?: unknown; done: boolean } = { done: false };
  promise.then(
    (value) => Object.assign(state, { value, done: true }),
    (error: unknown) => Object.assign(state, { error, done: true }),
  );
  return state;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Request.waitAll', () => {
  it('resolves once every request is done, with the statuses in request order (done before the call, later, repeated)', async () => {
    const early = new RequestCore();
    early.complete(new Status(0, 1, 10));
    const a = new RequestCore();
    const b = new RequestCore();
    const ra = new Request(a);
    const result = settled(Request.waitAll([new Request(early), ra, new Request(b), ra]));
    await tick();
    b.complete(new Status(2, 3, 30));
    await tick();
    expect(result.done).toBe(false);
    a.complete(new Status(1, 2, 20));
    await tick();
    expect(result.done).toBe(true);
    expect((result.value as Status[]).map((s) => s.count)).toEqual([10, 20, 30, 20]);
  });

  it('waits for every request, then fails with ERR_IN_STATUS naming the first failed one', async () => {
    const ok = new RequestCore();
    const bad = new RequestCore();
    const late = new RequestCore();
    const result = settled(Request.waitAll([new Request(ok), new Request(bad), new Request(late)]));
    bad.fail(new MpiError(ErrorClass.ERR_TRUNCATE, 'too long'));
    ok.complete(Status.EMPTY);
    await tick();
    expect(result.done).toBe(false); // `late` still runs
    late.complete(Status.EMPTY);
    await tick();
    expect(result.error).toBeInstanceOf(MpiError);
    expect((result.error as MpiError).errorClass).toBe(ErrorClass.ERR_IN_STATUS);
    expect((result.error as MpiError).message).toBe('MPI_ERR_IN_STATUS: request 1 failed: MPI_ERR_TRUNCATE: too long');
    expect((result.error as MpiError).argument).toBe('requests[1]');
  });

  it('declares one wait, named after the first pending request, for deadlock reports', async () => {
    const declared: string[] = [];
    const waits: WaitDeclarer = {
      declareWait: (what, promise) => {
        declared.push(what);
        return promise;
      },
    };
    const done = new RequestCore();
    done.complete(Status.EMPTY);
    const recv = new RecvRequest(7, 3, 42, byteSpan(new Uint8Array(4)), 3);
    const other = new RequestCore();
    const all = Request.waitAll([new Request(done, undefined, waits), new Request(recv, undefined, waits), new Request(other, undefined, waits)]);
    expect(declared).toEqual(['MPI recv from rank 3 tag 42 (context 7)']);
    recv.complete(Status.EMPTY);
    other.complete(Status.EMPTY);
    await expect(all).resolves.toHaveLength(3);
  });

  it('returns at once for an empty list and refuses what is not a request', async () => {
    await expect(Request.waitAll([])).resolves.toEqual([]);
    await expect(Request.waitAll([{} as Request])).rejects.toMatchObject({ errorClass: ErrorClass.ERR_REQUEST, argument: 'requests[0]' });
  });
});

describe('Request.waitSome and Request.testAll with a failed request', () => {
  it('waitSome hands out every completed request, then fails with ERR_IN_STATUS naming the first failed one, each one\'s status or error in inStatus', async () => {
    const bad = new RequestCore();
    const pending = new RequestCore();
    const ok = new RequestCore();
    const worse = new RequestCore();
    const requests = [new Request(bad), new Request(pending), new Request(ok), new Request(worse)];
    bad.fail(new MpiError(ErrorClass.ERR_TRUNCATE, 'too long'));
    ok.complete(new Status(0, 5, 8));
    worse.fail(new MpiError(ErrorClass.ERR_PROC_FAILED, 'gone'));
    const error = await Request.waitSome(requests).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(MpiError);
    expect(error).toMatchObject({ errorClass: ErrorClass.ERR_IN_STATUS, argument: 'requests[0]', message: 'MPI_ERR_IN_STATUS: request 0 failed (and 1 more; see inStatus): MPI_ERR_TRUNCATE: too long' });
    expect((error as MpiError).cause).toBe(bad.error);
    expect((error as MpiError).inStatus).toEqual([
      { index: 0, error: bad.error },
      { index: 2, status: ok.status },
      { index: 3, error: worse.error },
    ]);
    // All three were handed out, the one after the failure too: the next call sees only the pending one.
    pending.complete(new Status(1, 6, 16));
    await expect(Request.waitSome(requests)).resolves.toMatchObject({ indices: [1] });
    await expect(Request.waitSome(requests)).resolves.toEqual({ indices: [], statuses: [] });
  });

  it('testAll is undefined while one runs, then ERR_IN_STATUS naming the first failed one, as waitAll', () => {
    const ok = new RequestCore();
    const bad = new RequestCore();
    const requests = [new Request(ok), new Request(bad)];
    bad.fail(new MpiError(ErrorClass.ERR_TAG, 'bad tag'));
    expect(Request.testAll(requests)).toBeUndefined();
    ok.complete(Status.EMPTY);
    expect(() => Request.testAll(requests)).toThrow(expect.objectContaining({ errorClass: ErrorClass.ERR_IN_STATUS, argument: 'requests[1]' }));
  });
});

describe('RequestCore.onDone', () => {
  it('calls every listener once, in the order added, on completion or failure, and at once when already done', () => {
    const calls: string[] = [];
    const core = new RequestCore();
    for (const name of ['a', 'b', 'c', 'd']) core.onDone(() => calls.push(name));
    expect(calls).toEqual([]);
    core.complete(new Status(0, 0, 0));
    core.complete(new Status(0, 0, 0));
    expect(calls).toEqual(['a', 'b', 'c', 'd']);
    core.onDone(() => calls.push('late'));
    expect(calls).toEqual(['a', 'b', 'c', 'd', 'late']);
    const failed = new RequestCore();
    failed.onDone(() => calls.push('f1'));
    failed.onDone(() => calls.push('f2'));
    failed.fail(new MpiError(ErrorClass.ERR_OTHER, 'x'));
    expect(calls.slice(-2)).toEqual(['f1', 'f2']);
  });
});
