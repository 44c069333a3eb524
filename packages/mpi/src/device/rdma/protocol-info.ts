import type { MpiParameters } from '../../api/mpi-parameters.js';
import type { RdmaSettings } from './rdma-context.js';

/** Which of the rdma device's protocols serves which message sizes, one line each (`mpi.protocolInfo`). */
export function rdmaProtocolInfo(p: MpiParameters, provider: string, settings: RdmaSettings, sharedPool: boolean, fastboxBytes: number): string[] {
  const eager = p.eagerLimit;
  const pool = sharedPool
    ? `one shared receive queue of up to ${p.srqBuffers} eager buffers of ${eager} B (${Math.min(p.srqInitialPosts, p.credits)} posted at first, grown ${p.credits} at a time), a window of ${p.credits} per peer`
    : `${p.credits} eager buffers of ${eager} B per peer`;
  return [
    `mpi: device rdma on provider ${provider}: ${pool}, ${p.sendBuffers} send buffers`,
    ...(fastboxBytes > 0
      ? [`mpi: 0..${Math.min(fastboxBytes, eager)} B: fastbox (written into the connection's peer memory, where the receiver polls: no transport post, no completion; a box still full sends by DAT as below)`]
      : []),
    `mpi: 0..${eager} B: eager (copied into a pre-registered buffer, one credit; synchronous mode waits for an ACK)`,
    `mpi: ${eager + 1}.. B: rendezvous by RDMA ${settings.read ? 'read (the receiver pulls into the user buffer, then FIN)' : 'write (CTS with the receiver\'s buffer, the sender writes with immediate)'}`,
    ...(p.bounceLimit > eager
      ? [`mpi: ${eager + 1}..${p.bounceLimit} B by a blocking send (send, rsend): copied into a library buffer, the send complete at once, the copy sent as above`]
      : []),
    ...(settings.advertise
      ? [`mpi: ${eager + 1}.. B into a receive posted before its message (contiguous, named source and tag): receiver-initiated; the receive is advertised and the sender writes into it with immediate, also when its RTS went first`]
      : []),
  ];
}
