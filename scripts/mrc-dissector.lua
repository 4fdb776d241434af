-- Wireshark dissector for what mrcsim's MRC frames carry beyond RoCEv2: the SACK, NACK and probe
-- headers after the BTH (vendor opcodes 0xC0, 0xC1, 0xC2) and trimmed data packets (DSCP 46:
-- a switch cut the packet to its headers). Every other UDP 4791 frame goes to Wireshark's own
-- InfiniBand (RRoCE) dissector, so RDMA WRITEs, ACKs and CNPs decode as usual.
--
-- The byte layouts are mrcsim's (MRC's are not public); they follow models/wire/mrc-sack-header.h,
-- models/wire/mrc-nack-header.h and models/wire/mrc-probe-header.h. Frames end with the 4-byte ICRC.
--
--   tshark -X lua_script:scripts/mrc-dissector.lua -r results/NAME/mrc/pcap/gpu0-port0.pcap
--   wireshark -X lua_script:scripts/mrc-dissector.lua ...   (or copy it to ~/.local/lib/wireshark/plugins/)
--
-- Display filters: mrc.sack, mrc.nack, mrc.probe, mrc.trimmed, mrc.bth.psn, mrc.sack.cumulative_psn, ...

local mrc = Proto("mrc", "MRC (Multipath Reliable Connection) transport")

local OP_SACK, OP_NACK, OP_PROBE = 0xC0, 0xC1, 0xC2
local BTH_BYTES, ICRC_BYTES, RETH_BYTES = 12, 4, 16

local opcode_names = {
    [0x06] = "RDMA WRITE First", [0x07] = "RDMA WRITE Middle", [0x08] = "RDMA WRITE Last",
    [0x0A] = "RDMA WRITE Only", [OP_SACK] = "MRC SACK", [OP_NACK] = "MRC NACK", [OP_PROBE] = "MRC Probe",
}
local nack_reasons = { [1] = "Trimmed", [2] = "Out of buffer", [255] = "Other" }
local probe_types = { [0] = "Request", [1] = "Response" }

local f = mrc.fields
f.opcode = ProtoField.uint8("mrc.bth.opcode", "Opcode", base.HEX, opcode_names)
f.flags = ProtoField.uint8("mrc.bth.flags", "SE/M/PadCnt/TVer", base.HEX)
f.pkey = ProtoField.uint16("mrc.bth.pkey", "Partition Key", base.HEX)
f.fecn_becn = ProtoField.uint8("mrc.bth.fecn_becn", "FECN/BECN/reserved", base.HEX)
f.dest_qp = ProtoField.uint24("mrc.bth.dest_qp", "Destination Queue Pair", base.HEX)
f.ack_req = ProtoField.bool("mrc.bth.ack_req", "Acknowledge Request", 8, nil, 0x80)
f.psn = ProtoField.uint24("mrc.bth.psn", "Packet Sequence Number", base.DEC)

f.sack = ProtoField.bytes("mrc.sack", "SACK")
f.sack_cum = ProtoField.uint24("mrc.sack.cumulative_psn", "Cumulative ACK PSN", base.DEC)
f.sack_flags = ProtoField.uint8("mrc.sack.flags", "Flags", base.HEX)
f.sack_ecn = ProtoField.bool("mrc.sack.ecn_echo", "ECN echo", 8, nil, 0x80)
f.sack_acked = ProtoField.uint24("mrc.sack.acked_psn", "Acked PSN", base.DEC)
f.sack_offset = ProtoField.uint16("mrc.sack.base_offset", "SACK base offset", base.DEC)
f.sack_ev = ProtoField.uint16("mrc.sack.echoed_ev", "Echoed EV", base.DEC)
f.sack_bitmap = ProtoField.uint64("mrc.sack.bitmap", "Bitmap (bit 0 = base PSN)", base.HEX)
f.sack_ts = ProtoField.uint32("mrc.sack.timestamp_echo", "Timestamp echo (ns mod 2^32)", base.DEC)

f.nack = ProtoField.bytes("mrc.nack", "NACK")
f.nack_reason = ProtoField.uint8("mrc.nack.reason", "Reason", base.DEC, nack_reasons)
f.nack_psn = ProtoField.uint24("mrc.nack.psn", "PSN", base.DEC)
f.nack_ev = ProtoField.uint16("mrc.nack.echoed_ev", "Echoed EV", base.DEC)
f.nack_reserved = ProtoField.uint16("mrc.nack.reserved", "Reserved", base.HEX)

f.probe = ProtoField.bytes("mrc.probe", "Probe")
f.probe_type = ProtoField.uint8("mrc.probe.type", "Type", base.DEC, probe_types)
f.probe_ev = ProtoField.uint16("mrc.probe.ev", "EV", base.DEC)
f.probe_seq = ProtoField.uint32("mrc.probe.sequence", "Sequence", base.DEC)
f.probe_ts = ProtoField.uint64("mrc.probe.send_timestamp", "Send timestamp (ns)", base.DEC)

f.trimmed = ProtoField.bytes("mrc.trimmed", "Trimmed header bytes (RETH and payload cut by a switch)")
f.icrc = ProtoField.uint32("mrc.icrc", "Invariant CRC", base.HEX)

local ei_trimmed = ProtoExpert.new("mrc.trimmed.expert", "Packet trimmed by a switch",
                                   expert.group.SEQUENCE, expert.severity.NOTE)
local ei_short = ProtoExpert.new("mrc.short.expert", "Frame too short for its MRC header",
                                 expert.group.MALFORMED, expert.severity.ERROR)
mrc.experts = { ei_trimmed, ei_short }

mrc.prefs.trimmed_dscp = Pref.uint("Trimmed DSCP", 46,
                                   "DSCP a switch gives a trimmed packet (ns3::PortQueueConfig::TrimmedDscp)")

local ipv6_dscp = Field.new("ipv6.tclass.dscp")
-- Wireshark's RoCEv2 (RRoCE) dissector, which this one stands in front of on UDP port 4791.
local udp_port = DissectorTable.get("udp.port")
local rroce = udp_port:get_dissector(4791)
assert(rroce, "mrc-dissector.lua: no dissector on UDP port 4791 (Wireshark's InfiniBand RRoCE) to stand in front of")

local function is_write(op)
    return op >= 0x06 and op <= 0x0B
end

-- Adds the BTH's fields; returns the opcode.
local function add_bth(tvb, tree)
    local t = tree:add(tvb(0, BTH_BYTES), "Base Transport Header")
    t:add(f.opcode, tvb(0, 1))
    t:add(f.flags, tvb(1, 1))
    t:add(f.pkey, tvb(2, 2))
    t:add(f.fecn_becn, tvb(4, 1))
    t:add(f.dest_qp, tvb(5, 3))
    t:add(f.ack_req, tvb(8, 1))
    t:add(f.psn, tvb(9, 3))
    return tvb(0, 1):uint()
end

local function add_sack(tvb, t)
    local s = t:add(f.sack, tvb(0, 24))
    s:add(f.sack_cum, tvb(1, 3))
    s:add(f.sack_flags, tvb(4, 1))
    s:add(f.sack_ecn, tvb(4, 1))
    s:add(f.sack_acked, tvb(5, 3))
    s:add(f.sack_offset, tvb(8, 2))
    s:add(f.sack_ev, tvb(10, 2))
    s:add(f.sack_bitmap, tvb(12, 8))
    s:add(f.sack_ts, tvb(20, 4))
    return string.format("SACK cum=%d acked=%d ev=%d", tvb(1, 3):uint(), tvb(5, 3):uint(), tvb(10, 2):uint())
end

local function add_nack(tvb, t)
    local s = t:add(f.nack, tvb(0, 8))
    s:add(f.nack_reason, tvb(0, 1))
    s:add(f.nack_psn, tvb(1, 3))
    s:add(f.nack_ev, tvb(4, 2))
    s:add(f.nack_reserved, tvb(6, 2))
    return string.format("NACK psn=%d ev=%d (%s)", tvb(1, 3):uint(), tvb(4, 2):uint(),
                         nack_reasons[tvb(0, 1):uint()] or "unknown")
end

local function add_probe(tvb, t)
    local s = t:add(f.probe, tvb(0, 16))
    s:add(f.probe_type, tvb(0, 1))
    s:add(f.probe_ev, tvb(2, 2))
    s:add(f.probe_seq, tvb(4, 4))
    s:add(f.probe_ts, tvb(8, 8))
    return string.format("Probe %s ev=%d seq=%d", probe_types[tvb(0, 1):uint()] or "?", tvb(2, 2):uint(),
                         tvb(4, 4):uint())
end

local inner = { [OP_SACK] = { 24, add_sack }, [OP_NACK] = { 8, add_nack }, [OP_PROBE] = { 16, add_probe } }

local function trimmed(op)
    local dscp = ipv6_dscp()
    return is_write(op) and dscp ~= nil and dscp.value == mrc.prefs.trimmed_dscp
end

function mrc.dissector(tvb, pinfo, tree)
    local len = tvb:len()
    local op = len >= BTH_BYTES and tvb(0, 1):uint() or -1
    if not inner[op] and not (len >= BTH_BYTES + ICRC_BYTES and trimmed(op)) then
        -- A frame the RRoCE dissector finds malformed is marked so by it; its exception must not
        -- come back as a Lua error on top.
        local ok, consumed = pcall(rroce.call, rroce, tvb, pinfo, tree)
        return ok and consumed or len
    end
    pinfo.cols.protocol = "MRC"
    local t = tree:add(mrc, tvb(), "MRC")
    add_bth(tvb, t)
    local qp, psn = tvb(5, 3):uint(), tvb(9, 3):uint()
    local info
    if inner[op] then
        local bytes, add = inner[op][1], inner[op][2]
        if len < BTH_BYTES + bytes + ICRC_BYTES then
            t:add_proto_expert_info(ei_short)
            return len
        end
        info = add(tvb(BTH_BYTES, bytes), t)
    else
        local kept = len - BTH_BYTES - ICRC_BYTES
        if kept > 0 then
            t:add(f.trimmed, tvb(BTH_BYTES, kept))
        end
        t:add_proto_expert_info(ei_trimmed)
        info = string.format("%s (trimmed: %d of %d RETH bytes kept)", opcode_names[op] or "RDMA WRITE",
                             math.min(kept, RETH_BYTES), RETH_BYTES)
    end
    t:add(f.icrc, tvb(len - ICRC_BYTES, ICRC_BYTES))
    pinfo.cols.info = string.format("%s QP=0x%06x PSN=%d", info, qp, psn)
    return len
end

udp_port:add(4791, mrc)
