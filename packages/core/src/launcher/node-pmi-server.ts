import { PmiServer } from '../runtime/pmi/pmi-server.js';
import { formatProcessMapping } from '../runtime/pmi/process-mapping.js';
import type { CreatePmiServer } from './pmi-server-port.js';

/** The real PMI-1 server for `dapl run`: every rank on this host, as its process mapping says. */
export const createNodePmiServer: CreatePmiServer = (options) => new PmiServer({ ...options, processMapping: formatProcessMapping([options.size]) });
