// `mrcsim attributes` lists every attribute of every registered ns-3 type, and what it shows a
// scenario may set is what ns-3 itself takes as a default: each listed default, given back as
// text, is accepted by Config::SetDefaultFailSafe (then restored).
#include "sim/scenario/attribute-check.h"
#include "sim/cli/attribute-list.h"

#include "ns3/config.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <catch2/catch.hpp>

using namespace mrcsim;

TEST_CASE("attributes: every registered attribute is listed, its settable defaults are ns-3's", "[attributes]")
{
  std::size_t registered = 0;
  for (uint16_t i = 0; i < ns3::TypeId::GetRegisteredN(); ++i)
  {
    registered += ns3::TypeId::GetRegistered(i).GetAttributeN();
  }
  const std::vector<AttributeEntry> all = ListAttributes("");
  CHECK(all.size() == registered);
  std::size_t settable = 0;
  for (const AttributeEntry& e : all)
  {
    INFO(e.name << " = \"" << e.defaultValue << "\"");
    if (!e.notSettable.empty())
    {
      continue;
    }
    ++settable;
    CHECK_FALSE(CheckAttributeDefault(e.name, e.defaultValue).has_value());
    CHECK(ns3::Config::SetDefaultFailSafe(e.name, ns3::StringValue(e.defaultValue)));
  }
  CHECK(settable > 100);
}

TEST_CASE("attributes: the filter, kinds, ranges and what a scenario may not set", "[attributes]")
{
  const std::vector<AttributeEntry> ecn = ListAttributes("PortQueueConfig::Ecn");
  REQUIRE(ecn.size() >= 5);
  for (const AttributeEntry& e : ecn)
  {
    CHECK(e.name.find("PortQueueConfig::Ecn") != std::string::npos);
  }
  const std::vector<AttributeEntry> point = ListAttributes("ns3::PortQueueConfig::EcnMarkPoint");
  REQUIRE(point.size() == 1);
  CHECK(point[0].defaultValue == "Enqueue");
  CHECK(point[0].accepts.find("Dequeue") != std::string::npos);
  CHECK(point[0].notSettable.empty());
  const std::vector<AttributeEntry> g = ListAttributes("ns3::DcqcnRateControl::G");
  REQUIRE(g.size() == 1);
  CHECK(g[0].kind == "number");
  CHECK(g[0].help.find("Paper 1/256") != std::string::npos);
  const std::vector<AttributeEntry> delay = ListAttributes("ns3::FabricChannel::Delay");
  REQUIRE(delay.size() == 1);
  CHECK(delay[0].notSettable.find("topology") != std::string::npos);
  CHECK(ListAttributes("no such attribute anywhere").empty());
}
