import { describe, expect, it } from 'vitest';
import { DatStatus } from '../src/dat/status.js';
import { NetworkModel, type NetworkParameters } from '../src/sim/network-model.js';
import { Crossbar2D, flatTopology, Hypercube } from '../src/sim/topology.js';
import { thrown } from './support/dat-errors.js';

// Round numbers so that every expectation below can be checked by hand:
// a 256-byte packet carries 16 header bytes; 2 bytes/ns.
const PARAMETERS: NetworkParameters = {
  nodes: 4,
  latencyNs: 1000,
  bytesPerNs: 2,
  packetBytes: 256,
  packetOverheadBytes: 16,
  injectOverheadNs: 100,
  ejectOverheadNs: 50,
};

/** A message alone on the network, both NICs booked at once: when its target has received it. */
function alone(net: NetworkModel, src: number, dst: number, bytes: number, startNs: number): number {
  return net.eject(dst, bytes, net.inject(src, dst, bytes, startNs));
}

describe('NetworkModel', () => {
  it('packetises: exactly packetBytes is one packet, one byte more is two, an empty message one', () => {
    const net = new NetworkModel(PARAMETERS);
    expect([net.packets(0), net.packets(1), net.packets(256), net.packets(257), net.packets(512), net.packets(513)]).toEqual([1, 1, 1, 2, 2, 3]);
    expect(net.wireBytes(256)).toBe(272);
    expect(net.wireBytes(257)).toBe(289);
    expect(net.wireBytes(0)).toBe(16);
    expect(net.serializationNs(256)).toBe(136);
    expect(net.serializationNs(257)).toBe(144.5);
  });

  it('times one message: inject overhead + serialisation, latency, eject overhead', () => {
    const net = new NetworkModel(PARAMETERS);
    // 256 B: 100 + 136 = 236 injected; + 1000 = 1236 last byte in; + 50 = 1286.
    expect(net.inject(0, 1, 256, 0)).toBe(1236);
    expect(net.injectionFreeAt(0)).toBe(236);
    expect(net.eject(1, 256, 1236)).toBe(1286);
    const fresh = new NetworkModel(PARAMETERS);
    // 257 B: two packets, 289 wire bytes = 144.5 ns.
    expect(alone(fresh, 0, 1, 257, 0)).toBe(1294.5);
    expect(fresh.injectionFreeAt(0)).toBe(244.5);
    fresh.reset();
    expect(alone(fresh, 2, 3, 0, 10)).toBe(1168);
    expect(fresh.injectionFreeAt(2)).toBe(118);
  });

  it('serialises two messages from one node: the second starts injecting when the first has finished', () => {
    const net = new NetworkModel(PARAMETERS);
    expect(alone(net, 0, 1, 256, 0)).toBe(1286);
    expect(alone(net, 0, 2, 256, 0)).toBe(1522);
    expect(net.injectionFreeAt(0)).toBe(472);
    // A sender ready after its NIC is free starts at its own time.
    expect(alone(net, 0, 3, 256, 1000)).toBe(2286);
  });

  it('serialises two messages to one node: the second streams in after the first has been received', () => {
    const net = new NetworkModel(PARAMETERS);
    expect(alone(net, 0, 3, 256, 0)).toBe(1286);
    // Its last byte could be in at 1236, but node 3 receives until 1286, then 136 ns of bytes, then 50.
    expect(alone(net, 1, 3, 256, 0)).toBe(1472);
    expect(net.ejectionFreeAt(3)).toBe(1472);
    // Other nodes are unaffected.
    expect(alone(net, 2, 1, 256, 0)).toBe(1286);
  });

  it('books the target only at eject: a message injected later but ejected first is received first', () => {
    const net = new NetworkModel(PARAMETERS);
    const late = net.inject(0, 3, 256, 5000); // last byte in at 6236
    const early = net.inject(1, 3, 256, 0); // last byte in at 1236
    expect(net.ejectionFreeAt(3)).toBe(0);
    expect(net.eject(3, 256, early)).toBe(1286);
    expect(net.eject(3, 256, late)).toBe(6286);
  });

  it('adds perHopNs per hop of the topology', () => {
    const grid = new Crossbar2D(2, 2);
    const net = new NetworkModel({ ...PARAMETERS, topology: grid.hops, perHopNs: 30 });
    // 0 B messages (S = 8) from distinct nodes to distinct nodes, so that nothing serialises.
    expect(alone(net, 0, 1, 0, 0)).toBe(108 + 1000 + 30 + 50); // same row: 1 hop
    expect(alone(net, 1, 3, 0, 0)).toBe(108 + 1000 + 30 + 50); // same column: 1 hop
    expect(alone(net, 2, 0, 0, 0)).toBe(108 + 1000 + 30 + 50);
    expect(alone(net, 3, 2, 0, 0)).toBe(108 + 1000 + 30 + 50);
    const diagonal = new NetworkModel({ ...PARAMETERS, topology: grid.hops, perHopNs: 30 });
    expect(alone(diagonal, 0, 3, 0, 0)).toBe(108 + 1000 + 60 + 50); // 2 hops
    expect(alone(diagonal, 1, 1, 0, 0)).toBe(108 + 1000 + 50); // to itself: 0 hops
  });

  it('rejects a topology that gives a bad hop count', () => {
    const net = new NetworkModel({ ...PARAMETERS, topology: () => -1 });
    expect(thrown(() => net.inject(0, 1, 1, 0)).status).toBe(DatStatus.INTERNAL_ERROR);
  });

  it('rejects bad arguments naming them', () => {
    const net = new NetworkModel(PARAMETERS);
    expect(thrown(() => net.inject(4, 0, 1, 0)).argument).toBe('src');
    expect(thrown(() => net.inject(0, -1, 1, 0)).argument).toBe('dst');
    expect(thrown(() => net.inject(0, 1, 1.5, 0)).argument).toBe('bytes');
    expect(thrown(() => net.inject(0, 1, 1, Number.NaN)).argument).toBe('startNs');
    expect(thrown(() => net.eject(4, 1, 0)).argument).toBe('dst');
    expect(thrown(() => net.eject(0, -1, 0)).argument).toBe('bytes');
    expect(thrown(() => net.eject(0, 1, -1)).argument).toBe('lastByteAt');
    expect(thrown(() => net.injectionFreeAt(9)).argument).toBe('node');
    expect(net.injectionFreeAt(0)).toBe(0); // nothing was booked by the failed calls
    expect(net.ejectionFreeAt(0)).toBe(0);
    expect(thrown(() => new NetworkModel({ ...PARAMETERS, bytesPerNs: 0 })).argument).toBe('parameters.bytesPerNs');
    expect(thrown(() => new NetworkModel({ ...PARAMETERS, packetBytes: 0 })).argument).toBe('parameters.packetBytes');
    expect(thrown(() => new NetworkModel({ ...PARAMETERS, latencyNs: -1 })).argument).toBe('parameters.latencyNs');
    expect(thrown(() => new NetworkModel({ ...PARAMETERS, nodes: 0 })).argument).toBe('parameters.nodes');
    const { ejectOverheadNs: _, ...missing } = PARAMETERS;
    expect(thrown(() => new NetworkModel(missing as NetworkParameters)).message).toContain('parameters.ejectOverheadNs');
  });
});

describe('topologies', () => {
  it('flat: one hop between any two nodes, none to itself', () => {
    expect([flatTopology(0, 5), flatTopology(3, 3)]).toEqual([1, 0]);
  });

  it('Crossbar2D: node n at (n mod X, n div X); 1 hop in a row or column, else 2', () => {
    const grid = new Crossbar2D(4, 3);
    expect(grid.nodes).toBe(12);
    expect(grid.coordinates(6)).toEqual({ x: 2, y: 1 });
    expect(grid.hops(6, 6)).toBe(0);
    expect(grid.hops(6, 4)).toBe(1); // row 1
    expect(grid.hops(6, 10)).toBe(1); // column 2
    expect(grid.hops(6, 0)).toBe(2);
    expect(grid.hops(11, 0)).toBe(2);
    expect(thrown(() => grid.coordinates(12)).argument).toBe('node');
    expect(thrown(() => new Crossbar2D(0, 3)).argument).toBe('x');
  });

  it('Hypercube: hops = differing bits', () => {
    const cube = new Hypercube(3);
    expect(cube.nodes).toBe(8);
    expect([cube.hops(0, 7), cube.hops(5, 4), cube.hops(2, 2), cube.hops(1, 6)]).toEqual([3, 1, 0, 3]);
  });
});
