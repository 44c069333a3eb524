import type { ParameterSpec } from '@dapl/core';

/** The `mpi` section of the configuration (`DAPL_MPI_<KEY>`, `"mpi": {…}` in dapl.config.json). */
export const MPI_PARAMETERS: readonly ParameterSpec[] = [
  {
    name: 'device',
    type: 'enum',
    values: ['rdma', 'channel', 'am'],
    default: 'rdma',
    help: "the device under the ADI: rdma (MVAPICH2 over uDAPL: eager buffers with credits, rendezvous by RDMA), channel (MPICH's Channel Interface over DAT send/recv: runs on every provider), am (MPI-LAPI: active messages, matching in the header handler; providers with active-messages)",
  },
  {
    name: 'eagerLimit',
    type: 'integer',
    default: 8192,
    min: 0,
    max: 1 << 20,
    help: 'largest message (bytes) sent eagerly through pre-registered buffers; larger ones use rendezvous',
  },
  {
    name: 'bounceLimit',
    type: 'integer',
    default: 32 * 1024,
    min: 0,
    max: 16 << 20,
    help: 'largest message above eagerLimit that a blocking send (send, rsend) copies into a library buffer and completes at once, so that the caller\'s next receive is posted (and advertised) before the transfer leaves: one copy instead of a round trip on ib, lapi and combuf, and on busy-polling tcp one write instead of three on the ping-pong\'s critical path; 0: never',
  },
  {
    name: 'matching',
    type: 'enum',
    values: ['indexed', 'linear'],
    default: 'indexed',
    help: "indexed: matching in O(1) bins whatever is queued; linear: every receive posted also scans each queued receive and unexpected message, charged per entry on a simulated rank's clock, as an MPI whose queues are lists does (the FMPL paper's Hitachi MPI \"checks all outstanding receive calls at every nonblocking receive invocation\", Tatebe et al. §5.1); arrivals are matched as with indexed",
  },
  {
    name: 'pollWait',
    type: 'enum',
    values: ['on', 'off'],
    default: 'on',
    help: "on: a blocking call (send, recv, request.wait) first polls the transport in a loop, for the provider's dequeuePollUs (shm: spinUs while it spins; 0 elsewhere), and completes there when its message comes, without a turn of the event loop: lower latency, while the event loop waits that long; off: it awaits at once",
  },
  { name: 'credits', type: 'integer', default: 64, min: 2, max: 4096, help: 'eager receive buffers pre-posted per peer (the sender\'s credit window)' },
  {
    name: 'eagerPool',
    type: 'enum',
    values: ['auto', 'srq', 'per-peer'],
    default: 'auto',
    help: "rdma device: where eager messages land. srq: one pool per rank on a DAT shared receive queue, grown credits buffers at a time when it runs low, up to srqBuffers (MVAPICH2's SRQ design: memory independent of the peers); per-peer: credits buffers pre-posted on every connection; auto: srq where the provider has shared receive queues",
  },
  { name: 'srqBuffers', type: 'integer', default: 512, min: 2, max: 65_536, help: "rdma device with eagerPool srq: most eager receive buffers in the rank's pool (made lazily, credits at a time)" },
  {
    name: 'srqInitialPosts',
    type: 'integer',
    default: 16,
    min: 1,
    max: 65_536,
    help: "rdma device with eagerPool srq: eager buffers of the pool's first chunk (credits) posted at first (MVAPICH2's MV2_SRQ_SIZE); the rest once half as many receives are posted, or the queue runs that low. The queue is consumed oldest first: fewer posted, fewer distinct buffers filled",
  },
  { name: 'sendBuffers', type: 'integer', default: 64, min: 1, max: 65_536, help: 'pre-registered eager send buffers shared by all peers' },
  {
    name: 'unexpectedLimit',
    type: 'integer',
    default: 4 << 20,
    min: 0,
    max: 2 ** 31 - 1,
    help: 'bytes of unexpected eager data copied out of receive buffers; beyond it messages stay in the buffers and their senders wait for credits',
  },
  { name: 'rendezvous', type: 'enum', values: ['auto', 'read', 'write'], default: 'auto', help: 'rendezvous by RDMA read (receiver pulls) or RDMA write (sender pushes after CTS); auto: read when the provider has it, unless its writes complete as soon as their bytes have left (tcp: write)' },
  {
    name: 'receiverInitiated',
    type: 'boolean',
    default: true,
    help: 'a large receive posted before its message is advertised to the sender, which writes the data straight into it (no RTS and no wait for the receiver); off: every large message goes by rendezvous',
  },
  {
    name: 'fastbox',
    type: 'boolean',
    default: true,
    help: "rdma device, where the provider gives peer memory (shm): eager messages of up to 456 bytes go through fastboxes the sender writes and the receiver polls (MPICH nemesis' fastboxes), with no transport post or completion; a message that finds its peer's next box still full goes by DAT; off: every message goes by DAT",
  },
  { name: 'registrationCache', type: 'integer', default: 64, min: 1, max: 65_536, help: 'user buffers (whole ArrayBuffers) kept registered for rendezvous, least recently used freed first' },
  { name: 'protocolInfo', type: 'boolean', default: false, help: 'rank 0 prints which protocol serves which message sizes at init' },
  {
    name: 'collectives',
    type: 'enum',
    values: ['auto', 'hardware', 'software'],
    default: 'auto',
    help: "barrier and bcast on the provider's hw-collectives when usable for the communicator (auto), always (hardware: an error where unusable), or never (software)",
  },
  { name: 'hwSegment', type: 'integer', default: 1 << 20, min: 4096, max: 1 << 30, help: 'bytes of the registered buffer hardware broadcasts go through (larger messages go in pieces)' },
  { name: 'channel.shortLimit', type: 'integer', default: 1024, min: 0, max: 64 * 1024, help: 'channel device: largest message (bytes) carried inside its control packet (short protocol)' },
  {
    name: 'channel.eagerLimit',
    type: 'integer',
    default: 128 * 1024,
    min: 0,
    max: 64 << 20,
    help: 'channel device: largest message sent eagerly (control packet, then the data; buffered at the receiver when unexpected); larger ones use rendezvous (request, ready-to-receive, data)',
  },
  {
    name: 'channel.mode',
    type: 'enum',
    values: ['blocking', 'nonblocking'],
    default: 'nonblocking',
    help: "channel device: blocking sends each peer's messages one at a time, each message's data fully handed to the transport before the next starts (MPICH ch2's blocking channel functions); nonblocking queues them and overlaps them",
  },
  { name: 'channel.packetSize', type: 'integer', default: 32 * 1024, min: 4096, max: 16 << 20, help: 'channel device: bytes of each pre-posted receive buffer, the largest packet on the channel (data goes in packets of this size)' },
  {
    name: 'channel.bulkStream',
    type: 'enum',
    values: ['auto', 'on', 'off'],
    default: 'auto',
    help: "channel device: rendezvous data larger than a packet goes on a second connection per peer, as one DAT send into the receive's own memory (on), or in packets through the receive buffers (off); auto: on for providers on a real network, off for simulated ones",
  },
  {
    name: 'channel.advertise',
    type: 'enum',
    values: ['on', 'off'],
    default: 'on',
    help: "channel device, with the bulk stream: a receive larger than the eager limit posted before its message is advertised to its sender, which then sends that message's data straight into it on the bulk stream behind one control packet, without request-to-send and ready-to-receive (receiver-initiated rendezvous); off: every large message waits for ready-to-receive",
  },
  { name: 'channel.buffers', type: 'integer', default: 16, min: 4, max: 4096, help: 'channel device: receive buffers pre-posted per peer (the sender\'s credit window, in packets)' },
  { name: 'am.eagerLimit', type: 'integer', default: 4096, min: 0, max: 64 << 20, help: 'am device: largest message sent eagerly in one Amsend; larger ones (and synchronous sends) use rendezvous (request to send, acknowledgement, data)' },
  {
    name: 'am.variant',
    type: 'enum',
    values: ['base', 'counters', 'enhanced'],
    default: 'enhanced',
    help: "am device: base (completion handlers after a thread switch), counters (eager completion by LAPI target counters, no completion handler), enhanced (data completion by LAPI's predefined completion, handshake handlers in the dispatcher's context): MPI-LAPI's three versions",
  },
  {
    name: 'finalizeTimeout',
    type: 'integer',
    default: 60,
    min: 1,
    max: 86_400,
    help: 'seconds finalize waits for this rank\'s sends to complete (on the rank\'s clock: virtual time under the simulator); then it fails with MPI_ERR_PENDING naming each send still pending and its peer',
  },
];

/** DI token of the resolved {@link MpiParameters}; bound in `mpi-module.ts`. */
export const MpiParameters: unique symbol = Symbol('MpiParameters');

/**
 * The resolved `mpi` section of the configuration with `Mpi.init`'s overrides: one field per entry
 * of {@link MPI_PARAMETERS}, of the same name (meanings and defaults there).
 */
export interface MpiParameters {
  readonly device: 'rdma' | 'channel' | 'am';
  readonly eagerLimit: number;
  readonly bounceLimit: number;
  readonly matching: 'indexed' | 'linear';
  readonly pollWait: 'on' | 'off';
  readonly credits: number;
  readonly sendBuffers: number;
  readonly eagerPool: 'auto' | 'srq' | 'per-peer';
  readonly srqBuffers: number;
  readonly srqInitialPosts: number;
  readonly unexpectedLimit: number;
  readonly rendezvous: 'auto' | 'read' | 'write';
  readonly receiverInitiated: boolean;
  readonly fastbox: boolean;
  readonly registrationCache: number;
  readonly protocolInfo: boolean;
  readonly collectives: 'auto' | 'hardware' | 'software';
  readonly hwSegment: number;
  readonly 'channel.shortLimit': number;
  readonly 'channel.eagerLimit': number;
  readonly 'channel.mode': 'blocking' | 'nonblocking';
  readonly 'channel.packetSize': number;
  readonly 'channel.buffers': number;
  readonly 'channel.bulkStream': 'auto' | 'on' | 'off';
  readonly 'channel.advertise': 'on' | 'off';
  readonly 'am.eagerLimit': number;
  readonly 'am.variant': 'base' | 'counters' | 'enhanced';
  readonly finalizeTimeout: number;
}
