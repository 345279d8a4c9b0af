#!/usr/bin/env python3
# fuzz/gen_seeds.py - writes the hand-made seeds of fuzz/corpus/<target>/
# (named seed-*; regression inputs from crashes are kept there under
# other names and never touched). Each seed is a small valid program in
# its target's input format (see the header comment of each target), so
# that every path starts covered: split and packed, in-order or not,
# indirect, event index, batches, each kind of hostile write; each reply
# kind; valid and invalid devargs. Re-run after changing an input format:
#   python3 fuzz/gen_seeds.py
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    d = os.path.join(HERE, 'corpus', target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'seed-' + name), 'wb') as f:
        f.write(data)


# ------------------------------------------------- fuzz_split/packed_used
# byte 0 features, byte 1 ring size, byte 2 max_indirect, then opcodes
# (index into g_ops[] of fuzz_vq.c) with their arguments.
EVENT_IDX, IN_ORDER, INDIRECT, MANDATORY, ALIGN4K = 1, 2, 4, 8, 16  # GV_VQ_F_*
OP = dict(ADD=0, BURST=3, FLUSH=4, KICK=5, GET=7, RECLAIM=10, PENDING=11, ENABLE=12,
          DISABLE=13, TAKE=14, RET=17, PUB=21, BATCH=22, RAW=23, JUMP=25, SCRIBBLE=26,
          EVENT=27, RESET=29)


def add(n_out, n_in, indirect=False, lens=range(1, 64)):
    if n_in <= 3:
        b, lm = n_out | (n_in << 2), 0xaa  # length mode 2 everywhere: 1 + a byte
    else:  # a long chain: 4 + lm % 17 writable segments, no 4-byte lengths
        b = 0xe0 | n_out
        lm = next(m for m in range(256) if m % 17 == n_in - 4 and
                  all((m >> (2 * k)) & 3 != 1 for k in range(4)))
    b |= 0x10 if indirect else 0
    return bytes([OP['ADD'], b, lm]) + bytes(lens[:n_out + n_in])


def take(n):
    return bytes([OP['TAKE'], n - 1])


def ret(pick=0, publish=True, frac=0xff):
    return bytes([OP['RET'], pick | (0x80 if publish else 0), frac])


def get(n, lens=True):
    return bytes([OP['GET'], (n - 1) | (0 if lens else 0x80)])


def trips(k, n_out=1, n_in=1, indirect=False, pick=0):
    p = b''
    for i in range(k):
        p += add(n_out, n_in, indirect) + bytes([OP['KICK']]) + take(1) + ret(pick) + get(4)
    return p


def vq_seeds(target, num_byte, odd_num_byte, packed):
    w = lambda name, cfg, prog: write(target, name, bytes(cfg) + prog)
    fl = lambda sel: bytes([sel]) if packed else b''  # packed: the flags selector
    w('plain', [0, num_byte, 3], trips(12) + trips(4, 2, 0) + bytes([OP['PENDING']]))
    w('out-of-order', [0, num_byte, 3],
      add(1, 1) + add(0, 2) + add(2, 1) + bytes([OP['KICK']]) + take(3) +
      ret(2) + ret(0) + ret(0) + get(8) + trips(6))
    w('in-order-batch', [IN_ORDER | EVENT_IDX, num_byte, 3],
      bytes([OP['BURST'], 0x80 | 5, 64, OP['KICK']]) + take(6) +
      bytes([OP['BATCH'], 5, OP['RECLAIM'], 7]) + trips(10) +
      bytes([OP['ENABLE'], OP['DISABLE'], OP['ENABLE']]))
    w('indirect', [INDIRECT, num_byte, 7],
      trips(6, 2, 3, True) + trips(3, 1, 1) + add(0, 6, True) + add(1, 20) +
      bytes([OP['KICK']]) + take(2) + ret(0) + ret(0) + get(2))
    w('all-features', [IN_ORDER | EVENT_IDX | INDIRECT | MANDATORY | ALIGN4K, odd_num_byte, 7],
      trips(20, 1, 2, True) + trips(20, 1, 1) + bytes([OP['RESET']]) + trips(3))
    w('long-chain', [INDIRECT, 6 if not packed else 63, 31],
      add(1, 20) + add(2, 18, True) + bytes([OP['KICK']]) + take(2) + ret(1) + ret(0) + get(4) +
      trips(3, 3, 3))
    w('burst-tx', [IN_ORDER, num_byte, 3],
      bytes([OP['BURST'], 7, 100, OP['KICK']]) + take(8) + ret() * 8 + bytes([OP['RECLAIM'], 7]))
    # Hostile devices: each breaks the queue one way. RAW: mode byte (id
    # from: 0 u32, 2 taken[k]; length: 0 u32, 1 in_len + 1, 3 in_len; 0x20
    # split: publish), its arguments, packed: flags selector.
    base = add(1, 1) + add(0, 1) + bytes([OP['KICK']]) + take(2)
    w('bad-id', [0, num_byte, 3], base + bytes([OP['RAW'], 0x20]) +
      struct.pack('<II', 0xffff, 8) + fl(0) + get(4))
    w('bad-len', [0, num_byte, 3], base + bytes([OP['RAW'], 0x20 | 2 | (1 << 2), 0]) + fl(0) +
      get(4))
    w('bad-order', [IN_ORDER, num_byte, 3], base + bytes([OP['RAW'], 0x20 | 2 | (3 << 2), 1]) +
      fl(0) + get(4))
    w('bad-flags', [0, num_byte, 3], base + bytes([OP['RAW'], 0x20 | 2 | (3 << 2), 0]) + fl(2) +
      get(4))
    w('used-jump', [0, num_byte, 3], base + bytes([OP['JUMP'], 0, 40]) +
      (bytes([0]) if packed else b'') + get(4))
    w('scribble', [EVENT_IDX, num_byte, 3], base +
      bytes([OP['SCRIBBLE'], 7 << 1, 0, 0, 0, 0]) + b'\xff' * 8 + bytes([OP['EVENT'], 1, 1, 0]) +
      get(4) + bytes([OP['KICK'], OP['ENABLE']]))


vq_seeds('fuzz_split_used', 3, 1, False)  # split: 8 entries; 2
vq_seeds('fuzz_packed_used', 7, 4, True)  # packed: 8 entries; 5

# ----------------------------------------------------------- fuzz_vqd_take
# header: b0 (bit0 packed, bit1 EVENT_IDX, bits 4-5 base, bit6 log), b1 size,
# u16 offsets desc/driver/device, u16 arena size, u8 log size, [u64 base],
# u16 fill, arena bytes, then a program.
W, NEXT, IND = 2, 1, 4
AVAIL, USED = 1 << 7, 1 << 15


def sdesc(addr, ln, fl, nx=0):
    return struct.pack('<QIHH', addr, ln, fl, nx)


def pdesc(addr, ln, id_, fl):
    return struct.pack('<QIHH', addr, ln, id_, fl)


def arena(parts, size):
    a = bytearray(size)
    for off, b in parts:
        a[off:off + len(b)] = b
    return bytes(a)


def vqd(name, b0, b1, offs, asz, ar, prog=b'', logb=0, base=None):
    hdr = bytes([b0, b1]) + struct.pack('<HHHHB', offs[0], offs[1], offs[2], asz, logb)
    if base is not None:
        hdr += struct.pack('<Q', base)
    fill = struct.pack('<H', len(ar))
    write('fuzz_vqd_take', name, hdr + fill + ar + prog)


def avail(idx, heads):
    return struct.pack('<HH', 0, idx) + b''.join(struct.pack('<H', h) for h in heads)


# split, 4 entries: desc @0, avail @64, used @128, data from 256
vqd('split-chain', 0, 2, (0, 64, 128), 512, arena([
    (0, sdesc(256, 16, NEXT, 1) + sdesc(272, 32, W | NEXT, 2) + sdesc(304, 8, W)),
    (64, avail(1, [0]))], 320))
vqd('split-indirect', 0x40, 2, (0, 64, 128), 512, arena([
    (0, sdesc(400, 48, IND)),
    (64, avail(1, [0])),
    (400, sdesc(256, 16, NEXT, 1) + sdesc(272, 32, W | NEXT, 2) + sdesc(304, 8, W))], 448),
    logb=4)
vqd('split-two-event-idx', 2, 2, (0, 64, 128), 512, arena([
    (0, sdesc(256, 16, 0) + sdesc(272, 64, W)),
    (64, avail(2, [0, 1]))], 320), prog=bytes([0, 3, 0, 3, 0, 3, 5, 0, 4, 0, 4, 1, 0, 0]))
vqd('split-loop', 0, 2, (0, 64, 128), 512, arena([
    (0, sdesc(256, 16, NEXT, 1) + sdesc(272, 16, NEXT, 0)),
    (64, avail(1, [0]))], 320))
vqd('split-bad-indirect', 0, 2, (0, 64, 128), 512, arena([
    (0, sdesc(400, 40, IND)), (64, avail(1, [0]))], 448))
HIGH = 0xffffffffffff0000
vqd('split-high-base', 0x20, 2, (0, 64, 128), 512, arena([
    (0, sdesc(HIGH + 256, 16, NEXT, 1) + sdesc(HIGH + 272, 240, W)),
    (64, avail(1, [0]))], 320), logb=200)
vqd('split-wrapping-len', 0x60, 2, (0, 64, 128), 512, arena([
    (0, sdesc(HIGH + 256, 16, NEXT, 1) + sdesc(HIGH + 272, 0xffffffff, W)),
    (64, avail(1, [0]))], 320), logb=200)
# packed, 4 entries: desc @0, driver event @64, device event @68
vqd('packed-chain', 1, 3, (0, 64, 68), 512, arena([
    (0, pdesc(256, 16, 0, AVAIL | NEXT) + pdesc(272, 32, 0, AVAIL | W | NEXT) +
     pdesc(304, 8, 0, AVAIL | W) + pdesc(320, 8, 1, AVAIL | W))], 336),
    prog=bytes([1, 7, 6, 0, 5, 0]))
vqd('packed-indirect', 0x43, 3, (0, 64, 68), 512, arena([
    (0, pdesc(400, 32, 2, AVAIL | IND)),
    (400, pdesc(256, 16, 0, 0) + pdesc(272, 32, 0, W))], 448), logb=2)
# one entry: take, return, publish; the driver makes it available again in
# the next lap (AVAIL 0, USED 1), take again
vqd('packed-wrap', 1, 0, (0, 64, 68), 512, arena([
    (0, pdesc(256, 16, 0, AVAIL | W))], 320),
    prog=bytes([0, 3, 2, 15, 0, 0]) + pdesc(256, 16, 0, USED | W) + bytes([0, 3, 0, 3]))

# ---------------------------------------------------------- fuzz_vhu_reply
# byte 0 kind (0 u64, 1 state, 2 config; bit 7 encoders), byte 1 request
# index (0 GET_FEATURES, 8 GET_VRING_BASE, 15 GET_CONFIG), u32 cfg offset,
# u16 cfg size, then the reply.
def vhu(name, kind, req_idx, cfg_off, cfg_size, reply, enc=b''):
    write('fuzz_vhu_reply', name, bytes([kind | (0x80 if enc else 0), req_idx]) +
          struct.pack('<IH', cfg_off, cfg_size) + enc + reply)


def hdr(req, flags, size):
    return struct.pack('<III', req, flags, size)


vhu('u64-features', 0, 0, 0, 0, hdr(1, 5, 8) + struct.pack('<Q', 0x1_7000_0000))
vhu('u64-no-reply-flag', 0, 0, 0, 0, hdr(1, 1, 8) + struct.pack('<Q', 1))
vhu('u64-wrong-request', 0, 0, 0, 0, hdr(2, 5, 8) + struct.pack('<Q', 1))
vhu('u64-trailing', 0, 0, 0, 0, hdr(1, 5, 8) + bytes(9))
vhu('state-base', 1, 8, 0, 0, hdr(11, 5, 8) + struct.pack('<II', 1, 0x8000))
vhu('state-truncated', 1, 8, 0, 0, hdr(11, 5, 8) + bytes(4))
vhu('config-mac', 2, 15, 0, 6, hdr(24, 5, 18) + struct.pack('<III', 0, 6, 0) + b'\x02\0\0\0\0\1')
vhu('config-failed', 2, 15, 0, 6, hdr(24, 5, 0))
vhu('config-other-offset', 2, 15, 8, 2, hdr(24, 5, 14) + struct.pack('<III', 0, 2, 0) + b'\0\0')
vhu('config-too-big', 2, 15, 0, 290, hdr(24, 5, 12 + 290) + bytes(12 + 290))
# encoders: cap, request, flags, u64, state, vring addr, 2 regions (of 9
# read), config size, config bytes, config offset and flags
region = struct.pack('<QQQQ', 0x100000, 0x1000, 0x7f0000000000, 0)
vhu('encoders', 0, 0, 0, 0, hdr(1, 5, 8) + bytes(8),
    enc=struct.pack('<HIB', 300, 5, 8) + bytes(8) + bytes(8) + bytes(40) + b'\x02' +
    region * 2 + bytes(7 * 32) + struct.pack('<H', 7) + bytes(300) + bytes(8))

# ------------------------------------------------------------ fuzz_devargs
for i, s in enumerate([
        'path=/tmp/gv.sock',
        'path=/tmp/gv.sock,server=1,queues=4,queue_size=1024,mac=02:00:00:00:00:01,'
        'packed_vq=1,mrg_rxbuf=0,in_order=0,datapath=inorder,speed=25000',
        'path=/run/a,datapath=full,queues=0x10,queue_size=0400',
        'path=/tmp/s,queues=129',
        'path=/tmp/s,queue_size=1',
        'path=/tmp/s,mac=01:00:5e:00:00:01',
        'path=/tmp/s,server=2',
        'path=/tmp/s,datapath=fast',
        'queues=2',
        'path=',
        'path=/tmp/s,bogus=1',
        'path=/tmp/s,speed=4294967296',
        'path=/tmp/s,queues=-1,queue_size= 64',
        'path=/tmp/s,path=/tmp/t,mac',
        'path=[/tmp/a,b],queues=2',
        'path=a=b',
        'path=' + 'x' * 107,
        'path=' + 'x' * 108,
        'path=/tmp/s,mrg_rxbuf=0,vectorized=1',
        'path=/tmp/s,vectorized=0,vectorized=2',
        'path=/tmp/s,mrg_rxbuf=1,rx_hdr_line=own',
        'path=/tmp/s,rx_hdr_line=shared,rx_hdr_line=owned',
]):
    write('fuzz_devargs', '%02d' % i, s.encode())

# ---------------------------------------------------------------- fuzz_pmd
# header: ring/port byte, datapath + RX offloads, TX offloads + offered,
# offered + lsc, u16 nb_desc, u16 queue_max, u16 mtu, control answer mode,
# 32 config bytes; then opcodes (g_ops[] of fuzz/pmd/fuzz_pmd.c).
PACKED, MRG, INORDER, INDIRECT, EVIDX, SMALL, TWOQ, LEGACY = 1, 2, 4, 8, 16, 32, 64, 128
F_SIMPLE, F_INORDER, F_FULL = 1, 2, 3
RX_CSUM, RX_LRO, RX_VLAN, RX_HASH, RX_SCATTER, MQ_RSS = 4, 8, 16, 32, 64, 128
TX_MSEG, TX_CSUM, TX_TSO, TX_VLAN, TX_IP, O_MQ, O_CTRL, O_RSS = 1, 2, 4, 8, 16, 32, 64, 128
O_STATUS, O_MTU, O_SPEED, O_MAC, O_ORDER, O_CSUM, O_TSO, LSC = 1, 2, 4, 8, 16, 32, 64, 128
P = dict(RX=0, TX=1, TAKE=2, FILLPUSH=3, DELIVER=4, TXDONE=5, RAW=6, CFG=7, CTRL=8, STATS=9,
         PUB=10, STOP=11, START=12, MTU=13)
OFFER_ALL = (O_STATUS | O_MTU | O_SPEED | O_MAC | O_CSUM | O_TSO)


def pcfg(status=1, pairs=2, mtu=1500, speed=10000, key=40, table=128, types=0x3f):
    return (bytes([2, 0, 0, 0, 0, 1]) + struct.pack('<HHHIB', status, pairs, mtu, speed, 1) +
            struct.pack('<BHI', key, table, types) + bytes(8))


def phdr(b0, b1, b2, b3, nb=256, qmax=1024, mtu=1500, ctrl=0, cfg=None):
    return (bytes([b0, b1, b2, b3]) + struct.pack('<HHHB', nb, qmax, mtu, ctrl) +
            (cfg if cfg is not None else pcfg()))


def frame(kind=0, ln=100, off=0, over=b''):
    return bytes([kind]) + struct.pack('<H', ln) + bytes([off, len(over)]) + over


def nethdr(flags=0, gso=0, hdr_len=0, gso_size=0, cstart=0, coff=0, nbuf=1, hval=0, hrep=0):
    return struct.pack('<BBHHHHHIHH', flags, gso, hdr_len, gso_size, cstart, coff, nbuf,
                       hval, hrep, 0)


def deliver(q=0, h=None, fr=None):
    return bytes([P['DELIVER'], q]) + (h or nethdr()) + (fr or frame())


def rx(q=0, n=32):
    return bytes([P['RX'], q, n])


def txp(shape=0, fr=None, tso=0, extra=b''):
    # shape: bits 0-1 segments-1, 8 no headroom, bits 4-6 offload kind, 128 clone
    b = bytes([shape]) + (fr or frame(0, 80))
    return b + struct.pack('<H', tso) + extra


def tx(pkts, q=0):
    return bytes([P['TX'], q, len(pkts)]) + b''.join(pkts)


def txdone(q=0, batch=False, n=8):
    return bytes([P['TXDONE'], q, 1 if batch else 0, n])


def traffic(k=4, hdrs=None, frames=None):
    p = b''
    for i in range(k):
        p += deliver(0, hdrs[i % len(hdrs)] if hdrs else None,
                     frames[i % len(frames)] if frames else frame(0, 60 + 40 * i)) + rx()
    return p


TCP4, UDP4, VLAN, TCP6 = 0, 4, 1, 2
csum_hdr = nethdr(flags=1, cstart=34, coff=16)
lro_hdr = nethdr(flags=2, gso=1, gso_size=1448, hdr_len=54)
txs = [txp(0), txp(0x20, frame(TCP4, 200)), txp(0x31, frame(UDP4, 300)), txp(0x8, frame(0, 90)),
       txp(0x42, frame(TCP4, 1400), tso=500), txp(0x50, frame(0, 100), extra=b'\x05\x00'),
       txp(0x80, frame(0, 64)), txp(0x10, frame(TCP4, 120))]
for layout, lname in ((0, 'split'), (PACKED, 'packed')):
    for io in (0, INORDER):
        iname = '-inorder' if io else ''
        # mergeable RX with every RX offload, full TX with offloads
        write('fuzz_pmd', lname + iname + '-mrg-offloads',
              phdr(layout | io | MRG | INDIRECT | EVIDX, RX_CSUM | RX_LRO | RX_VLAN,
                   TX_MSEG | TX_CSUM | TX_TSO | TX_VLAN | TX_IP | O_CTRL, OFFER_ALL) +
              traffic(4, [csum_hdr, lro_hdr, nethdr(flags=2)],
                      [frame(TCP4, 100), frame(VLAN, 3000), frame(UDP4, 60)]) +
              tx(txs) + txdone(0, bool(io)) + tx(txs[:4]) + txdone(0, False) + rx())
        # simple RX and TX paths, no offloads, no control queue
        write('fuzz_pmd', lname + iname + '-simple',
              phdr(layout | io, F_SIMPLE if not io else F_INORDER, 0, O_STATUS | O_MAC) +
              traffic(4) + tx([txp(0)] * 6) + txdone(0, bool(io)) + tx([txp(0)] * 3) + rx())
        # the full RX path: chains of small mbufs, checksum offload
        write('fuzz_pmd', lname + iname + '-full-chains',
              phdr(layout | io | SMALL | INDIRECT, F_FULL | RX_CSUM | RX_SCATTER,
                   TX_MSEG | TX_CSUM | O_CTRL, OFFER_ALL, nb=64) +
              traffic(3, [csum_hdr, nethdr()], [frame(TCP4, 1000), frame(UDP4, 100)]) +
              tx([txp(0x21, frame(TCP4, 600)), txp(0x2, frame(0, 900))]) + txdone() + rx())

# hostile writes, each on split and packed
for layout, lname in ((0, 'split'), (PACKED, 'packed')):
    base = phdr(layout | MRG | EVIDX, RX_CSUM | RX_VLAN, O_CTRL | TX_MSEG, OFFER_ALL, nb=32)
    # lengths beyond what was posted, any id, any ndesc
    write('fuzz_pmd', lname + '-bad-len',
          base + bytes([P['FILLPUSH'], 1, 0, 0x05, 0]) + nethdr() + frame(0, 60) + b'\x10' + rx())
    write('fuzz_pmd', lname + '-bad-id',
          base + bytes([P['FILLPUSH'], 1, 0, 0x09, 0]) + nethdr() + frame(0, 60) +
          struct.pack('<H', 999) + rx())
    # a raw used entry / descriptor, in flight or not
    raw = (bytes([P['RAW'], 1, 0, 0]) + struct.pack('<II', 5, 70) + b'\x00\x01') if not layout \
        else (bytes([P['RAW'], 1, 0, 2]) + struct.pack('<II', 5, 70) + struct.pack('<H', 0))
    write('fuzz_pmd', lname + '-raw-used', base + raw + rx())
    # num_buffers wrong (flag 0x80 keeps the header's own): 0, 200, more than sent
    write('fuzz_pmd', lname + '-num-buffers',
          base + deliver(0, nethdr(flags=0x80, nbuf=0)) + rx() +
          deliver(0, nethdr(flags=0x80, nbuf=200)) + rx() +
          deliver(0, nethdr(flags=0x80, nbuf=3), frame(0, 100)) + rx() + traffic(2))
    # checksum offsets outside the packet, odd, at the end; VLAN-tagged runts
    write('fuzz_pmd', lname + '-csum-offsets',
          base + traffic(4, [nethdr(flags=1, cstart=2000, coff=6), nethdr(flags=1, cstart=33, coff=1),
                             nethdr(flags=1, cstart=0, coff=98), nethdr(flags=1, cstart=60, coff=65535)]) +
          deliver(0, nethdr(), frame(VLAN, 2)) + rx() + deliver(0, nethdr(), frame(VLAN, 15)) + rx())
    # TX completions with lengths, an in-order batch on a ring without it
    write('fuzz_pmd', lname + '-tx-hostile',
          base + tx(txs[:4]) + bytes([P['TXDONE'], 0, 2, 4]) + struct.pack('<IIII', 1, 99999, 0, 7) +
          tx(txs[:4]) + txdone(0, True) + tx(txs[:2]))

# control queue answers: OK, ERR, none (timeout), hostile entry, odd ack; per command
for mode in range(4, 8):
    write('fuzz_pmd', 'ctrl-answer-%d' % mode,
          phdr(MRG | EVIDX, 0, O_CTRL | TWOQ * 0, OFFER_ALL, ctrl=mode) +
          bytes([P['CTRL'], 0]) + bytes(6) + bytes([P['CTRL'], 4, 2, 0, 0, 0, 0, 9]) + traffic(2))
write('fuzz_pmd', 'ctrl-per-command',
      phdr(MRG | EVIDX, RX_VLAN, O_CTRL, OFFER_ALL, ctrl=128) + bytes([0, 0, 0, 0]) +
      b''.join(bytes([P['CTRL'], w]) + bytes([2, 0, 0, 0, 0, 1]) + bytes([w % 8, 1, 0, 0, 0]) +
               b'\x02\x00' for w in range(9)) + traffic(2))
# config space: link down/up, announce (a RARP on TX 0 and ANNOUNCE_ACK), MTU, speed
write('fuzz_pmd', 'config-changes',
      phdr(MRG | EVIDX, 0, O_CTRL, OFFER_ALL | LSC) + traffic(1) +
      bytes([P['CFG'], 6, 2, 0, 0]) + bytes([P['CFG'], 6, 2, 1, 0]) +
      bytes([P['CFG'], 6, 2, 3, 0]) + txdone() + bytes([P['CFG'], 10, 0x84, 0xff, 0xff, 0, 0]) +
      bytes([P['MTU']]) + struct.pack('<H', 9000) + bytes([P['STATS'], 1]) + traffic(1))
# RSS with the hash report, two queue pairs; RSS limits from the config
write('fuzz_pmd', 'rss-two-queues',
      phdr(MRG | EVIDX | TWOQ, RX_HASH | MQ_RSS, O_MQ | O_CTRL | O_RSS, OFFER_ALL) +
      traffic(2, [nethdr(nbuf=1, hval=0x12345678, hrep=2)]) + deliver(1) + rx(1) +
      bytes([P['CTRL'], 9]) + bytes(6) + bytes([40]) + struct.pack('<Q', 0x3c) + bytes(64) +
      bytes([P['CTRL'], 10]) + bytes(6) + struct.pack('<Q', 0xffffffffffffffff) * 8 +
      tx(txs[:2], 1) + txdone(1))
write('fuzz_pmd', 'rss-odd-limits',
      phdr(MRG | TWOQ, RX_HASH | MQ_RSS, O_MQ | O_CTRL | O_RSS, OFFER_ALL,
           cfg=pcfg(pairs=16, key=255, table=1024, types=0xffffffff)) + traffic(1))
# start/stop cycles with traffic in flight; a legacy device (10-byte header)
write('fuzz_pmd', 'stop-start',
      phdr(MRG | EVIDX, 0, O_CTRL, OFFER_ALL) + deliver(0) + tx(txs[:3]) +
      bytes([P['STOP'], P['START']]) + traffic(2) + bytes([P['TAKE'], 1, 0, 4, P['STOP'], P['START']]) +
      traffic(1))
write('fuzz_pmd', 'legacy', phdr(LEGACY | EVIDX, RX_CSUM, TX_CSUM, O_CSUM) + traffic(2, [csum_hdr]) +
      tx(txs[:3]) + txdone())
write('fuzz_pmd', 'queue-max-tiny', phdr(0, 0, 0, 0, nb=1000, qmax=3) + traffic(3))
# a VLAN-tagged frame written whole, returned with 2 bytes (strip of a runt)
for layout, lname in ((0, 'split'), (PACKED, 'packed')):
    write('fuzz_pmd', lname + '-vlan-runt',
          phdr(layout | MRG | EVIDX, RX_VLAN, 0, OFFER_ALL, nb=32) +
          bytes([P['FILLPUSH'], 1, 0, 7, 0]) + nethdr() + frame(VLAN, 64) + struct.pack('<I', 14) +
          rx())
# HASH_REPORT (20-byte header) on chained TX: no headroom, two segments
write('fuzz_pmd', 'tx-hash-header',
      phdr(MRG | EVIDX, RX_HASH | MQ_RSS, O_CTRL | O_RSS | TX_MSEG, OFFER_ALL) +
      tx([txp(0x08, frame(0, 90)), txp(0x01, frame(TCP4, 300)), txp(0x09, frame(0, 200))]) +
      txdone(0, False, 8) + traffic(1))
# the vector RX path (split, no mergeable buffers, no RX offloads; taken
# when the port has vectorized=1: test_pmd_hostile replays with it)
def fillpush(i, how=1, fr=None, extra=b''):
    # how: 1 fill, 2 length = all given, 4 more than given, 8 id from input
    return (bytes([P['FILLPUSH'], 1, 0, how, i]) + nethdr() +
            ((fr or frame(0, 60 + 3 * i)) if how & 1 else b'') + extra)


vbase = phdr(EVIDX, 0, 0, O_STATUS | O_MAC, nb=64)
# steady traffic in bursts that wrap the ring at odd positions
write('fuzz_pmd', 'split-vec-steady',
      vbase + (b''.join(deliver(0, None, frame(0, 60 + k)) for k in range(45)) + rx(0, 64)) * 4)
# buffers returned out of order (holes), a runt, then in order again
write('fuzz_pmd', 'split-vec-out-of-order',
      vbase + traffic(2) + bytes([P['TAKE'], 1, 0, 8]) + fillpush(5) + fillpush(0) + rx() +
      fillpush(3) + fillpush(0, 0) + rx() + b''.join(fillpush(0) for _ in range(8)) + rx() +
      traffic(3))
# an id returned twice (not in flight), then one out of range
write('fuzz_pmd', 'split-vec-dup-id',
      vbase + traffic(2) + bytes([P['TAKE'], 1, 0, 4]) + fillpush(2) + rx() +
      fillpush(0, 1 | 8, None, struct.pack('<H', 0)) + rx() +
      fillpush(0, 1 | 8, None, struct.pack('<H', 999)) + rx() + traffic(1))
# a length beyond the buffer: refused and counted
write('fuzz_pmd', 'split-vec-bad-len',
      vbase + traffic(2) + fillpush(0, 1 | 4, None, b'\x10') + rx())
# IN_ORDER negotiated: out of order breaks the queue
write('fuzz_pmd', 'split-vec-inorder-bad-order',
      phdr(INORDER | EVIDX, 0, 0, O_STATUS | O_MAC, nb=64) + traffic(2) +
      bytes([P['TAKE'], 1, 0, 4]) + fillpush(2) + rx() + traffic(1))
# the same on a packed ring (a size that is not a power of two)
pvbase = phdr(PACKED | EVIDX, 0, 0, O_STATUS | O_MAC, nb=60)
write('fuzz_pmd', 'packed-vec-steady',
      pvbase + (b''.join(deliver(0, None, frame(0, 60 + k)) for k in range(45)) + rx(0, 64)) * 4)
write('fuzz_pmd', 'packed-vec-out-of-order',
      pvbase + traffic(2) + bytes([P['TAKE'], 1, 0, 8]) + fillpush(5) + fillpush(0) + rx() +
      fillpush(3) + fillpush(0, 0) + rx() + b''.join(fillpush(0) for _ in range(8)) + rx() +
      traffic(3))
write('fuzz_pmd', 'packed-vec-dup-id',
      pvbase + traffic(2) + bytes([P['TAKE'], 1, 0, 4]) + fillpush(2) + rx() +
      fillpush(0, 1 | 8, None, struct.pack('<H', 0)) + rx() +
      fillpush(0, 1 | 8, None, struct.pack('<H', 999)) + rx() + traffic(1))
write('fuzz_pmd', 'packed-vec-bad-len',
      pvbase + traffic(2) + fillpush(0, 1 | 4, None, b'\x10') + rx())
write('fuzz_pmd', 'packed-vec-inorder-bad-order',
      phdr(PACKED | INORDER | EVIDX, 0, 0, O_STATUS | O_MAC, nb=60) + traffic(2) +
      bytes([P['TAKE'], 1, 0, 4]) + fillpush(2) + rx() + traffic(1))
# a raw descriptor at the used position (1) with flags no lap allows (USED
# without AVAIL in lap 1), then one (id 5) returned early at position 2
write('fuzz_pmd', 'packed-vec-raw-used',
      pvbase + traffic(1) + bytes([P['RAW'], 1, 0, 0]) + struct.pack('<II', 5, 70) +
      struct.pack('<HH', 1, 0x8000) + rx() + bytes([P['RAW'], 1, 0, 2]) +
      struct.pack('<II', 5, 70) + struct.pack('<H', 2) + rx())
# a used index far ahead of what is in flight
write('fuzz_pmd', 'split-vec-used-idx',
      vbase + traffic(1) + bytes([P['RAW'], 1, 0, 0]) + struct.pack('<II', 1, 70) + b'\x00\x7f' +
      rx())
