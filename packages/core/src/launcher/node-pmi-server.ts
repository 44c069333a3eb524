import { PmiServer } from '../runtime/pmi/pmi-server.js';
import type { CreatePmiServer } from './pmi-server-port.js';

/** The real PMI-1 server for `dapl run`. */
export const createNodePmiServer: CreatePmiServer = (options) => new PmiServer(options);
