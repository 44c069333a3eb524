import type { RankContext } from '../../runtime/rank-context.js';

/** What the process patches hand a rank's output, exit and uncaught errors to: its job. */
export interface RankHost {
  /** A chunk the rank wrote to `process.stdout` or `process.stderr`. */
  write(stream: 'stdout' | 'stderr', chunk: Buffer): void;
  /** The rank called `process.exit(code)`. */
  exit(code: number): void;
  /** An error the rank threw and nothing caught (an uncaught exception or unhandled rejection). */
  fail(error: unknown): void;
}

/** A `Symbol.for` key, so that the patches of another copy of core find the host too. */
export const RANK_HOST = Symbol.for('@dapl/core/rank-host');

/** A rank context that belongs to an in-process job. */
export interface HostedRankContext extends RankContext {
  readonly [RANK_HOST]: RankHost;
}

export function hostOf(context: RankContext | undefined): RankHost | undefined {
  return (context as Partial<HostedRankContext> | undefined)?.[RANK_HOST];
}

/**
 * Thrown by `process.exit` called in a rank: the rank's code must stop there, as it would in a
 * process of its own, without ending the process the other ranks share. Its job has already been
 * told; whoever sees it uncaught ignores it.
 */
export class RankExitRequest extends Error {
  override readonly name = 'RankExitRequest';

  constructor(readonly code: number) {
    super(`process.exit(${code}) called by an in-process rank`);
  }
}

export function isRankExitRequest(error: unknown): error is RankExitRequest {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'RankExitRequest';
}
