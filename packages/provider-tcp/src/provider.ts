import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { pino } from 'pino';
import { DAT_PROVIDER_API_VERSION, DAT_PROVIDER_BRAND, iaJobKey, requireLocalProcessesOption, type DatProvider, type IaOptions } from '@dapl/core';
import { effectiveCapabilities, firstExternalIpv4 } from '@dapl/core/provider-kit';
import { TCP_CAPABILITIES, tcpLimits } from './attr.js';
import { TcpIa } from './ia.js';
import { chooseInterface } from './interface-choice.js';
import { requireListenable } from './listen-check.js';
import { pollWindowUs, resolveTcpParameters, TCP_PARAMETERS } from './params.js';

/** Used when neither the options nor DAPL_JOB_KEY name a key: IAs of this process can reach each other. */
const processJobKey = randomBytes(32);


function advertised(iface: string): string {
  if (iface !== '0.0.0.0' && iface !== '::') return iface;
  return firstExternalIpv4() ?? '127.0.0.1';
}

/** The tcp provider: DAT over real TCP sockets between processes and hosts. */
export const tcpProvider: DatProvider = {
  [DAT_PROVIDER_BRAND]: true,
  name: 'tcp',
  apiVersion: DAT_PROVIDER_API_VERSION,
  description: 'DAT over TCP sockets (node:net): authenticated connections, framed sends, RDMA emulated at the target',
  capabilities: TCP_CAPABILITIES,
  parameters: TCP_PARAMETERS,
  async openIa(options: IaOptions = {}) {
    const configured = resolveTcpParameters(options.parameters);
    const params = { ...configured, interface: await chooseInterface(configured.interface, options) };
    const local = requireLocalProcessesOption(options.localProcesses);
    const logger = options.logger ?? pino({ level: 'silent' });
    const jobKey = iaJobKey(options, processJobKey);
    await requireListenable(params.interface);
    const address = advertised(params.interface);
    const cpus = availableParallelism();
    const pollUs = pollWindowUs(params, local, cpus);
    logger.debug({ interface: params.interface, configured: configured.interface, spansHosts: options.spansHosts === true }, 'listening address');
    logger.debug({ busyPoll: params.busyPoll, pollUs, localProcesses: local, cpus }, pollUs > 0 ? 'busy polling after input and writes' : 'not busy polling');
    return new TcpIa(
      {
        provider: tcpProvider,
        name: options.name ?? 'tcp0',
        address,
        limits: tcpLimits(params),
        capabilities: effectiveCapabilities(TCP_CAPABILITIES.dto, options.capabilities),
        // A request is done with its memory once Node has handed the bytes to the kernel.
        localCompletion: true,
        parameters: params as unknown as Record<string, unknown>,
        logger: logger.child({ component: 'provider-tcp:Ia' }),
        defaultConnectTimeoutMs: params.connectTimeoutMs,
      },
      params,
      jobKey,
      pollUs,
    );
  },
};
