"""Scenario, command-line and run cases of the fuzz corpus (tests/fuzz/generate.py)."""
import json

from fuzzlib import *  # noqa: F401,F403 (the generator's shared vocabulary)


def gen_scenarios(c, rnd):
    # The valid bases themselves.
    for bname, base in sorted(BASES.items()):
        scenario_case(c, "valid", ident("valid.scn", bname), "an unmutated base scenario: valid", dumps(base), OK)

    # Type swaps: one per key and value type (the type chosen by the seed), over every key of every
    # base; a key met again in another base or list entry is not swapped again.
    seen = set()
    for bname, base in sorted(BASES.items()):
        for path, value in walk(base):
            if not visited(bname, path, value) or (leaf_key(path), kind_of(value)) in seen:
                continue
            seen.add((leaf_key(path), kind_of(value)))
            options = SWAPS[kind_of(value)]
            rname = range_name(path, base) if kind_of(value) == "int" else None
            if rname in SCENARIO_RANGES and not SCENARIO_RANGES[rname][0]:
                options = [o for o in options if o[0] != "float"]  # 2.5 is fine where any number is
            for tag, new in rnd.sample(options, 1):
                doc = clone(base)
                put(doc, path, new)
                cid = ident("scn.type", bname, dotted(path), tag)
                if swap_is_valid(path, new):
                    scenario_case(c, "type-swap", cid, f"{dotted(path)} = {json.dumps(new)}: an allowed form",
                                  dumps(doc), OK)
                else:
                    scenario_case(c, "type-swap", cid, f"{dotted(path)}: {kind_of(value)} -> {json.dumps(new)}",
                                  dumps(doc), err(key(leaf_key(path))))

    # Extreme numbers: for each numeric key (once per range), two of the values it must refuse
    # (chosen by the seed), plus every extreme on the keys with known defects.
    always = {
        ("workloads", 2, "bytes"): ["2e32", "2e63", "2e64", "1e400"],
        ("workloads", 1, "bytes"): ["2e32", "1e400", "neg1e400"],
        ("failures", 9, "rate_factor"): ["1e-320"],
        ("seed",): ["1e400", "2e64"],
        ("outputs", "sample_interval_us"): ["1e-320", "neg1e400"],
    }
    seen = set()
    for bname, base in sorted(BASES.items()):
        for path, value in walk(base):
            if kind_of(value) not in ("int", "number") or not visited(bname, path, value):
                continue
            rname = range_name(path, base)
            if (rname, leaf_key(path)) in seen and path not in always:
                continue
            seen.add((rname, leaf_key(path)))
            rng_ = SCENARIO_RANGES[rname]
            bad = [e for e in EXTREMES if not accepts(rng_, e[1], e[2])]
            chosen = {e[0] for e in rnd.sample(bad, 1)}
            chosen |= {e[0] for e in bad if e[0] in always.get(path, []) and bname in ("coll", "pat")}
            for tag, token, v in EXTREMES:
                if tag not in chosen:
                    continue
                doc = clone(base)
                put(doc, path, Raw(token))
                cid = ident("scn.range", bname, dotted(path), tag)
                scenario_case(c, "range", cid, f"{dotted(path)} = {token} (accepted: {rname} {rng_})", dumps(doc),
                              err(key(leaf_key(path))))
    # Values just inside the ranges with a defect nearby: must stay valid.
    for cid, path, token, note in [
        ("scn.range.coll.workloads.2.bytes.max", ("workloads", 2, "bytes"), str(U32), "2^32-1 bytes per pair: valid"),
        ("scn.range.coll.workloads.0.bytes.2e32", ("workloads", 0, "bytes"), str(2 ** 32),
         "a ring's buffer of 4 GiB (its messages are chunks): valid"),
        ("scn.range.coll.seed.max", ("seed",), str(E53), "seed 2^53: valid"),
    ]:
        doc = clone(COLLECTIVES if ".coll." in cid else PATTERNS)
        put(doc, path, Raw(token))
        scenario_case(c, "range", cid, note, dumps(doc), OK)
    # Attribute values (ns-3 attributes are checked against their types).
    for tag, token in [("neg1", "-1"), ("2e64", str(2 ** 64)), ("nan-str", '"NaN"'), ("1.5", "1.5"),
                       ("null", "null"), ("array", "[64]"), ("1e400", "1e400"), ("empty-str", '""')]:
        doc = clone(COLLECTIVES)
        doc["transport"][0]["attributes"]["ns3::MrcQueuePair::EvCount"] = Raw(token)
        scenario_case(c, "range", ident("scn.attr.EvCount", tag), f"EvCount = {token}", dumps(doc),
                      err("EvCount"))

    # Enumerations: values that are not among the allowed ones.
    for path, base, bname in [(("topology", "preset"), COLLECTIVES, "coll"), (("transport", 0, "type"), COLLECTIVES, "coll"),
                              (("workloads", 0, "type"), COLLECTIVES, "coll"), (("workloads", 0, "placement"), COLLECTIVES, "coll"),
                              (("workloads", 2, "mode"), COLLECTIVES, "coll"), (("failures", 0, "type"), PATTERNS, "pat"),
                              (("failures", 10, "link_class"), PATTERNS, "pat"), (("link_loss", 0, "link_class"), PATTERNS, "pat")]:
        variants = [("empty", ""), ("upper", get(base, path).upper()), ("space", " " + get(base, path))]
        for tag, new in [variants[len(c.cases) % 3]]:
            doc = clone(base)
            put(doc, path, new)
            scenario_case(c, "enum", ident("scn.enum", bname, dotted(path), tag), f"{dotted(path)} = {new!r}",
                          dumps(doc), err(key(leaf_key(path))))

    # Missing required keys.
    required = [
        ("coll", ("name",)), ("coll", ("topology",)), ("coll", ("transport",)), ("coll", ("workloads",)),
        ("coll", ("transport", 0, "type")), ("coll", ("workloads", 0, "type")), ("coll", ("workloads", 0, "bytes")),
        ("coll", ("workloads", 0, "gpus", "first")), ("coll", ("workloads", 0, "gpus", "count")),
        ("coll", ("topology", "preset")),
        ("pat", ("workloads", 1, "receiver")), ("pat", ("workloads", 1, "senders")), ("pat", ("workloads", 2, "load")),
        ("pat", ("workloads", 2, "duration_us")), ("pat", ("failures", 0, "type")), ("pat", ("failures", 0, "at_us")),
        ("pat", ("failures", 0, "link")), ("pat", ("failures", 2, "period_us")), ("pat", ("failures", 2, "count")),
        ("pat", ("failures", 3, "plane")), ("pat", ("failures", 3, "tier")), ("pat", ("failures", 3, "index")),
        ("pat", ("failures", 7, "gpu")), ("pat", ("failures", 7, "plane")), ("pat", ("failures", 10, "link_class")),
        ("pat", ("failures", 10, "mtbf_us")), ("pat", ("failures", 10, "mttr_us")), ("pat", ("failures", 10, "until_us")),
        ("pat", ("link_loss", 0, "rate")), ("pat", ("link_loss", 0, "link_class")),
        ("pat", ("failures", 2, "link", "t1")), ("pat", ("failures", 1, "link", "plane")),
        ("sweep", ("sweep", "parameters")),  # seeds alone: valid (see below)
        ("sweep", ("sweep", "seeds")),  # parameters alone: valid
        ("spec", ("topology", "spec", "kind")), ("spec", ("topology", "spec", "gpus")),
        ("spec", ("topology", "spec", "t1_per_plane")),
    ]
    for bname, path in required:
        doc = clone(BASES[bname])
        delete(doc, path)
        ok = path[0] == "sweep"  # a sweep of seeds only, or of parameters only
        scenario_case(c, "missing-key", ident("scn.missing", bname, dotted(path)),
                      f"{dotted(path)} removed" + (": valid" if ok else ""), dumps(doc), OK if ok else err(key(leaf_key(path))))
    doc = clone(SWEEP)
    doc["sweep"] = {}
    scenario_case(c, "missing-key", "scn.missing.sweep.sweep.both", "a sweep of nothing (no parameters, no seeds)",
                  dumps(doc), err(["parameters", "seeds"]))

    # Unknown keys, at every level (and near misses of real keys).
    unknown = [
        ("coll", (), "bogus_key"), ("coll", (), "Name"), ("coll", ("topology",), "bogus_key"),
        ("coll", ("transport", 0), "bogus_key"), ("coll", ("transport", 0, "attributes"), "bogus_key"),
        ("coll", ("workloads", 0), "byte"), ("coll", ("workloads", 0, "gpus"), "strid"),
        ("coll", ("stop",), "wall_time"), ("coll", ("outputs",), "pcaps"), ("coll", ("outputs", "pcap", 0), "link"),
        ("pat", ("failures", 0), "at"), ("pat", ("failures", 0, "link"), "uplink"), ("pat", ("link_loss", 0), "rates"),
        ("sweep", ("sweep",), "seed"), ("spec", ("topology", "spec"), "plane"),
        ("spec", ("topology", "spec", "power"), "watts"), ("coll", (), ""),
    ]
    for bname, path, k in unknown:
        doc = clone(BASES[bname])
        get(doc, path)[k] = 1
        expect = err(key(k)) if k else err('""')
        scenario_case(c, "unknown-key", ident("scn.unknown", bname, dotted(path) or "top", k or "empty"),
                      f"unknown key {k!r} in /{dotted(path)}", dumps(doc), expect)

    # Duplicate keys: JSON allows them syntactically, but one silently wins.
    dups = [
        ((), "name", "other"), ((), "seed", 5), ((), "topology", {"preset": "multiplane-512"}),
        (("workloads", 0), "bytes", 65536), (("workloads", 0), "type", "all_to_all"), (("transport", 1), "label", "roce"),
        (("stop",), "sim_time_us", 20), (("workloads", 0, "gpus"), "count", 4),
    ]
    for path, k, value in dups:
        doc = clone(COLLECTIVES)
        obj = get(doc, path)
        pairs = list(obj.items())
        i = [x for x, _ in pairs].index(k)
        pairs.insert(i + 1, (k, value))
        if path:
            put(doc, path, Pairs(pairs))
        else:
            doc = Pairs(pairs)
        scenario_case(c, "duplicate-key", ident("scn.dup", dotted(path) or "top", k),
                      f"key {k!r} twice in /{dotted(path)}", dumps(doc), err(key(k)))

    # Names and labels: they become file and directory names and table columns.
    names = [("dot", ".", False), ("dotdot", "..", False), ("empty", "", False), ("slash", "a/b", False),
             ("parent", "../x", False), ("abs", "/tmp/x", False), ("space", "a b", False), ("backslash", "a\\b", False),
             ("nul", "a\u0000b", False), ("accent", "caf\u00e9", False), ("newline", "a\nb", False),
             ("inner-dots", "a...b", True), ("dotted", "a.b-c_d", True)]
    for path in [("name",), ("transport", 1, "label"), ("workloads", 0, "name")]:
        for tag, value, ok in names:
            if path != ("name",) and tag not in ("dot", "dotdot", "empty", "slash", "inner-dots"):
                continue
            doc = clone(COLLECTIVES)
            put(doc, path, value)
            cid = ident("scn.name", dotted(path), tag)
            scenario_case(c, "name", cid, f"{dotted(path)} = {value!r}" + (": valid" if ok else ""), dumps(doc),
                          OK if ok else err(key(leaf_key(path))))

    # Not a scenario object at all, empty files, JSON that is not quite JSON.
    text = dumps(COLLECTIVES)
    for tag, content in [("empty", ""), ("space", "  \n\t\n"), ("bom-only", "\ufeff"), ("null", "null"),
                         ("array", "[]"), ("number", "42"), ("string", '"scenario"'), ("true", "true"),
                         ("nul-byte", "\u0000"), ("comment", "// a scenario\n" + text),
                         ("trailing-comma", text.rstrip().rstrip("}").rstrip() + ",\n}\n"),
                         ("single-quotes", text.replace('"', "'")), ("nan-literal", text.replace('"seed": 5', '"seed": NaN')),
                         ("two-documents", text + text), ("unclosed-string", '{"name": "abc')]:
        scenario_case(c, "empty" if tag in ("empty", "space", "bom-only") else "syntax", ident("scn.syntax", tag),
                      f"{tag}", content, err())
    scenario_case(c, "syntax", "scn.syntax.bom-valid", "a UTF-8 byte order mark before a valid document: valid",
                  "\ufeff" + text, OK)

    # Truncated files, at offsets spread over the document.
    for frac in (0.1, 0.25, 0.4, 0.5, 0.63, 0.77, 0.9, 0.99):
        n = int(len(text) * frac)
        scenario_case(c, "truncated", ident("scn.truncated", f"{n}of{len(text)}"), f"the first {n} bytes",
                      text[:n], err())
    utf = dumps(dict(COLLECTIVES, description="caf\u00e9 \u2603"))
    cut = utf.encode("utf-8").index("\u2603".encode("utf-8")) + 1
    scenario_case(c, "truncated", "scn.truncated.mid-utf8", "cut in the middle of a 3-byte UTF-8 character",
                  utf.encode("utf-8")[:cut], err())

    # Invalid UTF-8 (in values and in keys) and escapes of lone surrogates.
    for tag, raw in [("ff", b"\xff"), ("lone-continuation", b"\x80"), ("overlong-slash", b"\xc0\xaf"),
                     ("cesu-surrogate", b"\xed\xa0\x80"), ("truncated-seq", b"\xe2\x82"), ("beyond-unicode", b"\xf4\x90\x80\x80")]:
        body = dumps(COLLECTIVES).encode("utf-8")
        scenario_case(c, "utf8", ident("scn.utf8.description", tag), f"description holds {raw!r}",
                      body.replace(b"collectives on multiplane-64", b"coll" + raw + b"ectives"), err())
    body = dumps(COLLECTIVES).encode("utf-8")
    scenario_case(c, "utf8", "scn.utf8.key", "a key holds 0xff", body.replace(b'"stop"', b'"st\xffop"'), err())
    scenario_case(c, "utf8", "scn.utf8.name", "the name holds 0xfe 0xff", body.replace(b"fuzz-collectives", b"fuzz\xfe\xff"),
                  err())
    for tag, esc in [("high", "\\ud800"), ("low", "\\udc00"), ("reversed", "\\udc00\\ud800")]:
        scenario_case(c, "utf8", ident("scn.utf8.escape", tag), f"description holds the escape {esc}",
                      text.replace("collectives on multiplane-64", "x" + esc + "y"), err())
    scenario_case(c, "utf8", "scn.utf8.escape-pair-valid", "a proper surrogate pair escape: valid",
                  text.replace("collectives on multiplane-64", "\\ud83d\\ude00"), OK)

    # Deep nesting. Moderate depth is committed; 100,000 levels are generated at run time.
    deep_committed = [
        ("description-arrays-1000", "description", "[" * 1000 + "]" * 1000),
        ("unknown-objects-1000", "x", '{"a":' * 1000 + "1" + "}" * 1000),
    ]
    for tag, k, value in deep_committed:
        body = text.replace('"description": "collectives on multiplane-64"', json.dumps(k) + ": " + value)
        scenario_case(c, "deep-nesting", ident("scn.deep", tag), f"{k}: {tag}", body, err())
    prefix = text[: text.index('"description"')]
    suffix = text[text.index('"seed"'):]
    deep_generated = [
        ("top-arrays-100000", [{"repeat": "[", "count": 100000}, {"repeat": "]", "count": 100000}]),
        ("top-objects-100000", [{"repeat": '{"a":', "count": 100000}, {"text": "1"}, {"repeat": "}", "count": 100000}]),
        ("description-arrays-100000", [{"text": prefix + '"description": '}, {"repeat": "[", "count": 100000},
                                       {"repeat": "]", "count": 100000}, {"text": ",\n  " + suffix}]),
        ("workloads-objects-100000", [{"text": prefix.replace('"name": "fuzz-collectives"', '"workloads": [')},
                                      {"repeat": '{"type":', "count": 100000}, {"text": "1"},
                                      {"repeat": "}", "count": 100000}, {"text": '], "name": "x"}'}]),
        ("unclosed-arrays-100000", [{"repeat": "[", "count": 100000}]),
    ]
    for tag, parts in deep_generated:
        cid = ident("scn.deep", tag)
        c.add("scenario", "deep-nesting", cid, f"{tag} (generated)", err(cid + ".json"),
              argv=["validate", cid + ".json"], generate=[{"name": cid + ".json", "parts": parts}])

    # Huge strings (generated): 200 KB.
    big = 200000
    huge = [
        ("description", '"description": "collectives on multiplane-64"', '"description": "', True,
         "a 200 KB description: valid"),
        ("name", '"name": "fuzz-collectives"', '"name": "', False, "a 200 KB name (names become file names)"),
        ("label", '"label": "roce"', '"label": "', False, "a 200 KB transport label (labels become directory names)"),
        ("bytes-string", '"bytes": 4096', '"bytes": "', False, "a 200 KB string for bytes"),
    ]
    for tag, old, new, ok, note in huge:
        cid = ident("scn.huge", tag)
        i = text.index(old)
        parts = [{"text": text[:i] + new}, {"repeat": "a", "count": big}, {"text": '"' + text[i + len(old):]}]
        k = {"description": None, "name": "name", "label": "label", "bytes-string": "bytes"}[tag]
        c.add("scenario", "huge", cid, note, OK if ok else err(cid + ".json", key(k)), argv=["validate", cid + ".json"],
              generate=[{"name": cid + ".json", "parts": parts}])
    cid = "scn.huge.unknown-key"
    c.add("scenario", "huge", cid, "a 200 KB unknown key", err(cid + ".json", "unknown"),
          argv=["validate", cid + ".json"],
          generate=[{"name": cid + ".json", "parts": [{"text": '{"'}, {"repeat": "k", "count": big},
                                                      {"text": '": 1, ' + text.strip()[1:]}]}])
    cid = "scn.huge.whitespace"
    c.add("scenario", "huge", cid, "200 KB of whitespace before a valid document: valid", OK,
          argv=["validate", cid + ".json"],
          generate=[{"name": cid + ".json", "parts": [{"repeat": " \n", "count": big // 2}, {"text": text}]}])
    cid = "scn.huge.gpu-list"
    c.add("scenario", "huge", cid, "a list of 100,000 GPU indices (repeats)", err(cid + ".json", key("gpus")),
          argv=["validate", cid + ".json"],
          generate=[{"name": cid + ".json", "parts": [
              {"text": text[: text.index("[32, 33")] + "["}, {"repeat": "32, ", "count": 100000},
              {"text": "32" + text[text.index("39]") + 2:]}]}])


def gen_cli_sets(c):
    """--set overrides: bad paths, bad values, raw bytes."""
    base = c.write("cli.set.base.json", dumps(COLLECTIVES))
    sets = [
        ("no-equals", "name", [1, 2], ["name"]),
        ("empty-path", "=x", [1, 2], ["=x"]),
        ("empty-key", "workloads..bytes=1", [1, 2], ["workloads..bytes"]),
        ("dot-only", ".=1", [1, 2], [".=1"]),
        ("index-huge", "workloads.99999999999.bytes=1", [1, 2], ["99999999999"]),
        ("index-negative", "workloads.-1.bytes=1", [1, 2], ["-1"]),
        ("index-range", "workloads.3.bytes=1", [1, 2], ["workloads"]),
        ("through-string", "name.x=1", [1, 2], ["name"]),
        ("through-number", "seed.x.y=1", [1, 2], ["seed"]),
        ("missing-parent", "stop2.x=1", [1, 2], ["stop2"]),
        ("bytes-1e400", "workloads.2.bytes=1e400", [1], ["bytes"]),
        ("bytes-2e32", "workloads.2.bytes=4294967296", [0], []),  # valid: split into RDMA writes
        ("bytes-2e64", "workloads.2.bytes=18446744073709551616", [1], ["bytes"]),
        ("seed-nan", "seed=NaN", [1], ["seed"]),
        ("seed-neg", "seed=-1", [1], ["seed"]),
        ("name-dot", "name=.", [1], ["name"]),
        ("label-dotdot", "transport.1.label=..", [1], ["label"]),
        ("workloads-empty", "workloads=[]", [1], ["workloads"]),
        ("workload-number", "workloads.0=5", [1], ["workloads"]),
        ("sample-interval-tiny", "outputs.sample_interval_us=1e-9", [1], ["sample_interval_us"]),
        ("deep-path", ".".join(["a"] * 5000) + "=1", [1, 2], ["a"]),
        # Raw bytes: \udcXX is byte 0xXX on the command line.
        ("utf8-description", "description=\udcff\udcfe", [1, 2], ["description"]),
        ("utf8-description-overlong", "description=\udcc0\udcaf", [1, 2], ["description"]),
        ("utf8-name", "name=\udcff", [1, 2], ["name"]),
        ("utf8-attribute", "transport.0.attributes.ns3::MrcQueuePair::EvCount=\udcff", [1, 2], ["EvCount"]),
        ("utf8-path", "\udcff=1", [1, 2], [["\udcff", "\\xff", "utf-8", "utf8"]]),
        ("utf8-json-string", 'description="\udcff"', [1, 2], ["description"]),
    ]
    for tag, assignment, codes, message in sets:
        message = [key(m) + [m + "="] if m in ("name", "seed", "label", "bytes", "workloads") else m for m in message]
        cid = ident("cli.set", tag)
        c.add("cli", "set", cid, f"--set {assignment[:60]!r}", {"exit": codes, "message": message},
              argv=["validate", base, "--set", assignment], files=[base])
    # Deeply nested values on the command line (one argument is at most 128 KiB).
    cid = "cli.set.deep-value-60000"
    c.add("cli", "set", cid, "--set description=[[[...]]] 60,000 deep (generated)",
          {"exit": [1, 2], "message": ["description"]},
          argv=["validate", base, "--set", {"parts": [{"text": "description="}, {"repeat": "[", "count": 60000},
                                                      {"repeat": "]", "count": 60000}]}], files=[base])
    cid = "cli.set.deep-object-value-20000"
    c.add("cli", "set", cid, "--set workloads.0={\"a\":{\"a\":...}} 20,000 deep (generated)",
          {"exit": [1, 2], "message": ["workloads"]},
          argv=["validate", base, "--set", {"parts": [{"text": "workloads.0="}, {"repeat": '{"a":', "count": 20000},
                                                      {"text": "1"}, {"repeat": "}", "count": 20000}]}], files=[base])
    c.add("cli", "set", "cli.set.huge-name", "--set name=<100 KB>: names become file names",
          {"exit": [1, 2], "message": ["name"]},
          argv=["validate", base, "--set", {"parts": [{"text": "name="}, {"repeat": "n", "count": 100000}]}],
          files=[base])
    c.add("cli", "set", "cli.set.sweep-null-valid", "--set sweep=null on a scenario without a sweep: valid", OK,
          argv=["validate", base, "--set", "sweep=null"], files=[base])


def gen_cli(c):
    base = c.write("cli.base.json", dumps(COLLECTIVES))
    usage = [
        # (id, argv, exit, message)
        ("none", [], 2, []),  # usage alone on stderr
        ("empty-command", [""], 2, []),
        ("unknown-command", ["frobnicate"], 2, ["frobnicate"]),
        ("dash-command", ["--verbose"], 2, ["--verbose"]),
        ("validate.no-file", ["validate"], 2, ["scenario"]),
        ("validate.two-files", ["validate", base, "other.json"], 2, [["other.json", "one scenario"]]),
        ("validate.unknown-option", ["validate", base, "--bogus"], 2, ["--bogus"]),
        ("validate.set-no-value", ["validate", base, "--set"], 2, ["--set"]),
        ("validate.out", ["validate", base, "--out", "x"], 2, ["--out"]),
        ("validate.single-dash", ["validate", base, "-set", "seed=1"], 2, [["-set", "seed=1"]]),
        ("validate.help-valid", ["validate", "--help"], 0, []),
        ("run.no-file", ["run"], 2, ["scenario"]),
        ("run.no-file-quiet", ["run", "--quiet"], 2, ["scenario"]),
        ("run.out-no-value", ["run", base, "--out"], 2, ["--out"]),
        ("run.quiet-value", ["run", base, "--quiet=1", "--out", "out/run"], 2, ["--quiet"]),
        ("run.unknown-option", ["run", base, "--outt", "out/run"], 2, ["--outt"]),
        ("topo.none", ["topo"], 2, [["--preset", "--spec"]]),
        ("topo.both", ["topo", "--preset", "multiplane-64", "--spec", "x.json"], 2, [["--preset", "--spec"]]),
        ("topo.extra", ["topo", "--preset", "multiplane-64", "extra"], 2, ["extra"]),
        ("topo.unknown-option", ["topo", "--preset", "multiplane-64", "--planes", "2"], 2, ["--planes"]),
        ("topo.json-value", ["topo", "--preset", "multiplane-64", "--json=yes"], 2, ["--json"]),
        ("topo.graphml-no-value", ["topo", "--preset", "multiplane-64", "--graphml"], 2, ["--graphml"]),
        ("topo.fail-link-neg", ["topo", "--preset", "multiplane-64", "--no-groups", "--fail-link", "-1"], 2, ["--fail-link"]),
        ("topo.fail-link-abc", ["topo", "--preset", "multiplane-64", "--no-groups", "--fail-link", "abc"], 2, ["--fail-link"]),
        ("topo.fail-link-range", ["topo", "--preset", "multiplane-64", "--no-groups", "--fail-link", "1024"], 2, ["--fail-link"]),
        ("topo.fail-link-2e32", ["topo", "--preset", "multiplane-64", "--no-groups", "--fail-link", "4294967296"], 2, ["--fail-link"]),
        ("topo.fail-link-empty", ["topo", "--preset", "multiplane-64", "--no-groups", "--fail-link", ""], 2, ["--fail-link"]),
        ("bench.none", ["bench"], 2, ["benchmark"]),
        ("bench.unknown", ["bench", "nope"], 2, ["nope"]),
        ("bench.unknown-option", ["bench", "topology", "--preset", "multiplane-64", "--fast"], 2, ["--fast"]),
        ("bench.topology.samples-abc", ["bench", "topology", "--preset", "multiplane-64", "--samples", "abc"], 2, ["--samples"]),
        ("bench.topology.samples-neg", ["bench", "topology", "--preset", "multiplane-64", "--samples", "-1"], 2, ["--samples"]),
        ("bench.topology.samples-2e64", ["bench", "topology", "--preset", "multiplane-64", "--samples",
                                         "18446744073709551616"], 2, ["--samples"]),
        ("bench.forwarding.both", ["bench", "forwarding", "--hosts", "8", "--preset", "multiplane-64"], 2, [["--hosts", "--preset"]]),
        ("bench.forwarding.hosts-abc", ["bench", "forwarding", "--hosts", "abc"], 2, ["--hosts"]),
        ("bench.forwarding.hosts-zero", ["bench", "forwarding", "--hosts", "0"], 2, ["--hosts"]),
        ("bench.forwarding.hosts-neg", ["bench", "forwarding", "--hosts", "-8"], 2, ["--hosts"]),
        ("bench.forwarding.hosts-2e32", ["bench", "forwarding", "--hosts", "4294967304"], 2, ["--hosts"]),
        ("bench.forwarding.packets-abc", ["bench", "forwarding", "--hosts", "8", "--packets", "abc"], 2, ["--packets"]),
        ("bench.forwarding.packets-neg", ["bench", "forwarding", "--hosts", "8", "--packets", "-1"], 2, ["--packets"]),
        ("bench.forwarding.payload-abc", ["bench", "forwarding", "--hosts", "8", "--payload", "4k"], 2, ["--payload"]),
        ("bench.forwarding.payload-huge", ["bench", "forwarding", "--hosts", "8", "--payload", "99999999999"], 2, ["--payload"]),
        ("bench.forwarding.payload-neg", ["bench", "forwarding", "--hosts", "8", "--payload", "-5"], 2, ["--payload"]),
        ("bench.forwarding.scheduler", ["bench", "forwarding", "--hosts", "8", "--scheduler", "ns3::NoSuchScheduler"], 2,
         ["ns3::NoSuchScheduler"]),
        ("bench.forwarding.scheduler-empty", ["bench", "forwarding", "--hosts", "8", "--scheduler", ""], 2, ["--scheduler"]),
        ("bench.forwarding.scheduler-not-scheduler", ["bench", "forwarding", "--hosts", "8", "--scheduler", "ns3::Object"], 2,
         ["ns3::Object"]),
        ("bench.perm.scheduler", ["bench", "perm-8192", "--preset", "perm-512", "--scheduler", "ns3::NoSuchScheduler"], 2,
         ["ns3::NoSuchScheduler"]),
        ("bench.perm.scheduler-utf8", ["bench", "perm-8192", "--preset", "perm-512", "--scheduler", "ns3::\udcff"], 2,
         ["--scheduler"]),
        ("bench.perm.scheduler-map", ["bench", "perm-8192", "--preset", "perm-512", "--scheduler", "ns3::MapScheduler"], 2,
         ["--scheduler", "FabricScheduler"]),
        ("bench.perm.bytes-abc", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "2MB"], 2, ["--bytes"]),
        ("bench.perm.bytes-zero", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "0"], 2, ["--bytes"]),
        ("bench.perm.bytes-neg", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "-1"], 2, ["--bytes"]),
        ("bench.perm.bytes-float", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "1e9"], 2, ["--bytes"]),
        ("bench.perm.bytes-hex", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "0x10"], 2, ["--bytes"]),
        ("bench.perm.bytes-empty", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", ""], 2, ["--bytes"]),
        ("bench.perm.bytes-2e32", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "4294967296"], 2, ["--bytes"]),
        ("bench.perm.bytes-2e63", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "9223372036854775808"], 2, ["--bytes"]),
        ("bench.perm.bytes-2e64m1", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "18446744073709551615"], 2,
         ["--bytes"]),
        ("bench.perm.bytes-2e64", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "18446744073709551616"], 2, ["--bytes"]),
        ("bench.perm.bytes-no-value", ["bench", "perm-8192", "--preset", "perm-512", "--bytes"], 2, ["--bytes"]),
        ("bench.perm.partitions-zero", ["bench", "perm-8192", "--preset", "perm-512", "--partitions", "0"], 2, ["--partitions"]),
        ("bench.perm.partitions-65", ["bench", "perm-8192", "--preset", "perm-512", "--partitions", "65"], 2, ["--partitions"]),
        ("bench.perm.partitions-2e32p2", ["bench", "perm-8192", "--preset", "perm-512", "--partitions", "4294967298"], 2,
         ["--partitions"]),
        ("bench.perm.partitions-abc", ["bench", "perm-8192", "--preset", "perm-512", "--partitions", "two"], 2, ["--partitions"]),
        ("bench.perm.seed-neg", ["bench", "perm-8192", "--preset", "perm-512", "--seed", "-1"], 2, ["--seed"]),
        ("bench.perm.preset", ["bench", "perm-8192", "--preset", "nope"], [1, 2], ["nope"]),
    ]
    for tag, argv, code, message in usage:
        cid = ident("cli", tag)
        uses = [a for a in argv if a == base]
        timeout = 5 if tag.startswith("bench.") else None
        c.add("cli", "usage", cid, " ".join(a if isinstance(a, str) else "<generated>" for a in argv)[:100],
              {"exit": code, "message": message}, argv=argv, files=[base] if uses else None, timeout=timeout)

    # Files that are not files: a directory, nothing, a device, an empty name.
    cid = "cli.validate.directory.json"
    c.add("cli", "path", cid, "a directory as the scenario", err(cid), argv=["validate", cid], dirs=[cid])
    cid = "cli.run.directory.json"
    c.add("cli", "path", cid, "a directory as the scenario of run", err(cid), argv=["run", cid, "--out", "out/run"],
          dirs=[cid])
    c.add("cli", "path", "cli.validate.missing", "a scenario file that does not exist", err("cli.validate.missing.json"),
          argv=["validate", "cli.validate.missing.json"])
    c.add("cli", "path", "cli.validate.dev-null", "/dev/null as the scenario", err("/dev/null"),
          argv=["validate", "/dev/null"])
    c.add("cli", "path", "cli.validate.dev-zero", "/dev/zero (endless NULs) as the scenario", err("/dev/zero"),
          argv=["validate", "/dev/zero"], timeout=10)
    c.add("cli", "path", "cli.validate.empty-name", "an empty file name", {"exit": [1, 2], "message": [["file", "scenario"]]},
          argv=["validate", ""])
    c.add("cli", "path", "cli.validate.utf8-name", "a file name with byte 0xff, missing",
          err([".json"]), argv=["validate", "cli\udcff.json"])
    cid = "cli.topo.spec-directory.json"
    c.add("cli", "path", cid, "a directory as the fabric spec", err(cid), argv=["topo", "--spec", cid], dirs=[cid])
    c.add("cli", "path", "cli.topo.spec-missing", "a fabric spec that does not exist", err("cli.topo.spec-missing.json"),
          argv=["topo", "--spec", "cli.topo.spec-missing.json"])
    c.add("cli", "path", "cli.topo.preset-unknown", "an unknown preset", {"exit": [1, 2], "message": ["nope"]},
          argv=["topo", "--preset", "nope"])
    c.add("cli", "path", "cli.topo.preset-empty", "an empty preset name", {"exit": [1, 2], "message": ["preset"]},
          argv=["topo", "--preset", ""])
    c.add("cli", "path", "cli.topo.graphml-no-dir", "--graphml into a directory that does not exist",
          err("cli.topo.graphml-no-dir.graphml"),
          argv=["topo", "--preset", "multiplane-64", "--no-groups", "--graphml", "nodir/cli.topo.graphml-no-dir.graphml"])
    cid = "cli.topo.graphml-is-dir"
    c.add("cli", "path", cid, "--graphml onto a directory", err(cid), dirs=[cid],
          argv=["topo", "--preset", "multiplane-64", "--no-groups", "--graphml", cid])
    c.add("cli", "path", "cli.bench.topology.spec-missing", "bench topology --spec of a missing file",
          err("cli.bench.spec-missing.json"), argv=["bench", "topology", "--spec", "cli.bench.spec-missing.json"])
    c.add("cli", "path", "cli.validate.src-schema", "the JSON Schema given as a scenario",
          err("scenario.schema.json"), argv=["validate", "{src}/scenarios/scenario.schema.json"])


def gen_run(c):
    """The file validates (or should have been refused), and the run must end cleanly."""
    def run_case(tag, doc, expect, extra=(), timeout=None, note="", out="out/run"):
        cid = ident("run", tag)
        name = c.write(cid + ".json", dumps(doc))
        c.add("run", "run", cid, note or tag, expect, argv=["run", name, "--quiet", "--out", out, *extra],
              files=[name], timeout=timeout)
        return name

    run_case("valid", TINY_RUN, OK, note="the tiny scenario runs: valid")
    doc = clone(TINY_RUN)
    doc["outputs"] = {"sample_interval_us": 1e-7}
    run_case("sample-interval-below-resolution", doc, err("run.sample-interval-below-resolution.json", "sample_interval_us"),
             timeout=5, note="sample_interval_us 1e-7 (0.1 ps, below the time resolution)")
    doc = clone(TINY_RUN)
    doc["outputs"] = {"sample_interval_us": Raw("1e-320")}
    run_case("sample-interval-denormal", doc, err("run.sample-interval-denormal.json", "sample_interval_us"), timeout=5,
             note="sample_interval_us 1e-320")
    for tag, factor in [("1e-12", "1e-12"), ("1e-300", "1e-300")]:
        doc = clone(TINY_RUN)
        doc["failures"] = [{"type": "gray", "at_us": 0, "link": {"gpu": 0, "plane": 0}, "rate_factor": Raw(factor)}]
        run_case("gray-rate-factor-" + tag, doc, err(f"run.gray-rate-factor-{tag}.json", "rate_factor"), timeout=5,
                 note=f"gray rate_factor {factor}")
    doc = clone(TINY_RUN)
    doc["workloads"][0]["load"] = Raw("1e-300")
    doc["workloads"][0]["type"] = "random"
    doc["workloads"][0]["duration_us"] = 10
    run_case("random-load-tiny", doc, err("run.random-load-tiny.json", key("load")), timeout=5,
             note="random traffic at 1e-300 of the line rate (a gap longer than any time)")
    for tag, label in [("dot", "."), ("dotdot", "..")]:
        doc = clone(TINY_RUN)
        doc["transport"] = {"type": "mrc", "label": label}
        run_case("label-" + tag, doc, err(f"run.label-{tag}.json", key("label")), out="out/a/run",
                 note=f"transport label {label!r} (results would land in the results directory's parent)")
    name = "run.utf8-description.json"
    c.write(name, dumps(TINY_RUN))
    c.add("run", "run", "run.utf8-description", "--set description=<0xff 0xfe>: caught only when summary.json is written",
          {"exit": [1, 2], "message": ["description"]},
          argv=["run", name, "--quiet", "--out", "out/run", "--set", "description=\udcff\udcfe"], files=[name])
    cid = "run.out-under-file"
    name = c.write(cid + ".json", dumps(TINY_RUN))
    blocker = c.write(cid + ".blocker", "a regular file\n")
    c.add("run", "run", cid, "--out below a regular file", err(blocker),
          argv=["run", name, "--quiet", "--out", blocker + "/run"], files=[name, blocker])
    cid = "run.out-is-file"
    name = c.write(cid + ".json", dumps(TINY_RUN))
    blocker = c.write(cid + ".blocker", "a regular file\n")
    c.add("run", "run", cid, "--out names a regular file", err(blocker),
          argv=["run", name, "--quiet", "--out", blocker], files=[name, blocker])
