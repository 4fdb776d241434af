"""Fabric spec and GraphML cases of the fuzz corpus (tests/fuzz/generate.py)."""
import json
import re

from fuzzlib import *  # noqa: F401,F403 (the generator's shared vocabulary)


# --------------------------------------------------------------------------------------------
# Fabric specs (mrcsim topo --spec FILE.json).


def fabric_case(c, mutation, cid, note, content, expect, extra=None, timeout=None):
    name = c.write(cid + ".json", content)
    files = [name] + (extra or [])
    if expect["exit"] != 0:
        expect = dict(expect, message=[name] + expect["message"])
    c.add("fabric", mutation, cid, note, expect, argv=["topo", "--spec", name, "--no-groups"], files=files,
          timeout=timeout)


def gen_fabrics(c, rnd):
    # Each key once (type swap, two extremes, removal), in the first spec that has it.
    seen = set()
    for fname in ("mp", "ft", "rail"):
        spec = FABRICS[fname]
        fabric_case(c, "valid", ident("valid.fabric", fname), "an unmutated fabric spec: valid", dumps(spec), OK)
        for path, value in walk(spec):
            if leaf_key(path) in seen or (isinstance(path[-1], int) and path[-1] > 0):
                continue
            options = SWAPS[kind_of(value)]
            if kind_of(value) == "int" and not FABRIC_RANGES[leaf_key(path)][0]:
                options = [o for o in options if o[0] != "float"]  # 2.5 is fine where any number is
            for tag, new in rnd.sample(options, 1):
                doc = clone(spec)
                put(doc, path, new)
                fabric_case(c, "type-swap", ident("fab.type", fname, dotted(path), tag),
                            f"{dotted(path)}: {kind_of(value)} -> {json.dumps(new)}", dumps(doc), err(key(leaf_key(path))))
            if kind_of(value) in ("int", "number"):
                rng_ = FABRIC_RANGES[leaf_key(path)]
                bad = [e for e in EXTREMES if not accepts(rng_, e[1], e[2])]
                for tag, token, _ in rnd.sample(bad, 1):
                    doc = clone(spec)
                    put(doc, path, Raw(token))
                    fabric_case(c, "range", ident("fab.range", fname, dotted(path), tag), f"{dotted(path)} = {token}",
                                dumps(doc), err(key(leaf_key(path))))
        for k in spec:
            if k in ("name", "power", "t0_per_plane", "switch_ports", "link_delay_ns", "nic_port_planes") or k in seen:
                continue  # optional, or done
            doc = clone(spec)
            del doc[k]
            fabric_case(c, "missing-key", ident("fab.missing", fname, k), f"{k} removed", dumps(doc), err(key(k)))
        seen |= {leaf_key(p) for p, _ in walk(spec)}
        doc = clone(spec)
        doc["bogus_key"] = 1
        fabric_case(c, "unknown-key", ident("fab.unknown", fname), "an unknown key", dumps(doc), err("bogus_key"))
    # Keys of another kind.
    doc = clone(FAT_TREE_SPEC)
    doc["planes"] = 2
    fabric_case(c, "unknown-key", "fab.unknown.ft-planes", "planes in a fat tree", dumps(doc), err(key("planes")))
    doc = clone(MULTIPLANE_SPEC)
    doc["kind"] = "graphml"
    fabric_case(c, "unknown-key", "fab.unknown.mp-as-graphml", "multiplane keys under kind graphml", dumps(doc),
                err(anykey([k for k in MULTIPLANE_SPEC if k not in ("kind", "name", "power")])))
    # Fabrics too large to build: refused by the checks, naming a key, quickly.
    for tag, changes, keys in [
        ("gpus-max-one-down-port", {"gpus": 2 ** 24, "t0_down_ports": 1, "t0_per_plane": None, "switch_ports": None},
         [["gpus", "t0_down_ports", "t0_per_plane", "t1_per_plane"]]),
        ("t0-per-plane-max", {"t0_per_plane": 4096, "t0_up_ports": 4096, "t1_per_plane": 1, "switch_ports": None},
         [["t0_per_plane", "t1_per_plane", "t0_up_ports"]]),
        ("nic-port-planes-dup", {"nic_port_planes": [0, 0]}, ["nic_port_planes"]),
        ("nic-port-planes-short", {"nic_port_planes": [0]}, ["nic_port_planes"]),
        ("up-ports-uneven", {"t0_up_ports": 7, "switch_ports": None}, ["t0_up_ports"]),
        ("switch-ports-small", {"switch_ports": 8}, ["switch_ports"]),
    ]:
        doc = clone(MULTIPLANE_SPEC)
        for k, v in changes.items():
            if v is None:
                doc.pop(k, None)
            else:
                doc[k] = v
        fabric_case(c, "range", ident("fab.combo.mp", tag), tag, dumps(doc), err(*[anykey(k) for k in keys]), timeout=10)
    for tag, changes, keys in [
        ("gpus-too-many", {"gpus": 33}, ["gpus"]),
        ("radix-odd", {"radix": 7}, ["radix"]),
        ("4-tiers-radix-4096", {"tiers": 4, "radix": 4096, "gpus": 2 ** 24}, [["gpus", "radix", "tiers"]]),
    ]:
        doc = clone(FAT_TREE_SPEC)
        doc.update(changes)
        fabric_case(c, "range", ident("fab.combo.ft", tag), tag, dumps(doc), err(*[anykey(k) for k in keys]), timeout=10)
    doc = clone(RAIL_SPEC)
    doc["gpus_per_server"] = 3
    fabric_case(c, "range", "fab.combo.rail.uneven-servers", "64 GPUs in servers of 3", dumps(doc),
                err(key("gpus_per_server")))
    # Syntax.
    text = dumps(MULTIPLANE_SPEC)
    for tag, content in [("empty", ""), ("array", "[]"), ("truncated", text[: len(text) // 2]),
                         ("utf8", text.encode().replace(b'"mp"', b'"m\xffp"')),
                         ("dup-planes", text.replace('"planes": 2', '"planes": 2, "planes": 3')),
                         ("1e400", text.replace('"port_rate_gbps": 200', '"port_rate_gbps": 1e400'))]:
        keys = {"dup-planes": [key("planes")], "1e400": [key("port_rate_gbps")]}.get(tag, [])
        fabric_case(c, "syntax", ident("fab.syntax", tag), tag, content, err(*keys))
    cid = "fab.deep.top-arrays-100000"
    c.add("fabric", "deep-nesting", cid, "100,000 nested arrays (generated)", err(cid + ".json"),
          argv=["topo", "--spec", cid + ".json", "--no-groups"],
          generate=[{"name": cid + ".json", "parts": [{"repeat": "[", "count": 100000}, {"repeat": "]", "count": 100000}]}])
    cid = "fab.deep.name-objects-100000"
    c.add("fabric", "deep-nesting", cid, "the name a 100,000-deep object (generated)", err(cid + ".json"),
          argv=["topo", "--spec", cid + ".json", "--no-groups"],
          generate=[{"name": cid + ".json", "parts": [{"text": '{"kind": "fat_tree", "name": '},
                                                      {"repeat": '{"a":', "count": 100000}, {"text": "1"},
                                                      {"repeat": "}", "count": 100000}, {"text": "}"}]}])
    # Inline in a scenario (validate builds the fabric as well).
    for tag, changes, k in [("planes-zero", {"planes": 0}, "planes"), ("gpus-2e63", {"gpus": Raw(str(2 ** 63))}, "gpus"),
                            ("delay-1e400", {"link_delay_ns": Raw("1e400")}, "link_delay_ns"),
                            ("kind-unknown", {"kind": "torus"}, "kind")]:
        doc = clone(SPEC_SCENARIO)
        doc["topology"]["spec"].update(changes)
        scenario_case(c, "range", ident("scn.fabric", tag), f"topology.spec {tag}", dumps(doc), err(key(k)))


# --------------------------------------------------------------------------------------------
# GraphML (mrcsim topo --spec of a {"kind": "graphml"} spec).

GML_KEYS = {"role": ("o", "node", "string"), "tier": ("t", "node", "int"), "plane": ("p", "node", "int"),
            "rate_bps": ("r", "edge", "long"), "delay_ns": ("d", "edge", "long"), "link": ("l", "edge", "long")}


def tiny_fabric(planes=2, gpus=4, t0=2, t1=2, rate=100_000_000_000, delay=1000):
    """2 planes, 4 GPUs, 2 T0 and 2 T1 per plane: nodes (switches first) and edges."""
    nodes, edges, sw = [], [], {}
    for p in range(planes):
        for tier, count in ((0, t0), (1, t1)):
            for i in range(count):
                sw[(p, tier, i)] = len(nodes)
                nodes.append({"role": "switch", "tier": tier, "plane": p})
    g0 = len(nodes)
    for _ in range(gpus):
        nodes.append({"role": "gpu"})
    for p in range(planes):
        for g in range(gpus):
            edges.append({"s": g0 + g, "t": sw[(p, 0, g * t0 // gpus)], "rate_bps": rate, "delay_ns": delay})
        for i in range(t0):
            for j in range(t1):
                edges.append({"s": sw[(p, 0, i)], "t": sw[(p, 1, j)], "rate_bps": rate, "delay_ns": delay})
    return nodes, edges


def gml_head(types=None):
    types = types or {}
    keys = "".join(f'<key id="{kid}" for="{on}" attr.name="{name}" attr.type="{types.get(name, ty)}"/>\n'
                   for name, (kid, on, ty) in GML_KEYS.items())
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n' + keys +
            '<graph id="G" edgedefault="undirected">\n')


def gml_render(nodes, edges, types=None, ids=None):
    out = [gml_head(types)]
    for i, n in enumerate(nodes):
        nid = ids[i] if ids else f"n{i}"
        out.append(f'<node id="{nid}">' + "".join(f'<data key="{GML_KEYS[k][0]}">{v}</data>' for k, v in n.items()) +
                   "</node>\n")
    for e in edges:
        s = e["s"] if isinstance(e["s"], str) else f"n{e['s']}"
        t = e["t"] if isinstance(e["t"], str) else f"n{e['t']}"
        out.append(f'<edge source="{s}" target="{t}">' +
                   "".join(f'<data key="{GML_KEYS[k][0]}">{v}</data>' for k, v in e.items() if k not in ("s", "t")) +
                   "</edge>\n")
    out.append("</graph>\n</graphml>\n")
    return "".join(out)


def graphml_case(c, mutation, cid, note, content, expect, timeout=None, generate=None, via="topo"):
    gml = cid + ".graphml"
    files = []
    if content is not None:
        files.append(c.write(gml, content))
    if via == "topo":
        spec = c.write(cid + ".json", json.dumps({"kind": "graphml", "name": "g", "file": gml}) + "\n")
        argv = ["topo", "--spec", spec, "--no-groups"]
    else:
        doc = clone(TINY_RUN)
        doc["topology"] = {"spec": {"kind": "graphml", "file": gml}}
        doc["workloads"][0]["gpus"] = [0, 1]
        spec = c.write(cid + ".json", dumps(doc))
        argv = ["validate", spec]
    files.append(spec)
    if expect["exit"] != 0:
        expect = dict(expect, message=[gml] + expect["message"])
    c.add("graphml", mutation, cid, note, expect, argv=argv, files=files, generate=generate, timeout=timeout)


def gen_graphml(c):
    nodes, edges = tiny_fabric()
    graphml_case(c, "valid", "valid.graphml", "the tiny two-plane fabric: valid", gml_render(nodes, edges), OK)
    graphml_case(c, "valid", "valid.graphml.scenario", "the tiny fabric under a scenario: valid",
                 gml_render(nodes, edges), OK, via="validate")
    # Node attributes: node 0 is a tier-0 switch of plane 0, node 8 the first GPU.
    node_values = [
        ("plane", ["-1", "65536", "40000", "32768", "2147483648", "abc", "", "1e400"]),
        ("tier", ["-1", "15", "65536", "x"]),
        ("role", ["router", "", "GPU"]),
    ]
    for key, values in node_values:
        for v in values:
            n, e = tiny_fabric()
            n[0][key] = v
            message = [key]
            if key in ("plane", "tier") and re.fullmatch(r"[0-9]+", v) and int(v) > 32767:
                message.append(v)  # the value, not what it became in 16 bits
            graphml_case(c, "attribute", ident("gml.node", key, v or "empty"), f"switch node 0: {key} = {v!r}",
                         gml_render(n, e), err(*message))
        n, e = tiny_fabric()
        del n[0][key]
        graphml_case(c, "attribute", ident("gml.node", key, "missing"), f"switch node 0 without {key}",
                     gml_render(n, e), err(key))
    edge_values = [
        ("rate_bps", ["0", "-1", "9223372036854775808", "abc", "1.5"]),
        ("delay_ns", ["-1", "4294967296", "4294967301", "9223372036854775807", "9223372036854775808", "x"]),
        ("link", ["x", "9223372036854775808"]),
    ]
    for key, values in edge_values:
        for v in values:
            n, e = tiny_fabric()
            e[0][key] = v
            message = [key]
            if re.fullmatch(r"[0-9]+", v) and int(v) >= 2 ** 32 and int(v) < 2 ** 63:
                message.append(v)
            graphml_case(c, "attribute", ident("gml.edge", key, v or "empty"), f"edge 0: {key} = {v!r}",
                         gml_render(n, e), err(*message))
    for key in ("rate_bps", "delay_ns"):
        n, e = tiny_fabric()
        del e[0][key]
        graphml_case(c, "attribute", ident("gml.edge", key, "missing"), f"edge 0 without {key}", gml_render(n, e),
                     err(key))
    # Attribute types declared differently.
    n, e = tiny_fabric()
    n[0]["plane"] = "zero"
    graphml_case(c, "attribute", "gml.key.plane-string-typed", "plane declared as a string, holding 'zero'",
                 gml_render(n, e, types={"plane": "string"}), err("plane"))
    graphml_case(c, "attribute", "gml.key.delay-double-typed", "delay_ns declared as a double (values 1000)",
                 gml_render(*tiny_fabric(), types={"delay_ns": "double"}), OK)

    # Structure.
    n, e = tiny_fabric()
    sw = [x for x in n if x["role"] == "switch"]
    graphml_case(c, "structure", "gml.struct.no-gpu", "switches and their links, no GPU",
                 gml_render(sw, [x for x in e if x["s"] < len(sw) and x["t"] < len(sw)]), err("gpu"))
    graphml_case(c, "structure", "gml.struct.empty-graph", "a graph with no node", gml_render([], []), err(["gpu", "node"]))
    graphml_case(c, "structure", "gml.struct.gpus-only", "four GPUs, no switch, no link",
                 gml_render([{"role": "gpu"}] * 4, []), err("gpu"))
    graphml_case(c, "structure", "gml.struct.switch-only", "one switch, nothing else",
                 gml_render([{"role": "switch", "tier": 0, "plane": 0}], []), err("gpu"))
    n, e = tiny_fabric()
    e[0]["t"] = "n999"
    graphml_case(c, "structure", "gml.struct.edge-to-missing-node", "edge 0 ends at node n999, which is not declared",
                 gml_render(n, e), err(["n999", "edge"]))
    n, e = tiny_fabric()
    e[0]["s"] = "ghost"
    e[0]["t"] = "phantom"
    graphml_case(c, "structure", "gml.struct.edge-between-missing-nodes", "edge 0 joins two undeclared nodes",
                 gml_render(n, e), err(["ghost", "phantom", "edge"]))
    n, e = tiny_fabric()
    ids = [f"n{i}" for i in range(len(n))]
    ids[1] = "n0"
    graphml_case(c, "structure", "gml.struct.duplicate-node-id", "two nodes with id n0", gml_render(n, e, ids=ids),
                 err(["n0", "duplicate", "twice"]))
    n, e = tiny_fabric()
    e[0]["t"] = e[0]["s"]
    graphml_case(c, "structure", "gml.struct.self-loop", "edge 0 joins GPU 0 to itself", gml_render(n, e),
                 err(["edge", "itself"]))
    n, e = tiny_fabric()
    e.append({"s": 8, "t": 9, "rate_bps": 10 ** 11, "delay_ns": 1})
    graphml_case(c, "structure", "gml.struct.gpu-gpu", "a link between two GPUs", gml_render(n, e), err("gpu"))
    n, e = tiny_fabric()
    e.append({"s": 8, "t": 1, "rate_bps": 10 ** 11, "delay_ns": 1})
    graphml_case(c, "structure", "gml.struct.two-ports-one-plane", "GPU 0 with a second port in plane 0",
                 gml_render(n, e), err("plane"))
    n, e = tiny_fabric()
    e[0]["t"] = 2
    graphml_case(c, "structure", "gml.struct.gpu-to-tier1", "GPU 0 wired to a tier-1 switch", gml_render(n, e),
                 err("tier"))
    n, e = tiny_fabric()
    e.append({"s": 0, "t": 6, "rate_bps": 10 ** 11, "delay_ns": 1})
    graphml_case(c, "structure", "gml.struct.cross-plane", "a link from plane 0 to plane 1", gml_render(n, e),
                 err("plane"))
    n, e = tiny_fabric()
    e = [x for x in e if x["s"] != 8]
    graphml_case(c, "structure", "gml.struct.isolated-gpu", "GPU 0 has no link", gml_render(n, e), err("gpu"))
    text = gml_render(*tiny_fabric())
    graphml_case(c, "structure", "gml.struct.directed", "a directed graph",
                 text.replace('edgedefault="undirected"', 'edgedefault="directed"'), err(["directed"]))
    graphml_case(c, "structure", "gml.struct.no-key-declarations", "data elements whose keys are not declared",
                 re.sub(r"<key [^>]*/>\n", "", text), err(["key", "role"]))
    graphml_case(c, "structure", "gml.struct.two-graphs", "two graph elements",
                 text.replace("</graph>", '</graph>\n<graph id="H" edgedefault="undirected"><node id="z"/></graph>'),
                 {"exit": [0, 1], "message": []})
    # 4,097 switches in one (plane, tier): more than 12-bit uSIDs number (generated, ~250 KB).
    head = gml_head()
    cid = "gml.struct.4097-switches"
    graphml_case(c, "structure", cid, "4,097 tier-1 switches in plane 0 (generated)", None,
                 err(["switch", "tier"]), timeout=15,
                 generate=[{"name": cid + ".graphml", "parts": [
                     {"text": head + '<node id="g"><data key="o">gpu</data></node>\n'
                              '<node id="t0"><data key="o">switch</data><data key="t">0</data><data key="p">0</data></node>\n'
                              '<edge source="g" target="t0"><data key="r">100000000000</data><data key="d">1</data></edge>\n'},
                     {"repeat": '<node id="s{i}"><data key="o">switch</data><data key="t">1</data><data key="p">0</data></node>\n',
                      "count": 4097, "numbered": True},
                     {"text": "</graph>\n</graphml>\n"}]}])

    # XML level.
    graphml_case(c, "empty", "gml.xml.empty", "an empty file", "", err())
    graphml_case(c, "syntax", "gml.xml.not-xml", "plain text", "this is not GraphML\n", err())
    graphml_case(c, "syntax", "gml.xml.json", "a JSON document", '{"nodes": []}\n', err())
    for frac in (0.05, 0.3, 0.6, 0.97):
        n = int(len(text) * frac)
        graphml_case(c, "truncated", ident("gml.xml.truncated", f"{n}of{len(text)}"), f"the first {n} bytes", text[:n],
                     err())
    graphml_case(c, "utf8", "gml.xml.utf8-role", "the role of node 0 holds 0xff",
                 text.replace("switch", "swi\udcfftch", 1), err("role"))
    graphml_case(c, "utf8", "gml.xml.utf8-node-id", "a node id holds 0xff (its edges too)",
                 text.replace('"n0"', '"n\udcff0"'), {"exit": [0, 1], "message": []})
    graphml_case(c, "utf8", "gml.xml.utf8-tag", "an element name holds 0xfe",
                 text.replace("<graph id", "<gr\udcfeaph id").replace("</graph>", "</gr\udcfeaph>"), err())
    laughs = ('<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;'
              '&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>\n')
    graphml_case(c, "syntax", "gml.xml.entities", "entity definitions (billion laughs, three levels), used as a role",
                 text.replace('<?xml version="1.0" encoding="UTF-8"?>\n', laughs).replace(">switch<", ">&lol3;<", 1),
                 err("role"))
    graphml_case(c, "syntax", "gml.xml.external-entity", "an external entity naming /etc/passwd",
                 text.replace('<?xml version="1.0" encoding="UTF-8"?>\n',
                              '<?xml version="1.0"?>\n<!DOCTYPE g [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n')
                 .replace(">switch<", ">&x;<", 1), err("role"))
    inner = text.index("</graph>")
    graphml_case(c, "deep-nesting", "gml.xml.deep-1000", "1,000 nested unknown elements inside the graph",
                 text[:inner] + "<x>" * 1000 + "</x>" * 1000 + text[inner:], {"exit": [0, 1], "message": []})
    cid = "gml.xml.deep-100000"
    graphml_case(c, "deep-nesting", cid, "100,000 nested unknown elements inside the graph (generated)", None, err(),
                 generate=[{"name": cid + ".graphml", "parts": [{"text": text[:inner]}, {"repeat": "<x>", "count": 100000},
                                                                 {"repeat": "</x>", "count": 100000},
                                                                 {"text": text[inner:]}]}])
    cid = "gml.xml.deep-data-100000"
    graphml_case(c, "deep-nesting", cid, "node 0's role holds 100,000 nested elements (generated)", None, err(),
                 generate=[{"name": cid + ".graphml", "parts": [
                     {"text": text[: text.index(">switch<") + 1]}, {"repeat": "<b>", "count": 100000},
                     {"repeat": "</b>", "count": 100000}, {"text": text[text.index(">switch<") + 7:]}]}])
    cid = "gml.xml.huge-role"
    graphml_case(c, "huge", cid, "node 0's role is 200 KB of letters (generated)", None, err("role"),
                 generate=[{"name": cid + ".graphml", "parts": [
                     {"text": text[: text.index(">switch<") + 1]}, {"repeat": "s", "count": 200000},
                     {"text": text[text.index(">switch<") + 7:]}]}])
    # Through a scenario (mrcsim validate).
    n, e = tiny_fabric()
    sw = [x for x in n if x["role"] == "switch"]
    graphml_case(c, "structure", "gml.scn.no-gpu", "a scenario on a GraphML fabric without GPUs",
                 gml_render(sw, [x for x in e if x["s"] < len(sw) and x["t"] < len(sw)]), err("gpu"), via="validate")
    n, e = tiny_fabric()
    n[0]["plane"] = 65536
    graphml_case(c, "attribute", "gml.scn.plane-65536", "a scenario on a GraphML fabric with plane 65536",
                 gml_render(n, e), err("plane", "65536"), via="validate")
    n, e = tiny_fabric()
    e[0]["delay_ns"] = 4294967301
    graphml_case(c, "attribute", "gml.scn.delay-2e32p5", "a scenario on a GraphML fabric with delay_ns 2^32+5",
                 gml_render(n, e), err("delay_ns", "4294967301"), via="validate")
    for tag, file, key in [("missing", "gml.spec.missing.graphml", "gml.spec.missing.graphml"), ("empty", "", "file"),
                           ("dev-null", "/dev/null", "/dev/null")]:
        cid = ident("gml.spec.file", tag)
        name = c.write(cid + ".json", json.dumps({"kind": "graphml", "file": file}) + "\n")
        c.add("graphml", "path", cid, f"file = {file!r}", err(name if not file or tag == "empty" else file, key),
              argv=["topo", "--spec", name, "--no-groups"], files=[name])
    cid = "gml.spec.file.directory"
    name = c.write(cid + ".json", json.dumps({"kind": "graphml", "file": cid + ".graphml"}) + "\n")
    c.add("graphml", "path", cid, "file names a directory", err(cid + ".graphml"),
          argv=["topo", "--spec", name, "--no-groups"], files=[name], dirs=[cid + ".graphml"])
