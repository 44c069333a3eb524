/**
 * @packageDocumentation
 * `@dapl/provider-tcp`: DAT over real TCP sockets. A PSP is a listening port (conn-qual = port),
 * the IA address is a host; connections are authenticated with the job key before any
 * connection-request event; sends are framed; RDMA reads and writes are applied by the target
 * through its RMR table.
 *
 * @example
 * ```ts
 * import { tcpProvider } from '@dapl/provider-tcp';
 * const ia = await tcpProvider.openIa({ parameters: { interface: '127.0.0.1' } });
 * ```
 */
export { tcpProvider, tcpProvider as default, tcpProvider as provider } from './provider.js';
export { TCP_PARAMETERS, type TcpParameters } from './params.js';
