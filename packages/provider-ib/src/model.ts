/**
 * The hardware model of the simulated InfiniBand provider: an MT23108 HCA (InfiniHost) on 64-bit
 * 133 MHz PCI-X, IBA 4X links through an MT2400 switch, RC queue pairs driven through VAPI (Chai et al., the MVAPICH2-over-uDAPL paper).
 *
 * Only hardware-level figures are parameters. Library-level results of the paper (MVAPICH2/uDAPL
 * latency ≈ 6.7 µs, peak ≈ 867 MB/s, MPI_Put/Get times; docs/hardware-models.md) are NOT used: they
 * must come out of the protocols built on top. Where the papers give no figure, the value is a typical
 * one for MT23108-era hardware and says so; all of them are provider parameters (params.ts).
 * Times are in ns, speeds in bytes per ns (= GB/s).
 */
export const IB_MODEL = {
  /**
   * Chai et al. §2.1 "IBA 4X has bandwidth up to 10 Gbps": 10 Gbps signalling, 8b/10b coding leaves 8 Gbps of
   * data = 1 byte/ns.
   */
  linkBytesPerNs: 1,
  /**
   * Chai et al. §4.1 the nodes' host interface is 64-bit 133 MHz PCI-X: 8 bytes × 133 MHz = 1064 MB/s
   * theoretical = 1.064 bytes/ns. One shared (half-duplex) bus per node: DMA reads and writes queue.
   */
  pciBytesPerNs: 1.064,
  /**
   * Chai et al. §4.2 small sends go "in one message with the request" (inline: the CPU writes the payload
   * into the WQE, the HCA does no DMA read); the paper's boundary is 256 bytes.
   */
  inlineBytes: 256,
  /**
   * Not from the papers: the IB path MTU. MT23108 supports 2048-byte MTUs (the IBA maximum is 4096);
   * 2 KiB is the usual setting of that generation.
   */
  mtuBytes: 2048,
  /**
   * Not from the papers: IBA per-packet headers of an RC packet on the wire: LRH 8 + BTH 12 + ICRC 4
   * + VCRC 2 = 26 bytes (the RETH of an RDMA request's first packet is not counted).
   */
  packetHeaderBytes: 26,
  /**
   * Not from the papers: one link's latency outside the chips — a few metres of 4X copper cable at
   * ≈ 5 ns/m plus the SerDes, 8b/10b decoding and lane de-skew at each end; ≈ 0.1 µs (reasoned, no
   * published per-stage figure found).
   */
  linkLatencyNs: 100,
  /**
   * Not from the papers: port-to-port latency of one switch chip. Mellanox's InfiniScale III (MT47396,
   * 24 4X ports; presumably the chip of the paper's 24-port MT2400 and of its MTS14400, Chai et al. §4.1)
   * was announced with "latency under 200 ns" (Electronic Design, "Switch-Chip Fuels Third-Generation
   * InfiniBand", 10 Nov 2003).
   */
  switchHopNs: 200,
  /**
   * Not from the papers: host CPU cost of posting a work request through VAPI (build the WQE, ring the
   * doorbell with a PIO write over PCI-X); typical ≈ 0.4 µs on hosts of that era. Charged to the
   * posting rank's clock.
   */
  postOverheadNs: 400,
  /**
   * Not from the papers: HCA processing of a message before its first byte goes out, once its WQE is in
   * (QP context from the HCA's own DDR memory, which MT23108 cards carry, packet header build,
   * scheduling). No published figure found; reasoned as a few hundred cycles of the HCA's pipeline.
   */
  hcaSendOverheadNs: 250,
  /**
   * Not from the papers: HCA processing of a message after its last byte is in (QP context, PSN and
   * key checks, address translation through its memory translation table); reasoned as for sending.
   */
  hcaRecvOverheadNs: 250,
  /**
   * Not from the papers: round trip of a PCI-X DMA read issued by the HCA. A PCI-X read is a split
   * transaction: the request crosses the bus, the host bridge reads memory and returns a split
   * completion. On the dual-Xeon PCI-X 133 nodes of Chai et al. §4.1 (E7501-class) the PCI-X segment hangs off
   * a P64H2 bridge on Hub Interface 2.0 (Tom's Hardware's Xeon platform review), so a read crosses
   * two bridges to the DDR behind the memory controller and back: ≈ 0.7–1 µs for that generation;
   * 1 µs is taken. The HCA pays it for each work request (WQE) it reads after the doorbell, for each
   * payload not inline, and for each receive WQE a message consumes.
   */
  pciReadLatencyNs: 1_000,
  /**
   * Not from the papers: the doorbell — an uncached 64-bit PIO write from the CPU to the HCA's UAR page
   * (libmthca's Tavor post-send path: one mthca_write64 to MTHCA_SEND_DOORBELL) — reaching the HCA. A
   * posted write needs no round trip but crosses the same two bridges as a read's request leg: ≈ 0.3 µs.
   */
  doorbellNs: 300,
  /**
   * Not from the papers: bytes of a work request the HCA fetches by DMA after the doorbell. The Linux
   * mthca / libmthca drivers lay out Tavor (MT23108) WQEs in strides starting at 64 bytes (wqe_shift
   * starts at 6): a next segment, a remote-address segment and one 16-byte gather entry fit; inline
   * data travels inside the WQE. MT23108 has no doorbell-with-payload path (BlueFlame came with later
   * HCAs), so every post costs this read; every send and every RDMA write with immediate also costs
   * the responder the read of the receive WQE it consumes.
   */
  wqeBytes: 64,
  /**
   * Not from the papers: latency of a posted PCI-X DMA write into host memory until the CPU can see it,
   * completion entry included (posted: no return leg, unlike a read); ≈ 0.15 µs (reasoned).
   */
  pciWriteLatencyNs: 150,
  /**
   * Not from the papers: the IB minimum RNR NAK timer. IBA encoding 12 = 0.64 ms, the value MVAPICH-era
   * software commonly used. The paper only says registration and receives matter (Chai et al. §3.2).
   */
  rnrTimerNs: 640_000,
  /** IBA RNR retry count, 3 bits: 7 means retry for ever (IBA 9.7.5.2.8). Default: for ever. */
  rnrRetries: 7,
  /**
   * Chai et al. §3.2 registration is "time consuming" (hence pre-registered eager buffers); no figure in the
   * paper. Not from the papers: per-call cost of VAPI memory registration (system call, pinning set-up,
   * HCA translation table write), order of 10 µs as measured for the Mellanox stack of that era.
   */
  registerRegionNs: 10_000,
  /** Not from the papers: registration cost per 4 KiB page pinned and entered into the HCA's table, ≈ 0.25 µs. */
  registerPageNs: 250,
  /**
   * Not from the papers: the page size registration costs are counted in, 4 KiB, the base page of the
   * x86 hosts of the paper's clusters (Chai et al. §4.1 gives the processors' clock, not their pages).
   */
  pageBytes: 4096,
  /** Not from the papers (and not modelled in detail): one leg of connection-manager traffic. */
  cmDelayNs: 5_000,
} as const;

/** The ib model's figures as numbers a configuration may override. */
export type IbModel = { -readonly [K in keyof typeof IB_MODEL]: number };
