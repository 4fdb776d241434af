#include "sim/workloads/flow-list.h"

#include "sim/scenario/scenario-spec-detail.h"

#include "topologies/json-reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

namespace mrcsim
{

namespace
{

/// The most flows a file may hold (a record each, and the QPs of their pairs).
constexpr uint64_t kMaxFlows = 10000000;

[[noreturn]] void
Fail(const std::string& file, uint32_t line, const std::string& what)
{
  throw SpecError(file + (line ? ":" + std::to_string(line) : "") + ": " + what);
}

std::vector<std::string>
Split(const std::string& text, const std::string& separators)
{
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size())
  {
    const size_t j = text.find_first_of(separators, i);
    const size_t end = j == std::string::npos ? text.size() : j;
    if (end > i)
    {
      out.push_back(text.substr(i, end - i));
    }
    i = end + 1;
  }
  return out;
}

std::string
Trim(const std::string& s)
{
  const size_t a = s.find_first_not_of(" \t\r");
  const size_t b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

/// An unsigned integer field in [lo, hi].
uint64_t
Unsigned(const std::string& file, uint32_t line, const std::string& what, const std::string& text, uint64_t lo, uint64_t hi)
{
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = text.empty() || text[0] == '-' ? 0 : std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || !end || *end != '\0' || errno == ERANGE || v < lo || v > hi)
  {
    Fail(file, line, what + " \"" + text + "\"; allowed: an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return v;
}

/// A start time in microseconds, in [0, kMaxTimeUs].
double
StartUs(const std::string& file, uint32_t line, const std::string& text)
{
  char* end = nullptr;
  const double v = text.empty() ? NAN : std::strtod(text.c_str(), &end);
  if (text.empty() || !end || *end != '\0' || !(v >= 0) || v > detail::kMaxTimeUs)
  {
    Fail(file, line, "start \"" + text + "\"; allowed: microseconds in [0, 1e12]");
  }
  return v;
}

std::vector<std::string>
Lines(const std::string& file)
{
  std::ifstream in(file);
  if (!in)
  {
    Fail(file, 0, std::string("cannot open (") + std::strerror(errno) + ")");
  }
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line))
  {
    lines.push_back(line);
  }
  if (in.bad())
  {
    Fail(file, 0, "cannot read");
  }
  return lines;
}

/// Flows that could never start (a dependency cycle, or waiting for more than can complete):
/// the first one, by its line, is reported.
void
CheckStartable(FlowList& list)
{
  const size_t n = list.flows.size();
  std::vector<uint32_t> waiting(n);
  std::vector<std::vector<uint32_t>> dependents(n);
  std::vector<uint32_t> ready;
  for (uint32_t i = 0; i < n; ++i)
  {
    waiting[i] = list.flows[i].need;
    for (uint32_t d : list.flows[i].after)
    {
      dependents[d].push_back(i);
    }
    if (waiting[i] == 0)
    {
      ready.push_back(i);
    }
  }
  size_t started = 0;
  while (!ready.empty())
  {
    const uint32_t f = ready.back();
    ready.pop_back();
    ++started;
    for (uint32_t d : dependents[f])
    {
      if (waiting[d] > 0 && --waiting[d] == 0)
      {
        ready.push_back(d);
      }
    }
  }
  if (started < n)
  {
    for (uint32_t i = 0; i < n; ++i)
    {
      if (waiting[i] > 0)
      {
        Fail(list.file, list.flows[i].line,
             "this flow can never start: what it waits for never completes (a dependency cycle, or a barrier "
             "counting more activations than its flows give)");
      }
    }
  }
}

// ---- htsim connection matrix ---------------------------------------------------------------------

struct Trigger
{
  std::string type;     ///< "" until its "trigger" line, then "oneshot" or "barrier"
  uint32_t count = 0;   ///< barrier: activations needed
  uint32_t line = 0;    ///< its "trigger" line (or its first use)
  std::vector<uint32_t> activators; ///< flows whose completion activates it
  std::vector<uint32_t> targets;    ///< flows it starts
};

FlowList
ReadHtsim(const std::string& file)
{
  FlowList list;
  list.file = file;
  list.format = "htsim";
  const std::vector<std::string> lines = Lines(file);
  int64_t nodes = -1, connections = -1, triggersDeclared = -1;
  std::map<uint64_t, uint32_t> byId; // flow id -> index
  std::map<uint64_t, Trigger> triggers;
  uint32_t triggerLines = 0;
  struct Pending
  {
    uint32_t flow;
    uint64_t trigger;
    bool activates; ///< send_done/recv_done (else: started by)
  };
  std::vector<Pending> uses;
  for (uint32_t ln = 1; ln <= lines.size(); ++ln)
  {
    const std::vector<std::string> t = Split(lines[ln - 1], " \t\r");
    if (t.empty() || t[0][0] == '#')
    {
      continue;
    }
    if (t[0] == "Nodes" || t[0] == "Connections" || t[0] == "Triggers")
    {
      if (t.size() != 2)
      {
        Fail(file, ln, "\"" + t[0] + "\" takes one number");
      }
      const int64_t v = static_cast<int64_t>(Unsigned(file, ln, t[0], t[1], 0, detail::kMaxIndex));
      (t[0] == "Nodes" ? nodes : t[0] == "Connections" ? connections : triggersDeclared) = v;
      continue;
    }
    if (t[0] == "Failures")
    {
      Fail(file, ln, "\"Failures\": htsim's failures are not read; give failures in the scenario's \"failures\"");
    }
    if (t[0] == "trigger")
    {
      ++triggerLines;
      uint64_t id = 0;
      std::string type;
      uint32_t count = 0;
      for (size_t i = 1; i < t.size(); ++i)
      {
        if (t[i] == "id" && i + 1 < t.size())
          id = Unsigned(file, ln, "trigger id", t[++i], 1, detail::kMaxIndex);
        else if (t[i] == "count" && i + 1 < t.size())
          count = static_cast<uint32_t>(Unsigned(file, ln, "barrier count", t[++i], 1, detail::kMaxIndex));
        else if ((t[i] == "oneshot" || t[i] == "barrier" || t[i] == "multishot") && type.empty())
          type = t[i];
        else
          Fail(file, ln, "unknown token \"" + t[i] + "\" in a trigger line; allowed: id N, oneshot, barrier, count N");
      }
      if (id == 0)
        Fail(file, ln, "a trigger line needs \"id N\" (N >= 1)");
      if (type.empty())
        Fail(file, ln, "trigger " + std::to_string(id) + " needs a type: oneshot or barrier");
      if (type == "multishot")
        Fail(file, ln, "multishot triggers (one target started per activation) are not supported; use oneshot or barrier");
      if (type == "barrier" && count == 0)
        Fail(file, ln, "barrier trigger " + std::to_string(id) + " needs \"count N\"");
      Trigger& tr = triggers[id];
      if (!tr.type.empty())
        Fail(file, ln, "trigger " + std::to_string(id) + " is defined twice (also at line " + std::to_string(tr.line) + ")");
      tr.type = type;
      tr.count = count;
      tr.line = ln;
      continue;
    }
    const size_t arrow = t[0].find("->");
    if (arrow == std::string::npos)
    {
      Fail(file, ln, "unknown line starting \"" + t[0] +
                       "\"; allowed: Nodes N, Connections N, Triggers N, SRC->DST ..., trigger id N ...");
    }
    if (list.flows.size() >= kMaxFlows)
      Fail(file, ln, "more than " + std::to_string(kMaxFlows) + " flows");
    FlowEntry f;
    f.line = ln;
    f.src = static_cast<uint32_t>(Unsigned(file, ln, "source node", t[0].substr(0, arrow), 0, detail::kMaxIndex));
    f.dst = static_cast<uint32_t>(Unsigned(file, ln, "destination node", t[0].substr(arrow + 2), 0, detail::kMaxIndex));
    if (f.src == f.dst)
      Fail(file, ln, "a flow from node " + std::to_string(f.src) + " to itself");
    const uint32_t index = static_cast<uint32_t>(list.flows.size());
    bool hasStart = false;
    std::optional<uint64_t> startedBy;
    for (size_t i = 1; i < t.size(); ++i)
    {
      const std::string& k = t[i];
      if (i + 1 >= t.size())
        Fail(file, ln, "\"" + k + "\" needs a value");
      const std::string& v = t[++i];
      if (k == "start")
      {
        f.startUs = StartUs(file, ln, v);
        hasStart = true;
      }
      else if (k == "size")
        f.bytes = Unsigned(file, ln, "size", v, 1, detail::kMaxExact);
      else if (k == "id")
      {
        const uint64_t id = Unsigned(file, ln, "id", v, 1, detail::kMaxIndex);
        if (!byId.emplace(id, index).second)
          Fail(file, ln, "flow id " + v + " is used twice (also at line " + std::to_string(list.flows[byId[id]].line) + ")");
      }
      else if (k == "trigger")
      {
        startedBy = Unsigned(file, ln, "trigger", v, 1, detail::kMaxIndex);
        uses.push_back({ index, *startedBy, false });
      }
      else if (k == "send_done_trigger" || k == "recv_done_trigger")
        uses.push_back({ index, Unsigned(file, ln, k, v, 1, detail::kMaxIndex), true });
      else if (k == "prio" || k == "msg")
        Fail(file, ln, "\"" + k + "\" is not modelled (" +
                         (k == "prio" ? "flows have no priorities here" : "each flow is one message here") +
                         "); remove it to run the matrix without it");
      else
        Fail(file, ln, "unknown token \"" + k +
                         "\"; allowed: id, start, trigger, size, send_done_trigger, recv_done_trigger");
    }
    if (f.bytes == 0)
      Fail(file, ln, "a flow needs \"size BYTES\"");
    if (hasStart == startedBy.has_value())
      Fail(file, ln, hasStart ? "both \"start\" and \"trigger\": give one" : "no \"start\" or \"trigger\": give one");
    list.flows.push_back(f);
  }
  for (const Pending& u : uses)
  {
    auto it = triggers.find(u.trigger);
    if (it == triggers.end() || it->second.type.empty())
      Fail(file, list.flows[u.flow].line,
           "trigger " + std::to_string(u.trigger) + " is used but has no \"trigger id " + std::to_string(u.trigger) +
             " ...\" line");
    (u.activates ? it->second.activators : it->second.targets).push_back(u.flow);
  }
  for (auto& [id, tr] : triggers)
  {
    for (uint32_t target : tr.targets)
    {
      FlowEntry& f = list.flows[target];
      f.after = tr.activators;
      f.need = tr.type == "oneshot" ? 1 : tr.count;
      if (tr.activators.empty())
        Fail(file, f.line, "trigger " + std::to_string(id) + " has no flow with send_done_trigger or recv_done_trigger " +
                             std::to_string(id) + ": it never fires");
    }
  }
  if (nodes < 0)
    Fail(file, 0, "no \"Nodes N\" line");
  if (connections >= 0 && uint64_t(connections) != list.flows.size())
    Fail(file, 0, "\"Connections " + std::to_string(connections) + "\" but " + std::to_string(list.flows.size()) + " flow lines");
  if (triggersDeclared >= 0 && uint64_t(triggersDeclared) != triggerLines)
    Fail(file, 0, "\"Triggers " + std::to_string(triggersDeclared) + "\" but " + std::to_string(triggerLines) + " trigger lines");
  list.nodes = static_cast<uint32_t>(nodes);
  for (const FlowEntry& f : list.flows)
  {
    if (f.src >= list.nodes || f.dst >= list.nodes)
      Fail(file, f.line, "node " + std::to_string(std::max(f.src, f.dst)) + " but \"Nodes " + std::to_string(nodes) +
                           "\" (nodes 0.." + std::to_string(nodes - 1) + ")");
  }
  return list;
}

// ---- CSV and JSON flow lists ---------------------------------------------------------------------

/// Resolves each flow's "after" ids to indices (ids given or, by default, the flow's position
/// from 1) and sets `need` to all of them.
void
ResolveAfter(FlowList& list, const std::vector<uint64_t>& ids, const std::vector<std::vector<uint64_t>>& after)
{
  std::map<uint64_t, uint32_t> byId;
  for (uint32_t i = 0; i < list.flows.size(); ++i)
  {
    if (!byId.emplace(ids[i], i).second)
      Fail(list.file, list.flows[i].line,
           "flow id " + std::to_string(ids[i]) + " is used twice (also at " + std::to_string(list.flows[byId[ids[i]]].line) + ")");
  }
  for (uint32_t i = 0; i < list.flows.size(); ++i)
  {
    FlowEntry& f = list.flows[i];
    for (uint64_t a : after[i])
    {
      auto it = byId.find(a);
      if (it == byId.end())
        Fail(list.file, f.line, "\"after\" names flow " + std::to_string(a) + ", which the file does not have");
      if (it->second == i)
        Fail(list.file, f.line, "a flow cannot wait for itself");
      f.after.push_back(it->second);
    }
    f.need = static_cast<uint32_t>(f.after.size());
  }
}

FlowList
ReadCsv(const std::string& file)
{
  FlowList list;
  list.file = file;
  list.format = "csv";
  const std::vector<std::string> lines = Lines(file);
  std::map<std::string, size_t> column;
  std::vector<uint64_t> ids;
  std::vector<std::vector<uint64_t>> after;
  uint32_t header = 0;
  for (uint32_t ln = 1; ln <= lines.size(); ++ln)
  {
    const std::string text = Trim(lines[ln - 1]);
    if (text.empty() || text[0] == '#')
      continue;
    std::vector<std::string> cells;
    std::stringstream in(text);
    std::string cell;
    while (std::getline(in, cell, ','))
      cells.push_back(Trim(cell));
    if (text.back() == ',')
      cells.push_back("");
    if (header == 0)
    {
      header = ln;
      for (size_t i = 0; i < cells.size(); ++i)
      {
        static const char* kColumns[] = { "id", "src", "dst", "bytes", "start_us", "after" };
        if (std::find(std::begin(kColumns), std::end(kColumns), cells[i]) == std::end(kColumns))
          Fail(file, ln, "unknown column \"" + cells[i] + "\"; allowed: id, src, dst, bytes, start_us, after");
        if (!column.emplace(cells[i], i).second)
          Fail(file, ln, "column \"" + cells[i] + "\" given twice");
      }
      for (const char* required : { "src", "dst", "bytes" })
        if (!column.count(required))
          Fail(file, ln, std::string("the header lacks column \"") + required + "\" (needed: src, dst, bytes)");
      continue;
    }
    if (cells.size() != column.size())
      Fail(file, ln, std::to_string(cells.size()) + " fields; the header (line " + std::to_string(header) + ") has " +
                       std::to_string(column.size()));
    if (list.flows.size() >= kMaxFlows)
      Fail(file, ln, "more than " + std::to_string(kMaxFlows) + " flows");
    FlowEntry f;
    f.line = ln;
    f.src = static_cast<uint32_t>(Unsigned(file, ln, "src", cells[column["src"]], 0, detail::kMaxIndex));
    f.dst = static_cast<uint32_t>(Unsigned(file, ln, "dst", cells[column["dst"]], 0, detail::kMaxIndex));
    if (f.src == f.dst)
      Fail(file, ln, "a flow from node " + std::to_string(f.src) + " to itself");
    f.bytes = Unsigned(file, ln, "bytes", cells[column["bytes"]], 1, detail::kMaxExact);
    if (column.count("start_us") && !cells[column["start_us"]].empty())
      f.startUs = StartUs(file, ln, cells[column["start_us"]]);
    ids.push_back(column.count("id") ? Unsigned(file, ln, "id", cells[column["id"]], 0, detail::kMaxIndex)
                                     : list.flows.size() + 1);
    std::vector<uint64_t> deps;
    if (column.count("after"))
      for (const std::string& a : Split(cells[column["after"]], " ;"))
        deps.push_back(Unsigned(file, ln, "after", a, 0, detail::kMaxIndex));
    after.push_back(std::move(deps));
    list.nodes = std::max({ list.nodes, f.src + 1, f.dst + 1 });
    list.flows.push_back(f);
  }
  if (header == 0)
    Fail(file, 0, "empty: expected a header line (src,dst,bytes[,id,start_us,after]) and one line per flow");
  ResolveAfter(list, ids, after);
  return list;
}

FlowList
ReadJson(const std::string& file)
{
  FlowList list;
  list.file = file;
  list.format = "json";
  std::ifstream in(file);
  if (!in)
    Fail(file, 0, std::string("cannot open (") + std::strerror(errno) + ")");
  nlohmann::json doc;
  try
  {
    doc = nlohmann::json::parse(in);
  }
  catch (const nlohmann::json::exception& e)
  {
    Fail(file, 0, std::string("not valid JSON: ") + e.what());
  }
  if (!doc.is_array() || doc.empty())
    Fail(file, 0, "expected a non-empty list of flows ({\"src\", \"dst\", \"bytes\", \"id\", \"start_us\", \"after\"})");
  if (doc.size() > kMaxFlows)
    Fail(file, 0, "more than " + std::to_string(kMaxFlows) + " flows");
  std::vector<uint64_t> ids;
  std::vector<std::vector<uint64_t>> after;
  // A flow is named by its position (from 1) in messages: "FILE:3" is the third flow.
  for (uint32_t k = 0; k < doc.size(); ++k)
  {
    const nlohmann::json& v = doc[k];
    const uint32_t at = k + 1;
    if (!v.is_object())
      Fail(file, at, "flow " + std::to_string(at) + ": expected an object");
    for (const auto& [key, value] : v.items())
    {
      static const char* kKeys[] = { "id", "src", "dst", "bytes", "start_us", "after" };
      if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys))
        Fail(file, at, "flow " + std::to_string(at) + ": unknown key \"" + key + "\"; allowed: id, src, dst, bytes, start_us, after");
    }
    const auto integer = [&](const char* key, uint64_t lo, uint64_t hi, bool required) -> std::optional<uint64_t>
    {
      if (!v.contains(key))
      {
        if (required)
          Fail(file, at, "flow " + std::to_string(at) + ": missing \"" + key + "\"");
        return std::nullopt;
      }
      const nlohmann::json& x = v.at(key);
      if (!x.is_number_unsigned() || x.get<uint64_t>() < lo || x.get<uint64_t>() > hi)
        Fail(file, at, "flow " + std::to_string(at) + ": \"" + key + "\" " + x.dump() + "; allowed: an integer in [" +
                         std::to_string(lo) + ", " + std::to_string(hi) + "]");
      return x.get<uint64_t>();
    };
    FlowEntry f;
    f.line = at;
    f.src = static_cast<uint32_t>(*integer("src", 0, detail::kMaxIndex, true));
    f.dst = static_cast<uint32_t>(*integer("dst", 0, detail::kMaxIndex, true));
    if (f.src == f.dst)
      Fail(file, at, "flow " + std::to_string(at) + ": from node " + std::to_string(f.src) + " to itself");
    f.bytes = *integer("bytes", 1, detail::kMaxExact, true);
    if (v.contains("start_us"))
    {
      const nlohmann::json& s = v.at("start_us");
      if (!s.is_number() || !(s.get<double>() >= 0) || s.get<double>() > detail::kMaxTimeUs)
        Fail(file, at, "flow " + std::to_string(at) + ": \"start_us\" " + s.dump() + "; allowed: microseconds in [0, 1e12]");
      f.startUs = s.get<double>();
    }
    ids.push_back(integer("id", 0, detail::kMaxIndex, false).value_or(at));
    std::vector<uint64_t> deps;
    if (v.contains("after"))
    {
      if (!v.at("after").is_array())
        Fail(file, at, "flow " + std::to_string(at) + ": \"after\" must be a list of flow ids");
      for (const nlohmann::json& a : v.at("after"))
      {
        if (!a.is_number_unsigned())
          Fail(file, at, "flow " + std::to_string(at) + ": \"after\" must be a list of flow ids, got " + a.dump());
        deps.push_back(a.get<uint64_t>());
      }
    }
    after.push_back(std::move(deps));
    list.nodes = std::max({ list.nodes, f.src + 1, f.dst + 1 });
    list.flows.push_back(f);
  }
  ResolveAfter(list, ids, after);
  return list;
}

} // namespace

std::string
FlowFormatOf(const std::string& file)
{
  const size_t dot = file.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : file.substr(dot + 1);
  if (ext == "cm" || ext == "tm")
    return "htsim";
  if (ext == "csv" || ext == "json")
    return ext;
  return "";
}

FlowList
ReadFlowList(const std::string& file, const std::string& format)
{
  FlowList list = format == "htsim" ? ReadHtsim(file) : format == "csv" ? ReadCsv(file) : ReadJson(file);
  if (list.flows.empty())
    Fail(file, 0, "no flows");
  CheckStartable(list);
  return list;
}

} // namespace mrcsim
