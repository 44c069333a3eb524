import { describe, expect, it } from 'vitest';
import { RequestCore } from '../src/adi/request-core.js';
import { ErrorClass, MpiError } from '../src/api/errors.js';
import { Status } from '../src/api/status.js';
import { runBlocking, ScheduleRequest, type Steps } from '../src/coll/schedule.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A schedule of two rounds (two requests, then one whose status it reads), logging what it does. */
function* twoRounds(log: string[], first: RequestCore[], second: RequestCore): Steps {
  log.push('checks and round 1 posted');
  yield first;
  log.push('local work after round 1');
  const status = yield second;
  log.push(`round 2 done, count ${status?.count}`);
}

describe('ScheduleRequest (a nonblocking collective)', () => {
  it('runs its checks and posts round 1 at once, then advances only as its requests complete, and completes after its last round', async () => {
    const log: string[] = [];
    const a = new RequestCore();
    const b = new RequestCore();
    const c = new RequestCore();
    const request = new ScheduleRequest(twoRounds(log, [a, b], c), 'test');
    expect(log).toEqual(['checks and round 1 posted']);
    a.complete(Status.EMPTY);
    await tick();
    expect(log).toHaveLength(1); // b is still out
    b.complete(Status.EMPTY);
    expect(log).toHaveLength(1); // continued on a microtask, not inside the completion
    await tick();
    expect(log).toEqual(['checks and round 1 posted', 'local work after round 1']);
    expect(request.done).toBe(false);
    c.complete(new Status(1, 2, 12));
    await tick();
    expect(log[2]).toBe('round 2 done, count 12');
    expect(request.done).toBe(true);
    expect(request.error).toBeUndefined();
  });

  it('throws a bad argument from the constructor, before anything is posted', () => {
    const posted: RequestCore[] = [];
    function* bad(root: number): Steps {
      if (root < 0) throw new MpiError(ErrorClass.ERR_ROOT, 'root must be …', { argument: 'root' });
      posted.push(new RequestCore());
      yield posted;
    }
    expect(() => new ScheduleRequest(bad(-1), 'test')).toThrow(expect.objectContaining({ errorClass: ErrorClass.ERR_ROOT }));
    expect(posted).toHaveLength(0);
  });

  it('fails with the error of a request of a round once the round has settled, and runs no further round', async () => {
    const log: string[] = [];
    const a = new RequestCore();
    const b = new RequestCore();
    const request = new ScheduleRequest(twoRounds(log, [a, b], new RequestCore()), 'test');
    const failure = new MpiError(ErrorClass.ERR_TRUNCATE, 'too long');
    a.fail(failure);
    await tick();
    expect(request.done).toBe(false);
    b.complete(Status.EMPTY);
    await tick();
    expect(request.error).toBe(failure);
    expect(log).toEqual(['checks and round 1 posted']);
  });

  it('fails (never throws out of the event loop) when the local work between rounds throws', async () => {
    const a = new RequestCore();
    function* throwing(): Steps {
      yield a;
      throw new Error('op failed');
    }
    const request = new ScheduleRequest(throwing(), 'MPI ireduce on world');
    a.complete(Status.EMPTY);
    await tick();
    expect(request.error).toBeInstanceOf(MpiError);
    expect(request.error?.errorClass).toBe(ErrorClass.ERR_INTERN);
    expect(request.error?.message).toContain('MPI ireduce on world');
  });

  it('a schedule with no rounds (one rank) or an empty round completes at once', async () => {
    function* none(): Steps {} // a one-rank communicator's schedule has no round
    expect(new ScheduleRequest(none(), 'test').done).toBe(true);
    function* empty(): Steps {
      yield [];
    }
    const request = new ScheduleRequest(empty(), 'test');
    await tick();
    expect(request.done).toBe(true);
  });
});

describe('runBlocking (a blocking collective)', () => {
  it('runs the same schedule to the end, awaiting each round; a failed request rejects', async () => {
    const log: string[] = [];
    const a = new RequestCore();
    const c = new RequestCore();
    const run = runBlocking(twoRounds(log, [a], c));
    a.complete(Status.EMPTY);
    c.complete(new Status(0, 0, 3));
    await run;
    expect(log).toEqual(['checks and round 1 posted', 'local work after round 1', 'round 2 done, count 3']);
    const failed = new RequestCore();
    const failing = runBlocking(twoRounds([], [failed], new RequestCore()));
    failed.fail(new MpiError(ErrorClass.ERR_PROC_FAILED, 'peer lost'));
    await expect(failing).rejects.toMatchObject({ errorClass: ErrorClass.ERR_PROC_FAILED });
  });
});
