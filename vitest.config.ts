import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    // Job-sized: most tests run jobs of processes or simulated ranks, which a loaded host (load 4-10
    // on 2 cores) slows several-fold. A test asserts what a job did, never how fast; jobs are killed
    // by their own bound (test/support/dapl-run.ts) before this, and the failure then says so.
    testTimeout: 150_000,
    hookTimeout: 60_000,
    // Vitest's default on 2 cores is one worker: the many test files that run one process or one
    // simulated job at a time left the second core idle. Two files at once keep both busy.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
