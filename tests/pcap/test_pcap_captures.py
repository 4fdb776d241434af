#!/usr/bin/python3
"""Packet captures of a scenario (outputs.pcap) are byte-exact and decode cleanly in tshark.

Runs tests/pcap/pcap-incast.json (MRC with trims; RoCEv2 with CNPs and PFC pauses) with
`mrcsim run --out DIR`, then, for every pcap file written:
  - the file: nanosecond pcap (magic 0xa1b23c4d), Ethernet link type, timestamps never going back;
  - every frame, parsed here independently of the simulator: IPv6 payload length and UDP length
    equal to the bytes on the wire (trimmed packets included), UDP checksum over the IPv6
    pseudo-header with the final destination (RFC 768, RFC 8200 section 8.1), the RoCEv2 ICRC
    (CRC-32 over the masked headers, IBA Annex A17; zlib here), QPNs other than 0 and 1, PFC
    frames of 60 bytes to 01:80:C2:00:00:01; the two ends of a link hold the same frames;
  - tshark (with scripts/mrc-dissector.lua; the files of a transport merged by mergecap, one
    interface each, so that one tshark run reads them all) finds no malformed frame and no
    error-level expert info, and decodes each frame as what its bytes say; RoCEv2 frames also
    pass tshark's own UDP checksum check;
  - the expected protocols appear: RDMA WRITEs, ACKs, CNPs and PFC PAUSEs (RoCEv2), RDMA WRITEs,
    SACKs, trim NACKs and trimmed packets (MRC).
A deliberately broken capture (the old bug: UDP length 4132 in a 24-byte IPv6 payload) must be
flagged by the same tshark check, so that the check is known to bite.

usage: test_pcap_captures.py MRCSIM SOURCE_DIR
"""
import collections
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

ETH = 14
PCAP_NS_MAGIC = 0xA1B23C4D
WRITE_OPCODES = {6, 7, 8, 10}
ACK, CNP, SACK, NACK, PROBE = 0x11, 0x81, 0xC0, 0xC1, 0xC2
TRIMMED_DSCP = 46
TRIMMED_SIZE = 64  # ns3::PortQueueConfig::TrimmedSize: IPv6 packet bytes kept by a trim


def read_pcap(path):
    """The (timestamp ns, frame bytes) of a pcap file; checks its global header."""
    with open(path, "rb") as f:
        data = f.read()
    magic, major, minor, _, _, _, link = struct.unpack("<IHHiIII", data[:24])
    assert magic == PCAP_NS_MAGIC, f"{path}: magic {magic:#x}, want {PCAP_NS_MAGIC:#x} (nanoseconds)"
    assert (major, minor, link) == (2, 4, 1), f"{path}: version {major}.{minor}, link type {link}"
    frames, at = [], 24
    while at < len(data):
        sec, nsec, incl, orig = struct.unpack("<IIII", data[at:at + 16])
        assert nsec < 10**9 and incl == orig, f"{path}: bad record header at byte {at}"
        frames.append((sec * 10**9 + nsec, data[at + 16:at + 16 + incl]))
        at += 16 + incl
    return frames


def final_destination(dst):
    """A uSID carrier (fc00::/16) once every uSID but the last is shifted out."""
    dst = bytearray(dst)
    if dst[0] == 0xFC and dst[1] == 0:
        while dst[6] or dst[7]:
            dst[4:16] = dst[6:16] + b"\0\0"
    return bytes(dst)


def udp_checksum_ok(ip):
    """RFC 768 over the RFC 8200 pseudo-header (final destination): the sum must be 0xFFFF."""
    udp_len = struct.unpack(">H", ip[44:46])[0]
    pseudo = ip[8:24] + final_destination(ip[24:40]) + struct.pack(">IxxxB", udp_len, 17)
    data = pseudo + ip[40:40 + udp_len]
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f">{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total == 0xFFFF and ip[46:48] != b"\0\0"


def icrc(ip):
    """The RoCEv2 ICRC of an IPv6 packet ending with it, as the receiver recomputes it."""
    masked = bytearray(ip[:60])
    masked[0] |= 0x0F  # traffic class and flow label
    masked[1:4] = b"\xff\xff\xff"
    masked[7] = 0xFF  # hop limit
    masked[24:40] = final_destination(masked[24:40])
    masked[46:48] = b"\xff\xff"  # UDP checksum
    masked[52] = 0xFF  # BTH FECN, BECN, reserved
    return zlib.crc32(b"\xff" * 8 + bytes(masked) + ip[60:-4]) & 0xFFFFFFFF


def check_frame(path, n, frame, counts):
    """Checks one frame's bytes; counts what it is."""
    where = f"{path} frame {n}"
    ethertype = struct.unpack(">H", frame[12:14])[0]
    if ethertype == 0x8808:
        assert len(frame) == 60, f"{where}: PFC frame of {len(frame)} bytes, want 60"
        assert frame[:6] == bytes.fromhex("0180c2000001"), f"{where}: PFC destination {frame[:6].hex()}"
        assert frame[14:16] == b"\x01\x01", f"{where}: MAC control opcode {frame[14:16].hex()}"
        counts["pfc"] += 1
        return
    assert ethertype == 0x86DD, f"{where}: EtherType {ethertype:#x}"
    ip = frame[ETH:]
    assert ip[0] >> 4 == 6 and ip[6] == 17, f"{where}: not IPv6 / UDP"
    payload_len = struct.unpack(">H", ip[4:6])[0]
    udp_len = struct.unpack(">H", ip[44:46])[0]
    assert payload_len == len(ip) - 40, f"{where}: IPv6 payload length {payload_len} for {len(ip) - 40} bytes"
    assert udp_len == payload_len, f"{where}: UDP length {udp_len} in an IPv6 payload of {payload_len}"
    assert struct.unpack(">H", ip[42:44])[0] == 4791, f"{where}: UDP destination port"
    assert udp_checksum_ok(ip), f"{where}: bad UDP checksum {ip[46:48].hex()}"
    want = icrc(ip)
    got = struct.unpack("<I", ip[-4:])[0]
    assert got == want, f"{where}: ICRC {got:#010x}, want {want:#010x}"
    qpn = int.from_bytes(ip[53:56], "big")
    assert qpn >= 2, f"{where}: QPN {qpn} (0 and 1 are InfiniBand's SMI and GSI QPs)"
    opcode = ip[48]
    dscp = ip[0] << 2 & 0x3C | ip[1] >> 6
    if dscp == TRIMMED_DSCP and opcode in WRITE_OPCODES:
        assert len(ip) == TRIMMED_SIZE + 4, f"{where}: trimmed packet of {len(ip)} bytes"
        counts["trimmed"] += 1
    elif opcode in WRITE_OPCODES:
        counts["write"] += 1
    else:
        counts[{ACK: "ack", CNP: "cnp", SACK: "sack", NACK: "nack", PROBE: "probe"}.get(opcode, hex(opcode))] += 1


def tshark(args):
    r = subprocess.run(["tshark"] + args, capture_output=True, text=True)
    errors = [l for l in r.stderr.splitlines() if "Running as user" not in l and l.strip()]
    assert r.returncode == 0 and not errors, f"tshark {' '.join(args)}: exit {r.returncode}\n{r.stderr}"
    return r.stdout


ERROR_SEVERITY = 0x00800000  # PI_ERROR: _ws.expert.severity >= error


def tshark_decode(paths, lua, workdir, extra=()):
    """Decodes the files in one tshark run (mergecap keeps each file as an interface of its own).

    Returns, by file, the frames counted by what tshark (and the MRC dissector) decoded them as,
    and a list of problems: malformed frames and error-level expert info, per frame
    (_ws.malformed || _ws.expert.severity >= error) and in tshark's `-z expert,error` table."""
    merged = os.path.join(workdir, "merged.pcapng")
    subprocess.run(["mergecap", "-I", "none", "-w", merged] + list(paths), check=True)
    fields = ["frame.interface_id", "frame.number", "_ws.malformed", "_ws.expert.severity", "_ws.expert.message",
              "infiniband.bth.opcode", "macc.opcode", "mrc.trimmed", "mrc.sack", "mrc.nack", "mrc.probe"]
    out = tshark(["-r", merged, "-X", f"lua_script:{lua}", "-q", "-z", "expert,error", "-T", "fields",
                  "-E", "separator=|"] + [a for f in fields for a in ("-e", f)] + list(extra))
    counts = [collections.Counter() for _ in paths]
    problems = []
    lines = out.splitlines()
    while lines and "|" in lines[0]:
        iface, number, malformed, severity, message, ib, macc, trimmed, sack, nack, probe = lines.pop(0).split("|")
        if malformed or max((int(v) for v in severity.split(",") if v), default=0) >= ERROR_SEVERITY:
            problems.append(f"{paths[int(iface)]} (merged frame {number}): {message}")
        c = counts[int(iface)]
        if ib:
            op = int(ib.split(",")[0], 0)
            c["write" if op in WRITE_OPCODES else {ACK: "ack", CNP: "cnp"}.get(op, f"ib-{op:#x}")] += 1
        elif macc:
            c["pfc" if int(macc.split(",")[0], 0) == 0x0101 else "macc"] += 1
        elif trimmed:
            c["trimmed"] += 1
        elif sack or nack or probe:
            c["sack" if sack else "nack" if nack else "probe"] += 1
        else:
            c["undecoded"] += 1
    table = [l for l in lines if l.strip()]
    if table:
        problems.append("tshark -z expert,error:\n" + "\n".join(table))
    return counts, problems


def broken_capture(path):
    """A nanosecond pcap with one frame whose UDP length (4132) overruns its 24-byte payload."""
    ip = bytearray(64)
    ip[0] = 0x60
    ip[4:6] = struct.pack(">H", 24)
    ip[6], ip[7] = 17, 64
    ip[8], ip[24] = 0xFD, 0xFD
    ip[40:48] = struct.pack(">HHHH", 0xC000, 4791, 4132, 0)
    ip[48] = 6  # RDMA WRITE First: a RETH should follow
    ip[55] = 0x10
    frame = bytes(6) + bytes.fromhex("020000000001") + b"\x86\xdd" + bytes(ip)
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", PCAP_NS_MAGIC, 2, 4, 0, 0, 65535, 1))
        f.write(struct.pack("<IIII", 0, 1, len(frame), len(frame)) + frame)


def main():
    mrcsim, source = sys.argv[1], sys.argv[2]
    for tool in ("tshark", "mergecap"):
        if not shutil.which(tool):
            sys.exit(f"test_pcap_captures.py: {tool} is not installed (scripts/setup.sh installs it: apt-get install tshark)")
    lua = os.path.join(source, "scripts", "mrc-dissector.lua")
    scenario = os.path.join(source, "tests", "pcap", "pcap-incast.json")
    with tempfile.TemporaryDirectory(prefix="mrcsim-pcap-") as out:
        broken = os.path.join(out, "broken.pcap")
        broken_capture(broken)
        _, problems = tshark_decode([broken], lua, out)
        assert len(problems) == 2, f"tshark's checks did not both flag a malformed frame: {problems}"

        subprocess.run([mrcsim, "run", scenario, "--out", out, "--quiet"], check=True, stdout=subprocess.DEVNULL)
        want = {
            "rocev2": {"write", "ack", "cnp", "pfc"},
            "mrc": {"write", "sack", "nack", "trimmed"},
        }
        for transport, kinds in want.items():
            directory = os.path.join(out, transport, "pcap")
            files = sorted(os.listdir(directory))
            # Both ends of the three links selected.
            assert files == ["gpu0-port0.pcap", "gpu4-port0.pcap", "p0.t0.0-port0.pcap", "p0.t0.0-port16.pcap",
                             "p0.t0.0-port4.pcap", "p0.t1.0-port0.pcap"], f"{transport}: {files}"
            paths = [os.path.join(directory, name) for name in files]
            # tshark's UDP checksum check uses the destination in flight: right for RoCEv2, whose
            # addresses do not change, not for MRC's uSID carriers before their last hop.
            decoded, problems = tshark_decode(paths, lua, out,
                                              ["-o", "udp.check_checksum:TRUE"] if transport == "rocev2" else [])
            assert not problems, f"{transport}: tshark reports\n" + "\n".join(problems)
            total = collections.Counter()
            sent_and_received = {}
            last_frame_ns = {}
            for path, seen in zip(paths, decoded):
                frames = read_pcap(path)
                sent_and_received[os.path.basename(path)] = collections.Counter(f for _, f in frames)
                last_frame_ns[os.path.basename(path)] = {f: at for at, f in frames}
                counts = collections.Counter()
                last = 0
                for n, (at, frame) in enumerate(frames, 1):
                    assert at >= last, f"{path} frame {n}: timestamp {at} ns before the previous {last} ns"
                    last = at
                    check_frame(path, n, frame, counts)
                assert seen == counts, f"{path}: tshark decoded {dict(seen)}, the bytes say {dict(counts)}"
                total += counts
                print(f"{transport}/pcap/{os.path.basename(path)}: {len(frames)} frames, {dict(sorted(counts.items()))}")
            # Nothing is lost: each end sees the same frames, byte for byte, but for those still on
            # the wire when the run stopped (with its last message): sent within the link's one-way
            # time (the longest seen between the two captures of one frame) of the end.
            for a, b in (("gpu0-port0", "p0.t0.0-port0"), ("gpu4-port0", "p0.t0.0-port4"),
                         ("p0.t0.0-port16", "p0.t1.0-port0")):
                ca, cb = sent_and_received[a + ".pcap"], sent_and_received[b + ".pcap"]
                ta, tb = last_frame_ns[a + ".pcap"], last_frame_ns[b + ".pcap"]
                one_way_ns = max(abs(tb[f] - ta[f]) for f in ca.keys() & cb.keys() if ca[f] == cb[f] == 1)
                end_ns = max(max(ta.values()), max(tb.values()))
                for only, name, times in ((ca - cb, a, ta), (cb - ca, b, tb)):
                    late = sorted(times[f] for f in only)
                    assert all(at >= end_ns - one_way_ns for at in late), \
                        f"{transport}: {a} and {b}, two ends of a link, hold different frames: {name} has " \
                        f"{sum(only.values())} frame(s) the other end never saw, sent at {late[:5]} ns (the " \
                        f"capture ends at {end_ns} ns, a frame takes up to {one_way_ns} ns from end to end)"
            missing = [k for k in sorted(kinds) if total[k] == 0]
            assert not missing, f"{transport}: no {', '.join(missing)} frames in the captures ({dict(total)})"
    print("pcap captures: byte-exact, decoded without errors")


if __name__ == "__main__":
    main()
