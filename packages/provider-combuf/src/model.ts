/**
 * The hardware model of the simulated combuf provider: Hitachi SR8000 nodes whose NIA (network
 * interface adapter) does remote DMA described by TCWs (transmission control words), on a
 * multidimensional crossbar (Tatebe et al., the FMPL paper, §3; docs/hardware-models.md lists the figures).
 *
 * Only hardware-level figures are parameters. Library-level results of the paper (FMPL 12.8 µs and
 * 9.9 µs one-way latency, 999 MB/s at 16 MB, Table 1 as a whole, MPI figures) are NOT used: they must
 * come out of the protocols built on top. Where the paper gives no figure the value is a documented
 * typical one and says so; all of them are provider parameters (params.ts).
 * Times are in ns, speeds in bytes per ns (= GB/s).
 */
export const COMBUF_MODEL = {
  /**
   * Tatebe et al. §5 "a two-dimensional crossbar network, whose bandwidth of each link is half-duplex
   * 1000MB/s" (also Tatebe et al. §3): 1000 MB/s = 1 byte/ns. Half duplex: a node's NIA injects one message
   * at a time and receives one at a time (NetworkModel's per-node serialisation).
   */
  linkBytesPerNs: 1,
  /**
   * Tatebe et al. §5.1 "the latency of the TCW-reused remote DMA transfer is 4.7 µsec": an 8-byte remote DMA
   * whose TCW exists, from the kick (storing the TCW's address in the NIA's control register) to the
   * data in the target's memory, between two nodes one crossbar apart. The NIA's per-message costs
   * are derived from it (fabric.ts, `nicOverheadNs`), so an 8-byte reused-TCW transfer takes exactly this.
   */
  tcwReusedLatencyNs: 4_700,
  /**
   * Derived from Tatebe et al. Table 1 (line 269: "Send msg 8.1" µs for an 8-byte body whose TCW "is not reused
   * but modified each time", Tatebe et al. §5.1) against the 4.7 µs of a reused TCW: ≈ 3.4 µs to create (or
   * rewrite) a TCW. A derived figure, not one the paper states. Charged to the posting rank's CPU.
   */
  tcwCreateNs: 3_400,
  /**
   * Tatebe et al. §5.1 the first transfer to a target calls `combuf_get_sendright`; the paper gives no figure
   * (the measurement excludes that first call). Not from the papers: a system call that asks the
   * target for the right to its remote DMA area, a round trip through the OS, taken as 20 µs.
   */
  sendRightNs: 20_000,
  /**
   * Not from the papers: the CPU cost of kicking a TCW (`combuf_kick_tcw_fast`: one store of the
   * TCW's address into the NIA's control register, Tatebe et al. §3.1), ≈ 0.2 µs. Part of the 4.7 µs.
   */
  kickOverheadNs: 200,
  /** Not from the papers: latency of one crossbar (a switch stage of the multidimensional crossbar), part of the 4.7 µs. */
  crossbarHopNs: 200,
  /** Not from the papers: cable latency of a link, part of the 4.7 µs. */
  linkLatencyNs: 100,
  /**
   * Not from the papers: the largest packet the NIA puts on the crossbar. A remote DMA is one
   * contiguous transfer; 4 KiB packets keep the header share small.
   */
  packetBytes: 4096,
  /** Not from the papers: header bytes per packet on the crossbar (routing, remote DMA id, offset). */
  packetHeaderBytes: 16,
  /**
   * Not from the papers (the paper gives none): host memory copy speed of one processor, used when an
   * iov of several segments must be gathered into (or scattered out of) a contiguous remote DMA area
   * (Tatebe et al. §3.1: the areas are contiguous). 2 bytes/ns, a typical single-stream memcpy of that era.
   */
  hostCopyBytesPerNs: 2,
  /** Not from the papers (and not modelled in detail): one leg of connection set-up between two nodes. */
  cmDelayNs: 5_000,
  /** Not from the papers: TCWs a node keeps before the least recently used one is rewritten. */
  tcwCacheSize: 256,
  /**
   * Tatebe et al. §3 "each dimension up to 8 nodes": nodes sit on an X×Y crossbar grid, X = min(this, nodes).
   */
  crossbarWidth: 8,
  /**
   * Tatebe et al. §5.2 "The latency of hardware barrier synchronization is 8µsec" (`hmpp_barrier`, a
   * hardware-level figure): from the last member's arrival to every member's release.
   */
  hwBarrierNs: 8_000,
  /**
   * Tatebe et al. §3.2 a broadcast source "sends a data to the 'serialized' y-crossbar, which will be
   * transferred via all x-crossbars to all other nodes" in parallel: two crossbar stages for every
   * member, wherever it sits. The data crosses them at the link rate (`linkBytesPerNs`, Tatebe et al. §5).
   */
  hwBroadcastCrossbars: 2,
} as const;

/** The combuf model's figures as numbers a configuration may override. */
export type CombufModel = { -readonly [K in keyof typeof COMBUF_MODEL]: number };
