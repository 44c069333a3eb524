import { describe, expect, it } from 'vitest';
import { DatError } from '../src/dat/errors.js';
import { DatStatus } from '../src/dat/status.js';
import { describeInProcessFailure, inProcessExitCode } from '../src/launcher/in-process/in-process-outcome.js';
import { PRIVATISATION_HOOKS_SOURCE } from '../src/launcher/in-process/privatisation-hooks.js';
import { inProcessState } from '../src/launcher/in-process/in-process-state.js';
import { AbandonedRankError, enterRankModule, rankModuleUrl } from '../src/launcher/in-process/rank-modules.js';
import { rankContext, type RankContext } from '../src/runtime/rank-context.js';
import { InProcessRankRuntime } from '../src/launcher/in-process/rank-runtime.js';
import { createLocalJob } from '../src/runtime/local-job.js';
import { nativeImport } from './fixtures/in-process/native-import.js';

interface Resolved {
  url: string;
  format?: string;
}
interface Loaded {
  format: string;
  source: string | Uint8Array | null;
}
interface Hooks {
  resolve(specifier: string, context: { parentURL?: string }, next: (specifier: string) => Promise<Resolved>): Promise<Resolved>;
  load(url: string, context: object, next: (url: string) => Promise<Loaded>): Promise<Loaded>;
}

// The hooks exactly as registered: their source text, imported as Node will.
const hooks = (await nativeImport(`data:text/javascript,${encodeURIComponent(PRIVATISATION_HOOKS_SOURCE)}`)) as Hooks;
const rank2 = 'file:///app/main.mjs?dapl-job=j1&dapl-rank=2';
const PROLOGUE = 'globalThis[Symbol.for("@dapl/core/enter-rank-module")]?.(import.meta.url);';

/** What `resolve` makes of `specifier` from `parentURL`, when Node's own resolution gives `url`. */
const resolveTo = (specifier: string, parentURL: string | undefined, url: string) => hooks.resolve(specifier, { parentURL }, async () => ({ url, format: 'module' }));

describe('privatisation hooks: resolve', () => {
  it("a rank's relative and absolute imports of the program's files are the rank's own", async () => {
    expect((await resolveTo('./helper.mjs', rank2, 'file:///app/helper.mjs')).url).toBe('file:///app/helper.mjs?dapl-job=j1&dapl-rank=2');
    expect((await resolveTo('../lib/a.js', rank2, 'file:///lib/a.js')).url).toBe('file:///lib/a.js?dapl-job=j1&dapl-rank=2');
    expect((await resolveTo('/abs/b.mjs', rank2, 'file:///abs/b.mjs')).url).toBe('file:///abs/b.mjs?dapl-job=j1&dapl-rank=2');
    expect((await resolveTo('file:///abs/c.mjs', rank2, 'file:///abs/c.mjs')).url).toBe('file:///abs/c.mjs?dapl-job=j1&dapl-rank=2');
    expect((await resolveTo('#internal', rank2, 'file:///app/internal.mjs')).url).toBe('file:///app/internal.mjs?dapl-job=j1&dapl-rank=2');
    // A query of the import's own is kept.
    expect((await resolveTo('./d.mjs?v=1', rank2, 'file:///app/d.mjs?v=1')).url).toBe('file:///app/d.mjs?v=1&dapl-job=j1&dapl-rank=2');
  });

  it('packages stay shared: bare specifiers (even a workspace symlink resolving outside node_modules), files under node_modules, builtins', async () => {
    expect((await resolveTo('@dapl/core', rank2, 'file:///repo/packages/core/dist/index.js')).url).toBe('file:///repo/packages/core/dist/index.js');
    expect((await resolveTo('./x.js', 'file:///app/node_modules/pkg/index.js', 'file:///app/node_modules/pkg/x.js')).url).toBe('file:///app/node_modules/pkg/x.js');
    expect((await resolveTo('../node_modules/pkg/y.js', rank2, 'file:///node_modules/pkg/y.js')).url).toBe('file:///node_modules/pkg/y.js');
    expect((await resolveTo('node:fs', rank2, 'node:fs')).url).toBe('node:fs');
  });

  it('modules imported outside any rank are left alone', async () => {
    expect((await resolveTo('./helper.mjs', 'file:///app/main.mjs', 'file:///app/helper.mjs')).url).toBe('file:///app/helper.mjs');
    expect((await resolveTo('file:///app/main.mjs', undefined, 'file:///app/main.mjs')).url).toBe('file:///app/main.mjs');
  });
});

describe('privatisation hooks: load', () => {
  const loadAs = (url: string, format: string, source: string | Uint8Array | null) => hooks.load(url, {}, async () => ({ format, source }));

  it("a rank's ES module starts by re-entering its rank, on its first line (after a #! line)", async () => {
    expect((await loadAs(rank2, 'module', 'export const a = 1;\n')).source).toBe(`${PROLOGUE}export const a = 1;\n`);
    expect((await loadAs(rank2, 'module', new TextEncoder().encode('let b;\n'))).source).toBe(`${PROLOGUE}let b;\n`);
    expect((await loadAs(rank2, 'module', '#!/usr/bin/env node\nlet c;\n')).source).toBe(`#!/usr/bin/env node\n${PROLOGUE}let c;\n`);
  });

  it('shared modules, CommonJS and JSON are loaded unchanged', async () => {
    expect((await loadAs('file:///app/main.mjs', 'module', 'let d;')).source).toBe('let d;');
    expect((await loadAs('file:///app/c.cjs?dapl-job=j1&dapl-rank=2', 'commonjs', null)).source).toBe(null);
    expect((await loadAs('file:///app/d.json?dapl-job=j1&dapl-rank=2', 'json', '{}')).source).toBe('{}');
  });

  it('rankModuleUrl names the program for one rank of one job', () => {
    expect(rankModuleUrl('/app/main program.mjs', 'ab12', 3)).toBe('file:///app/main%20program.mjs?dapl-job=ab12&dapl-rank=3');
  });
});

describe('enterRankModule (the first statement of a privatised module)', () => {
  it("enters the module's rank context; a module of an ended job throws; other modules are left alone", () => {
    const [runtime] = createLocalJob(1);
    const context: RankContext = { rank: 0, size: 1, runtime: runtime! };
    inProcessState.jobs.set('unit-job', [context]);
    try {
      expect(rankContext.run({ ...context, rank: 9 }, () => (enterRankModule(rankModuleUrl('/app/m.mjs', 'unit-job', 0)), rankContext.getStore()))).toBe(context);
    } finally {
      inProcessState.jobs.delete('unit-job');
    }
    expect(() => enterRankModule(rankModuleUrl('/app/m.mjs', 'unit-job', 0))).toThrow(AbandonedRankError);
    expect(() => enterRankModule(rankModuleUrl('/app/m.mjs', 'unit-job', 0))).toThrow(/in-process job unit-job has ended: \/app\/m\.mjs is not run/);
    expect(rankContext.run(context, () => (enterRankModule('file:///app/plain.mjs'), rankContext.getStore()))).toBe(context);
  });
});

describe('in-process outcomes', () => {
  it('the in-process-only failures exit 1 with their own line; the others are those of dapl run', () => {
    const unfinalized = { kind: 'rank-unfinalized', rank: 2, atMs: 1234, running: 3 } as const;
    expect(inProcessExitCode(unfinalized)).toBe(1);
    expect(describeInProcessFailure(unfinalized)).toBe('dapl run: rank 2 ended without finalizing its runtime after 1.23 s; stopping the other 3 ranks\n');
    const driver = { kind: 'driver-failed', message: 'deadlock:\n  rank 0 in barrier', atMs: 10, running: 1 } as const;
    expect(inProcessExitCode(driver)).toBe(1);
    expect(describeInProcessFailure(driver)).toBe('dapl run: deadlock: rank 0 in barrier after 0.01 s; stopping the 1 running rank\n');
    const exited = { kind: 'rank-exited', rank: 1, code: 3, atMs: 410, running: 1 } as const;
    expect(inProcessExitCode(exited)).toBe(3);
    expect(describeInProcessFailure(exited)).toBe('dapl run: rank 1 exited with code 3 after 0.41 s; stopping the other rank\n');
    expect(inProcessExitCode({ kind: 'completed' })).toBe(0);
  });
});

describe('InProcessRankRuntime', () => {
  it('tracks joining and finalizing, and after end() rejects what is pending and every later call', async () => {
    const [a, b] = createLocalJob(2).map((r) => new InProcessRankRuntime(r));
    expect([a!.rank, a!.size, a!.joined]).toEqual([0, 2, false]);
    await Promise.all([a!.barrier(), b!.barrier()]);
    expect([a!.joined, a!.finalized]).toEqual([true, false]);
    const pending = a!.barrier();
    const ended = new DatError(DatStatus.ABORT, 'the in-process job has ended: test');
    a!.end(ended);
    await expect(pending).rejects.toBe(ended);
    await expect(a!.put('k', 'v')).rejects.toBe(ended);
    await expect(a!.abort(3, 'late')).rejects.toBe(ended);
    await b!.finalize();
    expect(b!.finalized).toBe(true);
  });

  it('abort refuses a code outside 0-255 as PMI does', async () => {
    const [a] = createLocalJob(1).map((r) => new InProcessRankRuntime(r));
    await expect(a!.abort(256, 'too big')).rejects.toMatchObject({ status: DatStatus.INVALID_PARAMETER, argument: 'code', message: expect.stringMatching(/256 is not an integer in \[0, 255\]/) });
    await expect(a!.abort(9, 'why')).rejects.toMatchObject({ status: DatStatus.ABORT, message: expect.stringMatching(/rank 0 aborted the job with code 9: why/) });
  });
});
