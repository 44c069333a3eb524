// Benchmarks that compare MPI devices: a rank has one device, so each configuration is a job of
// its own (`dapl run -n 2` of the same script with the configuration's environment); rank 0 of each
// prints one `RESULT {json}` line, and the results are merged.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const DAPL = fileURLToPath(new URL('../../packages/core/dist/cli/main.js', import.meta.url));

/** Run `scriptUrl` as a 2-rank job on `provider` per configuration (`{ label, env, args }`), in order; the merged RESULT objects. */
export async function runDeviceJobs(scriptUrl, provider, configs) {
  const results = {};
  for (const config of configs) {
    const args = [DAPL, 'run', '-n', '2', '--provider', provider, fileURLToPath(scriptUrl), ...config.args];
    const out = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, args, { env: { ...process.env, ...config.env }, stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      child.stdout.on('data', (d) => (text += d));
      child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`the ${config.label} job exited with ${code}`))));
    });
    for (const line of out.split('\n')) if (line.startsWith('RESULT ')) Object.assign(results, JSON.parse(line.slice(7)));
  }
  return results;
}

/** What rank 0 of a configuration's job reports. */
export function reportResult(result) {
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}
