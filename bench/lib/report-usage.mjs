// Preloaded (`node --import`) into a job that bench/sim-scale.mjs runs: at exit, one line on stderr
// with the process's peak RSS and CPU time, which the parent cannot read from a child otherwise.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  const u = process.resourceUsage();
  writeSync(2, `sim-scale-usage maxRssKiB=${u.maxRSS} userUs=${u.userCPUTime} systemUs=${u.systemCPUTime}\n`);
});
