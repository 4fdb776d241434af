// Reading a scenario's link selectors ({"id"}, {"gpu", "plane"}, {"plane", "t0", "t1"},
// {"plane", "t0", "up_port"}) and resolving them to link ids of the built fabric.
#include "sim/scenario/scenario-spec-detail.h"
#include "sim/scenario/scenario-spec.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mrcsim
{

using detail::Existing;
using detail::kMaxIndex;
using detail::kSelectorForms;

LinkSelector
detail::ParseLinkSelector(const nlohmann::json& v,
                          const std::string& origin,
                          const std::string& path,
                          const Fabric& fabric)
{
  JsonReader r(v, origin, path);
  r.Expect({ "id", "gpu", "plane", "t0", "t1", "up_port" });
  std::set<std::string> keys;
  for (const auto& item : v.items())
  {
    keys.insert(item.key());
  }
  static const std::vector<std::set<std::string>> forms{
    { "id" }, { "gpu", "plane" }, { "plane", "t0", "t1" }, { "plane", "t0", "up_port" }
  };
  if (std::find(forms.begin(), forms.end(), keys) == forms.end())
  {
    std::string got;
    for (const std::string& k : keys)
    {
      got += (got.empty() ? "\"" : ", \"") + k + "\"";
    }
    throw SpecError(origin + ": at " + path + ": a link is named by exactly one of the forms " + kSelectorForms +
                    "; got {" + got + "}");
  }
  auto read = [&r](const std::string& key) -> std::optional<uint32_t>
  {
    if (!r.Has(key))
    {
      return std::nullopt;
    }
    return static_cast<uint32_t>(r.Int(key, 0, kMaxIndex));
  };
  LinkSelector s;
  s.where = path;
  s.id = read("id");
  s.gpu = read("gpu");
  if (r.Has("plane"))
  {
    s.plane = static_cast<int>(r.Int("plane", 0, std::numeric_limits<int16_t>::max()));
  }
  s.t0 = read("t0");
  s.t1 = read("t1");
  s.upPort = read("up_port");
  r.Finish();
  ResolveLink(fabric, s, origin);
  return s;
}

uint32_t
ResolveLink(const Fabric& fabric, const LinkSelector& s, const std::string& origin)
{
  auto fail = [&](const std::string& key, const std::string& message)
  { throw SpecError(origin + ": at " + s.where + (key.empty() ? "" : "/" + key) + ": " + message); };
  auto check = [&](const std::string& key,
                   uint64_t value,
                   size_t count,
                   const std::string& noun,
                   const std::string& plural,
                   const std::string& scope)
  {
    if (value >= count)
    {
      fail(key, noun + " " + std::to_string(value) + " does not exist; " + Existing(count, plural, scope));
    }
  };
  if (s.id)
  {
    check("id", *s.id, fabric.NumLinks(), "link", "links", "the fabric");
    return *s.id;
  }
  if (!s.plane || *s.plane < 0)
  {
    fail("", std::string("a link is named by exactly one of the forms ") + kSelectorForms);
  }
  const int plane = *s.plane;
  const std::string planeName = "plane " + std::to_string(plane);
  check("plane", plane, fabric.NumPlanes(), "plane", "planes", "the fabric");
  if (s.gpu)
  {
    check("gpu", *s.gpu, fabric.NumGpus(), "GPU", "GPUs", "the fabric");
    VertexId gpu = fabric.Gpu(*s.gpu);
    for (uint16_t port = 0; port < fabric.Degree(gpu); ++port)
    {
      if (fabric.LinkAt(gpu, port).plane == plane)
      {
        return fabric.LinkAt(gpu, port).id;
      }
    }
    fail("plane", "GPU " + std::to_string(*s.gpu) + " has no port in " + planeName);
  }
  if (!s.t0 || s.t1.has_value() == s.upPort.has_value())
  {
    fail("", std::string("a link is named by exactly one of the forms ") + kSelectorForms);
  }
  const std::vector<VertexId>& t0s = fabric.Switches(plane, 0);
  check("t0", *s.t0, t0s.size(), "T0", "T0s", planeName);
  const VertexId t0 = t0s[*s.t0];
  if (s.t1)
  {
    const std::vector<VertexId>& t1s = fabric.Switches(plane, 1);
    check("t1", *s.t1, t1s.size(), "T1", "T1s", planeName);
    for (uint16_t port = 0; port < fabric.Degree(t0); ++port)
    {
      PortPeer peer = fabric.Peer(t0, port);
      if (peer.node == t1s[*s.t1])
      {
        return peer.link;
      }
    }
    fail("t1",
         "T0 " + std::to_string(*s.t0) + " and T1 " + std::to_string(*s.t1) + " of " + planeName + " are not linked");
  }
  // Up-links are counted among the ports rather than assumed to follow the down-links, so a
  // partly filled T0 (fewer GPUs than down ports) or a GraphML fabric numbers them the same way.
  std::vector<uint32_t> up;
  for (uint16_t port = 0; port < fabric.Degree(t0); ++port)
  {
    PortPeer peer = fabric.Peer(t0, port);
    const FabricNode& far = fabric.Node(peer.node);
    if (far.role == NodeRole::Switch && far.tier > 0)
    {
      up.push_back(peer.link);
    }
  }
  check("up_port", *s.upPort, up.size(), "up-link", "up-links", "T0 " + std::to_string(*s.t0) + " of " + planeName);
  return up[*s.upPort];
}

} // namespace mrcsim
