// The extension `_mrcsim` under the Python package `mrcsim` (sim/python/mrcsim/, which adds the
// DataFrames and load()): scenarios validated and run from a file or a dict (the summary as a
// dict, the time series as numpy arrays), sweep blocks expanded into their points (the one
// expansion; scripts/sweep.py uses it), and fabrics built from presets or specs with their figures.
// A thin layer over the library the CLI uses (RunScenario, ExpandSweep, ReportFabric); it adds no
// simulation logic. ns-3's simulator is one per process, so runs are serialised.
#include "sim/run/output-directory-lock.h"
#include "sim/run/run-watchdog.h"
#include "sim/run/scenario-run.h"
#include "sim/scenario/scenario-sweep.h"
#include "topologies/fabric-report.h"
#include "topologies/graphml-io.h"
#include "topologies/json-reader.h"

#include "ns3/nstime.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <csignal>
#include <limits>
#include <cmath>
#include <mutex>
#include <string>
#include <vector>

namespace py = pybind11;

namespace mrcsim
{

namespace
{

/// Origin named in the messages about a scenario or fabric spec given as a dict.
const char* kDictOrigin = "<dict>";

/// One scenario run at a time: ns-3's simulator and configuration are process-wide.
std::mutex g_runMutex;

/// JSON crosses the boundary as text: exact for every value JSON holds, and the json module
/// already says what it cannot encode.
py::object
ToPython(const nlohmann::json& j)
{
  return py::module_::import("json").attr("loads")(j.dump());
}

/// The JSON path of the first value in `value` that JSON cannot hold (a NaN or infinite float,
/// a string or key with a lone surrogate) and why, or empty; nesting beyond 64 levels stops the
/// walk (the parser then refuses the depth).
std::pair<std::string, std::string>
FindUnrepresentable(py::handle value, const std::string& path, int depth = 0)
{
  if (depth > 64)
    return {};
  const auto text = [](py::handle s)
  {
    try
    {
      s.attr("encode")("utf-8");
      return true;
    }
    catch (py::error_already_set&)
    {
      return false;
    }
  };
  if (py::isinstance<py::float_>(value) && !std::isfinite(value.cast<double>()))
    return { path.empty() ? "/" : path, "a number JSON cannot hold (" + std::string(py::str(value)) + ")" };
  if (py::isinstance<py::str>(value) && !text(value))
    return { path.empty() ? "/" : path, "a string with a lone surrogate, not valid text" };
  if (py::isinstance<py::dict>(value))
  {
    for (auto [k, v] : value.cast<py::dict>())
    {
      if (py::isinstance<py::str>(k) && !text(k))
        return { path + "/" + std::string(py::str(py::repr(k))), "a key with a lone surrogate, not valid text" };
      const std::string key = py::isinstance<py::str>(k) ? k.cast<std::string>() : std::string(py::str(k));
      auto found = FindUnrepresentable(v, path + "/" + key, depth + 1);
      if (!found.first.empty())
        return found;
    }
  }
  else if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value))
  {
    std::size_t i = 0;
    for (py::handle v : value)
    {
      auto found = FindUnrepresentable(v, path + "/" + std::to_string(i++), depth + 1);
      if (!found.first.empty())
        return found;
    }
  }
  return {};
}

/// A Python value as JSON text (json.dumps: a dict's keys in its order). What JSON cannot hold
/// (NaN, infinities, lone surrogates, objects of other types) is a SpecError naming `what` and the
/// path in it, as a file's bad value would be.
std::string
ToJsonText(py::handle value, const std::string& what = "<dict>")
{
  const auto [path, why] = FindUnrepresentable(value, "");
  if (!path.empty())
    throw SpecError(what + ": at " + path + ": " + why);
  try
  {
    return py::str(py::module_::import("json").attr("dumps")(value, py::arg("allow_nan") = false)).cast<std::string>();
  }
  catch (py::error_already_set& e)
  {
    if (!e.matches(PyExc_ValueError) && !e.matches(PyExc_TypeError))
      throw;
    throw SpecError(what + ": not representable as JSON: " + std::string(py::str(e.value())));
  }
}

/// A Python value as JSON (ToJsonText, parsed as strictly as a file).
nlohmann::json
ToJson(py::handle value, const std::string& what = "<dict>")
{
  return ParseJsonText(ToJsonText(value, what), what);
}

bool
IsPath(py::handle value)
{
  return py::isinstance<py::str>(value) || py::isinstance<py::bytes>(value) ||
         py::isinstance(value, py::module_::import("os").attr("PathLike"));
}

std::string
PathText(py::handle value)
{
  // os.fsencode gives the path's bytes as the system has them (undecodable bytes included); a
  // path it cannot encode (a lone surrogate) is named rather than failing inside pybind11.
  try
  {
    return py::bytes(py::module_::import("os").attr("fsencode")(value)).cast<std::string>();
  }
  catch (py::error_already_set& e)
  {
    if (!e.matches(PyExc_UnicodeError))
      throw;
    throw SpecError("path " + std::string(py::str(py::repr(value))) + ": not a file name: " +
                    std::string(py::str(e.value())));
  }
}

/// A Python str as UTF-8; a string without a UTF-8 form (a lone surrogate) is a SpecError
/// naming `what`.
std::string
Utf8(py::handle text, const std::string& what)
{
  try
  {
    return py::bytes(text.attr("encode")("utf-8")).cast<std::string>();
  }
  catch (py::error_already_set& e)
  {
    if (!e.matches(PyExc_UnicodeError))
      throw;
    throw SpecError(what + " " + std::string(py::str(py::repr(text))) + ": not valid text: " +
                    std::string(py::str(e.value())));
  }
}

/// Overrides as the CLI's --set takes them: a dict {path: value} (the value as JSON, so a string
/// stays a string) or a list of "path=value" strings.
std::vector<std::string>
Overrides(py::handle overrides)
{
  std::vector<std::string> out;
  if (overrides.is_none())
  {
    return out;
  }
  if (py::isinstance<py::dict>(overrides))
  {
    for (auto [path, value] : overrides.cast<py::dict>())
    {
      if (!py::isinstance<py::str>(path))
      {
        throw py::type_error("overrides: keys are paths such as \"workloads.0.bytes\", got " +
                             py::repr(path).cast<std::string>());
      }
      const std::string key = Utf8(path, "override");
      out.push_back(key + "=" + ToJson(value, "override \"" + key + "\"").dump());
    }
    return out;
  }
  if (!py::isinstance<py::str>(overrides) && py::isinstance<py::sequence>(overrides))
  {
    for (py::handle item : overrides)
    {
      if (!py::isinstance<py::str>(item))
      {
        throw py::type_error("overrides: list items are \"path=value\" strings, got " +
                             py::repr(item).cast<std::string>());
      }
      out.push_back(Utf8(item, "override"));
    }
    return out;
  }
  throw py::type_error("overrides: expected a dict {\"path\": value} or a list of \"path=value\" strings, got " +
                       py::repr(overrides).cast<std::string>());
}

/// A scenario from a path (str or os.PathLike) or a dict, overrides applied, validated.
ScenarioSpec
LoadScenario(py::handle scenario, py::handle overrides)
{
  const std::vector<std::string> sets = Overrides(overrides);
  if (IsPath(scenario))
  {
    const std::string file = PathText(scenario);
    py::gil_scoped_release unlocked;
    return ReadScenarioFile(file, sets);
  }
  if (py::isinstance<py::dict>(scenario))
  {
    nlohmann::json document = ToJson(scenario);
    py::gil_scoped_release unlocked;
    return ParseScenario(std::move(document), kDictOrigin, sets);
  }
  throw py::type_error("scenario: expected a path (str or os.PathLike) or a dict, got " +
                       py::repr(scenario).cast<std::string>());
}

nlohmann::json
Describe(const ScenarioSpec& spec)
{
  nlohmann::json transports = nlohmann::json::array();
  for (const TransportSpec& t : spec.transports)
  {
    transports.push_back({ { "label", t.label },
                           { "type", t.type },
                           { "attributes", t.attributes },
                           { "qps_per_connection", t.qpsPerConnection } });
  }
  nlohmann::json workloads = nlohmann::json::array();
  for (const WorkloadSpec& w : spec.workloads)
  {
    workloads.push_back({ { "name", w.name }, { "type", w.type }, { "gpus", w.gpus.gpus.size() } });
  }
  nlohmann::json failures = nlohmann::json::array();
  for (const FailureSpec& f : spec.failures)
  {
    failures.push_back({ { "type", f.type }, { "at_us", f.atUs } });
  }
  return { { "name", spec.name },
           { "description", spec.description },
           { "file", spec.file },
           { "seed", spec.seed },
           { "hash", ScenarioHash(spec.document) },
           { "topology", FabricSpecToJson(spec.topology) },
           { "transports", transports },
           { "workloads", workloads },
           { "failures", failures },
           { "stop", { { "sim_time_us", spec.stop.simTimeUs }, { "wall_time_s", spec.stop.wallTimeS } } },
           { "sample_interval_us", spec.outputs.sampleIntervalUs },
           { "document", spec.document } };
}

template<typename T>
py::array_t<T>
ToArray(const std::vector<T>& column)
{
  return py::array_t<T>(static_cast<py::ssize_t>(column.size()), column.data());
}

py::dict
SeriesToPython(const TimeSeries& s)
{
  py::dict d;
  d["time_us"] = ToArray(s.timeUs);
  d["plane"] = ToArray(s.plane);
  d["goodput_gbps"] = ToArray(s.goodputGbps);
  d["uplink_utilisation"] = ToArray(s.uplinkUtilisation);
  if (!s.ports.timeUs.empty())
  {
    // outputs.ports: a table of its own (rows per sample and port, not per plane).
    py::dict ports;
    ports["time_us"] = ToArray(s.ports.timeUs);
    ports["link"] = ToArray(s.ports.link);
    ports["node"] = py::cast(s.ports.node);
    ports["port"] = ToArray(s.ports.port);
    ports["queue_bytes"] = ToArray(s.ports.queueBytes);
    ports["utilisation"] = ToArray(s.ports.utilisation);
    d["ports"] = ports;
  }
  return d;
}

void
OnSigint(int)
{
  RequestStop(SIGINT);
}

/// While alive, Ctrl-C stops the run at its next sample (Python's own handler cannot run while
/// the simulation holds no GIL). Only on the main thread, and not if SIGINT is ignored.
class SigintStopsRun
{
public:
  explicit SigintStopsRun(bool mainThread)
  {
    if (!mainThread)
    {
      return;
    }
    struct sigaction action = {};
    action.sa_handler = OnSigint;
    sigemptyset(&action.sa_mask);
    m_installed = sigaction(SIGINT, &action, &m_previous) == 0;
    if (m_installed && m_previous.sa_handler == SIG_IGN)
    {
      sigaction(SIGINT, &m_previous, nullptr);
      m_installed = false;
    }
  }
  ~SigintStopsRun()
  {
    if (m_installed)
    {
      sigaction(SIGINT, &m_previous, nullptr);
    }
  }
  SigintStopsRun(const SigintStopsRun&) = delete;
  SigintStopsRun& operator=(const SigintStopsRun&) = delete;

private:
  struct sigaction m_previous = {};
  bool m_installed = false;
};

/// What run() returns.
struct RunResult
{
  py::object summary;   ///< summary.json's content, as a dict
  py::dict timeseries;  ///< {transport label: {column: numpy array}}
  bool partial = false; ///< a limit stopped a run (summary's "partial")
  py::object outDir;    ///< where the files went, or None
};

/// out_dir as a path; "" is refused (it would mean the working directory's files, or none).
std::string
OutDirText(py::handle outDir, const char* function)
{
  const std::string text = PathText(outDir);
  if (text.empty())
    throw py::value_error(std::string(function) +
                          ": out_dir='' is an empty path; give a directory (or None: no files kept)");
  return text;
}

RunResult
Run(py::handle scenario,
    py::handle overrides,
    py::handle outDir,
    bool quiet,
    uint32_t partitions,
    const OutputDirectoryLock* lock)
{
  if (partitions > kMaxPartitions)
  {
    throw py::value_error("run: partitions=" + std::to_string(partitions) + ": 0 (the default) or 1 to " +
                          std::to_string(kMaxPartitions));
  }
  const ScenarioSpec spec = LoadScenario(scenario, overrides);
  ScenarioRunOptions options;
  options.outDir = outDir.is_none() ? "" : OutDirText(outDir, "run");
  options.lock = lock;
  options.progress = !quiet;
  options.partitions = partitions;
  py::module_ threading = py::module_::import("threading");
  const bool mainThread = threading.attr("current_thread")().is(threading.attr("main_thread")());

  ScenarioResult result;
  bool interrupted = false;
  {
    py::gil_scoped_release unlocked;
    std::lock_guard<std::mutex> lock(g_runMutex);
    SigintStopsRun sigint(mainThread);
    ClearStopRequest();
    result = RunScenario(spec, options);
    interrupted = ClearStopRequest();
  }
  if (interrupted)
  {
    PyErr_SetString(PyExc_KeyboardInterrupt,
                    options.outDir.empty() ? "run interrupted"
                                           : ("run interrupted; partial results in " + options.outDir).c_str());
    throw py::error_already_set();
  }

  RunResult r;
  r.summary = ToPython(result.summary);
  for (const TransportResult& t : result.transports)
  {
    r.timeseries[py::str(t.summary["label"].get<std::string>())] = SeriesToPython(t.series);
  }
  r.partial = result.partial;
  r.outDir = options.outDir.empty() ? py::none() : py::object(py::str(options.outDir));
  return r;
}

py::object
Topology(py::handle preset, py::handle spec, bool check, bool groups, py::handle failLinks, py::handle graphml)
{
  if (preset.is_none() == spec.is_none())
  {
    throw py::value_error("topology: give exactly one of preset=NAME or spec=PATH_OR_DICT");
  }
  FabricSpec fabricSpec;
  std::string origin;
  if (!preset.is_none())
  {
    const std::string name = Utf8(preset, "preset");
    origin = "preset " + name;
    fabricSpec = PresetSpec(name);
  }
  else if (IsPath(spec))
  {
    origin = PathText(spec);
    fabricSpec = ReadFabricSpecFile(origin);
  }
  else if (py::isinstance<py::dict>(spec))
  {
    origin = kDictOrigin;
    const nlohmann::json document = ToJson(spec); // the reader keeps a reference
    JsonReader reader(document, origin, "");
    fabricSpec = ParseFabricSpec(reader);
  }
  else
  {
    throw py::type_error("topology: spec is a path (str or os.PathLike) or a dict, got " +
                         py::repr(spec).cast<std::string>());
  }
  FabricReportOptions options;
  options.check = check;
  options.groups = groups;
  if (!failLinks.is_none())
  {
    // pybind11's own cast errors name neither the argument nor the item at fault.
    if (!py::isinstance<py::iterable>(failLinks) || py::isinstance<py::str>(failLinks))
    {
      throw py::type_error("topology: fail_links is a list of link ids (int), got " +
                           py::repr(failLinks).cast<std::string>());
    }
    for (py::handle id : failLinks)
    {
      if (!py::isinstance<py::int_>(id) || py::isinstance<py::bool_>(id))
      {
        throw py::type_error("topology: fail_links holds link ids (int), got " + py::repr(id).cast<std::string>());
      }
      long long link = -1;
      try
      {
        link = id.cast<long long>();
      }
      catch (const py::cast_error&)
      {
      }
      if (link < 0 || link > std::numeric_limits<uint32_t>::max())
      {
        throw py::value_error("fail_links: " + py::repr(id).cast<std::string>() + " is not a link id");
      }
      // A link given twice fails once (as `mrcsim topo --fail-link` counts it).
      if (std::find(options.failedLinks.begin(), options.failedLinks.end(), link) == options.failedLinks.end())
        options.failedLinks.push_back(static_cast<uint32_t>(link));
    }
  }
  const std::string graphmlFile = graphml.is_none() ? "" : PathText(graphml);
  nlohmann::json report;
  {
    py::gil_scoped_release unlocked;
    const Fabric fabric = BuildFabric(fabricSpec, origin);
    report = ReportFabric(fabric, fabricSpec, options).json;
    if (!graphmlFile.empty())
    {
      WriteFabricGraphml(fabric, graphmlFile);
    }
  }
  return ToPython(report);
}

/// What expand_sweep() returns: each point of the scenario's sweep as a dict.
py::list
ExpandSweepPoints(py::handle scenario, py::handle overrides)
{
  const std::vector<std::string> sets = Overrides(overrides);
  std::string origin;
  std::string text;
  if (IsPath(scenario))
  {
    origin = PathText(scenario);
    py::gil_scoped_release unlocked;
    text = ReadInputFile(origin, "JSON", kMaxJsonFileBytes);
  }
  else if (py::isinstance<py::dict>(scenario))
  {
    origin = kDictOrigin;
    text = ToJsonText(scenario);
  }
  else
  {
    throw py::type_error("scenario: expected a path (str or os.PathLike) or a dict, got " +
                         py::repr(scenario).cast<std::string>());
  }
  std::vector<SweepPoint> points;
  {
    py::gil_scoped_release unlocked;
    // As ReadScenarioFile, from the text read once: the parameters' order comes from the same text.
    const ScenarioSpec spec = ParseScenario(ParseJsonText(text, origin), origin, sets);
    points = ExpandSweep(spec, SweepParameterOrder(text));
  }
  py::list out;
  for (const SweepPoint& p : points)
  {
    py::dict values;
    for (const auto& [path, value] : p.values)
    {
      values[py::str(path)] = ToPython(value);
    }
    py::dict point;
    point["index"] = p.index;
    point["values"] = values;
    point["seed"] = p.seed;
    point["scenario"] = ToPython(p.document);
    out.append(point);
  }
  return out;
}

py::dict
PresetNames()
{
  py::dict d;
  for (const Preset& p : Presets())
  {
    d[py::str(p.name)] = p.description;
  }
  return d;
}

} // namespace

} // namespace mrcsim

PYBIND11_MODULE(_mrcsim, m)
{
  using namespace mrcsim;
  // As the CLI: picosecond resolution, so that a 4 KB frame at 100 Gb/s takes 335.2 ns.
  ns3::Time::SetResolution(ns3::Time::PS);
  // pybind11 finds numpy's C API in a function-local static on first use; done there by two
  // threads at once, one holds the GIL while waiting for the other, which needs it to import
  // numpy. Done here, under the import lock, no run ever does it.
  py::array_t<double>(0);
  py::array_t<int32_t>(0);

  m.doc() = "Packet-level simulation of MRC and RoCEv2 on multiplane AI fabrics (ns-3).\n\n"
            "validate() and run() take a scenario file or dict, with overrides like the CLI's --set;\n"
            "expand_sweep() gives the points of its sweep block; topology() builds a fabric and\n"
            "reports its figures.";
  m.attr("__version__") = MRCSIM_VERSION;
  // Messages quote the input, which may hold bytes that are not UTF-8 (a file name): they are
  // shown escaped rather than lost.
  static py::exception<SpecError> specError(m, "SpecError", PyExc_ValueError);
  py::register_exception<OutputDirectoryBusy>(m, "OutputDirectoryBusy", PyExc_RuntimeError);
  py::register_exception_translator(
    [](std::exception_ptr p)
    {
      try
      {
        if (p)
          std::rethrow_exception(p);
      }
      catch (const SpecError& e)
      {
        const std::string text = e.what();
        PyObject* message = PyUnicode_DecodeUTF8(text.data(), Py_ssize_t(text.size()), "backslashreplace");
        PyErr_SetObject(specError.ptr(), message);
        Py_XDECREF(message);
      }
    });

  py::class_<RunResult>(m, "RunResult", "What run() returns.")
    .def_readonly("summary", &RunResult::summary, "summary.json's content, as a dict")
    .def_readonly("timeseries",
                  &RunResult::timeseries,
                  "{transport label: {column: numpy array}}; columns time_us (float64), plane (int32), "
                  "goodput_gbps and uplink_utilisation (float64), one row per sample and plane")
    .def_readonly("partial", &RunResult::partial, "True when a limit stopped a run before all work was done")
    .def_readonly("out_dir", &RunResult::outDir, "directory of summary.json and the CSVs, or None")
    .def("__repr__",
         [](const RunResult& r)
         {
           py::list labels;
           for (auto item : r.timeseries)
             labels.append(item.first);
           return "<mrcsim.RunResult " + py::str(r.summary["scenario"]).cast<std::string>() +
                  " runs=" + py::repr(labels).cast<std::string>() + (r.partial ? " partial" : "") + ">";
         });

  m.def(
    "validate",
    [](py::handle scenario, py::handle overrides) { return ToPython(Describe(LoadScenario(scenario, overrides))); },
    py::arg("scenario"),
    py::arg("overrides") = py::none(),
    "validate(scenario, overrides=None) -> dict\n\n"
    "Reads and checks a scenario (keys, types, ranges, references against its fabric) without\n"
    "running it. scenario: a path (str or os.PathLike) or a dict in the scenario file format.\n"
    "overrides: {\"workloads.0.bytes\": 1048576} or [\"workloads.0.bytes=1048576\"], as --set.\n"
    "Returns name, description, file, seed, hash, topology, transports, workloads, failures,\n"
    "stop, sample_interval_us and the document after overrides. Raises mrcsim.SpecError\n"
    "(a ValueError) naming the file, the key and what is allowed.");
  py::class_<OutputDirectoryLock>(m,
                                  "OutputLock",
                                  "OutputLock(out_dir): the results directory's lock (out_dir/.mrcsim.lock, an\n"
                                  "exclusive flock), taken at once or OutputDirectoryBusy; a context manager.\n"
                                  "run(..., out_dir=D, lock=L) with L a lock of D runs under it.")
    .def(py::init([](py::handle dir) { return std::make_unique<OutputDirectoryLock>(OutDirText(dir, "OutputLock")); }),
         py::arg("out_dir"))
    .def("release", &OutputDirectoryLock::Release, "lets the lock go (idempotent)")
    .def_property_readonly("held", &OutputDirectoryLock::Held)
    .def("__enter__", [](OutputDirectoryLock& l) -> OutputDirectoryLock& { return l; }, py::return_value_policy::reference)
    .def("__exit__", [](OutputDirectoryLock& l, py::args) { l.Release(); });
  m.def("run",
        &Run,
        py::arg("scenario"),
        py::arg("overrides") = py::none(),
        py::arg("out_dir") = py::none(),
        py::arg("quiet") = true,
        py::arg("partitions") = 0,
        py::arg("lock") = static_cast<const OutputDirectoryLock*>(nullptr),
        "run(scenario, overrides=None, out_dir=None, quiet=True, partitions=0) -> RunResult\n\n"
        "Runs the scenario on each of its transports, as `mrcsim run`. The result has .summary\n"
        "(summary.json's content as a dict), .timeseries ({label: {column: numpy array}}) and\n"
        ".partial. out_dir: also write summary.json and <label>/*.csv there (default: no files).\n"
        "quiet=False prints progress lines on stderr. partitions: of each run's fabric, one thread\n"
        "each (1 to 64; 0: 2, or 1 with outputs.pcap); the results do not depend on it. lock: an\n"
        "OutputLock of out_dir the caller holds (else the run takes it; OutputDirectoryBusy if another\n"
        "holds it). Same scenario and seed, same summary (but run_id and\n"
        "wall_clock). Ctrl-C stops the run and raises KeyboardInterrupt. Raises mrcsim.SpecError\n"
        "on a bad scenario.");
  m.def("topology",
        &Topology,
        py::arg("preset") = py::none(),
        py::arg("spec") = py::none(),
        py::kw_only(),
        py::arg("check") = false,
        py::arg("groups") = true,
        py::arg("fail_links") = py::none(),
        py::arg("graphml") = py::none(),
        "topology(preset=None, spec=None, *, check=False, groups=True, fail_links=None, graphml=None)"
        " -> dict\n\n"
        "Builds a fabric from a preset name or a fabric spec (path or dict) and returns what\n"
        "`mrcsim topo --json` prints: gpus, planes, tiers, switches, links, optics, max_switch_hops,\n"
        "shortest_paths, bisection_tbps, power_kw, spec, routing (and check when check=True).\n"
        "fail_links: link ids down before routing; graphml: also export the fabric there.");
  m.def("expand_sweep",
        &ExpandSweepPoints,
        py::arg("scenario"),
        py::arg("overrides") = py::none(),
        "expand_sweep(scenario, overrides=None) -> list of dict\n\n"
        "The points of a scenario's sweep block, as scripts/sweep.py runs them: the cartesian\n"
        "product of its parameters' values (the first parameter, in the file's order, varies\n"
        "slowest) times its seeds (fastest). Each point is {\"index\": k, \"values\": {path: value}\n"
        "(in the file's order), \"seed\": S, \"scenario\": the document the point runs (sweep null,\n"
        "seed and values applied as --set applies them)}. scenario and overrides as validate();\n"
        "the scenario and every swept value are checked first. Raises mrcsim.SpecError naming\n"
        "the file, the key and what is allowed, or saying the scenario has no sweep block.");
  m.def("presets", &PresetNames, "presets() -> dict: the fabric presets, name -> description.");
}
