/**
 * The hardware model of the simulated LAPI provider: an IBM RS/6000 SP of Power-PC 332 MHz SMP nodes
 * with TBMX adapters on the SP switch, DAT implemented on LAPI's primitives (Banikazemi et al. §3, §5).
 *
 * Only hardware-level (and LAPI-mechanism) figures are parameters. Library-level results of the paper
 * (MPI-LAPI 64 KiB bandwidth 83.35 MB/s, latency improvements, the MPI eager limit; Banikazemi et al. §6.1, Banikazemi et al.,
 * Banikazemi et al. §6; docs/hardware-models.md) are NOT used: they must come out of the protocols built on top.
 * Where the paper gives no figure the value is a typical one for SP hardware of that era and says so;
 * all of them are provider parameters (params.ts). Times are in ns, speeds in bytes per ns (= GB/s).
 */
export const LAPI_MODEL = {
  /**
   * Banikazemi et al. §1 the SP switch gives "up to 160 MB/s" between each pair of nodes: 160 MB/s = 0.16 bytes/ns,
   * each way. Its links are full duplex, a channel each way (IBM, "RS/6000 SP and Clustered IBM eServer pSeries
   * Systems Handbook", SG24-5596-02, §5.2.1-5.2.2), so the paper's "bi-directional" rate is not one link the two
   * directions share (80 MB/s a direction would be below the paper's own 83.35 MB/s MPI-LAPI bandwidth).
   */
  switchBytesPerNs: 0.16,
  /**
   * Not from the papers: the SP switch packet size. The paper does not give it; switch packets of the
   * TB3/TBMX era are 1 KB-class, so a packet is 1024 bytes on the wire, the LAPI header included
   * (payload per packet = packetBytes − lapiHeaderBytes).
   */
  packetBytes: 1024,
  /** Banikazemi et al. §6.1 every LAPI packet carries a 48-byte header (the native MPI's Pipes layer: 16 bytes). */
  lapiHeaderBytes: 48,
  /** Not from the papers: latency of the multistage switch between two nodes (a few switch chips and cables), ≈ 1 µs. */
  switchLatencyNs: 1_000,
  /** Not from the papers: adapter microcode handling of a message before it goes onto the switch (HAL handshake). */
  adapterSendNs: 1_500,
  /** Not from the papers: adapter microcode handling of a message once its last packet is in. */
  adapterRecvNs: 1_500,
  /**
   * Banikazemi et al. §2 the adapter DMAs packets between the HAL network buffers and the adapter; the rate is not
   * in the paper. Not from the papers: the TBMX sits on the node's 6xx-MX bus, taken as 400 MB/s, faster
   * than the switch (the paper's 160 MB/s is the path's limit).
   */
  dmaBytesPerNs: 0.4,
  /** Not from the papers: start-up latency of one adapter DMA (descriptor fetch, bus arbitration). */
  dmaLatencyNs: 500,
  /**
   * Banikazemi et al. §2 HAL copies data into (and out of) pinned network buffers, packet by packet. Not from the
   * papers: memory-copy rate of a 332 MHz Power-PC node, ≈ 400 MB/s.
   */
  halCopyBytesPerNs: 0.4,
  /** Not from the papers: HAL per-packet cost (network buffer management, handshake with the adapter). */
  halPacketNs: 300,
  /** Not from the papers: CPU cost of a LAPI call (Amsend/Put/Get: argument set-up, dispatcher entry). Charged to the posting rank. */
  lapiCallNs: 1_500,
  /**
   * Banikazemi et al. §2 (steps 2–3) the header handler runs at the first packet's arrival and returns the buffer;
   * its cost is not given. Not from the papers: dispatcher + handler that matches a posted receive, ≈ 1 µs.
   */
  headerHandlerNs: 1_000,
  /**
   * Banikazemi et al. §3 (LAPI_Rmw: an atomic read-modify-write of a word at the target, executed by the target's
   * dispatcher). Not from the papers: the dispatcher's cost to decode the request and apply it to one
   * word of memory, ≈ 0.5 µs on a node of that era (less than a header handler, which also matches).
   */
  rmwNs: 500,
  /** Banikazemi et al. §5.3 predefined in-context completion handlers avoid the thread switch. Not from the papers: their cost, ≈ 0.3 µs. */
  completionInContextNs: 300,
  /**
   * Banikazemi et al. §5.2, Banikazemi et al. §5.3 user completion handlers run on a separate thread; the context switch was "the
   * major source of increase in the data transfer time", with no figure in the text. Not from the
   * papers: an AIX thread switch of that era, ≈ 8 µs.
   */
  completionThreadSwitchNs: 8_000,
  /**
   * Banikazemi et al. §6.1 interrupt mode: each arrival raises an interrupt that wakes the dispatcher (no
   * figure). Not from the papers: interrupt + thread wake-up on AIX of that era, ≈ 12 µs.
   */
  interruptNs: 12_000,
  /**
   * Banikazemi et al. §6.1: the native MPI's interrupt handler "waits for a certain period of time to
   * see if more packets are coming" (hysteresis), while "LAPI does not use any such hysteresis": 0 here.
   * The native MPI's period is user-set (IBM Parallel Environment for AIX, MPI Programming Guide,
   * MP_SETINTRDELAY / mpc_setintrdelay, environment MP_INTRDELAY, in µs; 1 µs by default); a stack
   * standing for the native MPI sets that. Added to every arrival's wake-up in interrupt mode.
   */
  interruptDelayNs: 0,
  /**
   * Not from the papers and not LAPI behaviour as such: a DAT send needs a posted receive; the simulated
   * header handler refuses a message that finds none and the origin's reliability layer (ack–retransmit)
   * sends it again this long after, for ever. 0.5 ms, the order of a retransmission timeout.
   */
  retransmitNs: 500_000,
  /** Not from the papers (and not modelled in detail): one leg of connection set-up traffic (address exchange). */
  cmDelayNs: 5_000,
} as const;

/** The lapi model's figures as numbers a configuration may override. */
export type LapiModel = { -readonly [K in keyof typeof LAPI_MODEL]: number };

/** How arrivals are noticed (Banikazemi et al. §6.1). */
export type LapiMode = 'polling' | 'interrupt';
/** Which completion handler a DAT send's target completion runs (Banikazemi et al. §5.3: in-context avoids the switch). */
export type LapiCompletionHandler = 'in-context' | 'thread';
