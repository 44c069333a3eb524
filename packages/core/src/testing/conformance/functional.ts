import type { Harness } from './harness.js';
import { registerConnectionTests } from './functional-connection.js';
import { registerLocalCompletionTests } from './functional-local-completion.js';
import { registerPolledDequeueTests } from './functional-polled-dequeue.js';
import { registerRdmaTests } from './functional-rdma.js';
import { registerSendTests } from './functional-send.js';
import { registerSrqTests } from './functional-srq.js';

/** Two IAs of one job: connection management and every DTO. */
export function registerFunctionalTests(h: Harness): void {
  registerConnectionTests(h);
  registerSendTests(h);
  registerRdmaTests(h);
  registerLocalCompletionTests(h);
  registerPolledDequeueTests(h);
  registerSrqTests(h);
}
