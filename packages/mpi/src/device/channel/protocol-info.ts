import type { MpiParameters } from '../../api/mpi-parameters.js';

/** Which of the channel device's protocols serves which message sizes, one line each (`mpi.protocolInfo`). */
export function channelProtocolInfo(p: MpiParameters, provider: string, short: number, eager: number, bulkAbove: number, bulk: boolean, advertise: boolean): string[] {
  return [
    `mpi: device channel (MPICH Channel Interface over DAT send/recv, ${p['channel.mode']}) on provider ${provider}: ${p['channel.buffers']} receive buffers of ${p['channel.packetSize']} B per peer`,
    `mpi: 0..${short} B: short (the data inside the control packet)`,
    ...(eager > short ? [`mpi: ${short + 1}..${eager} B: eager (control packet, then the data; buffered at the receiver when unexpected)`] : []),
    `mpi: ${eager + 1}.. B, and synchronous mode at every size: rendezvous (request to send, ready to receive, then the data)`,
    bulk
      ? `mpi: rendezvous data above ${bulkAbove} B: one DAT send into the receive's own memory on the bulk stream (a second connection per peer)`
      : `mpi: rendezvous data in packets of up to ${bulkAbove} B through the receive buffers (mpi.channel.bulkStream ${p['channel.bulkStream']})`,
    ...(advertise
      ? [`mpi: ${eager + 1}.. B into a receive posted before its message (contiguous, named source and tag): receiver-initiated; the receive is advertised and the sender sends the data into it on the bulk stream with no request to send and no ready-to-receive, also when its request to send went first`]
      : []),
  ];
}
