/**
 * The signals a launcher hears that end the job (exit 128 + the signal's number): a process job
 * forwards them to its ranks, an in-process job stops its ranks. SIGHUP too: ranks run in their own
 * process groups, so a closed terminal would otherwise leave them running.
 */
export const JOB_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
