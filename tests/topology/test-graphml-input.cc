// Hostile GraphML input: XML nested deep enough to overflow Boost's recursive parser, attribute
// values out of range, truncated or not numbers, duplicate or undeclared node ids, a fabric with
// no GPU, directories given as files. Every error is a SpecError naming the file, the element
// and the attribute.
#include "topologies/fabric-spec.h"
#include "topologies/graphml-io.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <sstream>

using namespace mrcsim;

namespace
{

const std::string kHead = R"(<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">
<key id="role" for="node" attr.name="role" attr.type="string"/>
<key id="tier" for="node" attr.name="tier" attr.type="int"/>
<key id="plane" for="node" attr.name="plane" attr.type="int"/>
<key id="rate" for="edge" attr.name="rate_bps" attr.type="long"/>
<key id="delay" for="edge" attr.name="delay_ns" attr.type="long"/>
<key id="link" for="edge" attr.name="link" attr.type="long"/>
<graph id="G" edgedefault="undirected">
)";
const std::string kTail = "</graph></graphml>";

std::string
Gpu(const std::string& id, const std::string& extra = "")
{
  return "<node id=\"" + id + "\"><data key=\"role\">gpu</data>" + extra + "</node>\n";
}

std::string
Switch(const std::string& id, const std::string& tier, const std::string& plane)
{
  return "<node id=\"" + id + "\"><data key=\"role\">switch</data><data key=\"tier\">" + tier +
         "</data><data key=\"plane\">" + plane + "</data></node>\n";
}

std::string
Edge(const std::string& attrs, const std::string& rate = "100000000000", const std::string& delay = "1000")
{
  return "<edge " + attrs + "><data key=\"rate\">" + rate + "</data><data key=\"delay\">" + delay + "</data></edge>\n";
}

/// The message ReadFabricGraphml throws for `body` between kHead and kTail, or "".
std::string
ErrorOf(const std::string& body)
{
  std::stringstream in(kHead + body + kTail);
  try
  {
    ReadFabricGraphml(in, "mine.graphml");
  }
  catch (const SpecError& e)
  {
    return e.what();
  }
  return "";
}

/// One GPU on one switch with the given tier and plane (plane p also needs planes 0..p-1 for
/// nothing: a GPU may skip planes).
std::string
OneSwitch(const std::string& tier, const std::string& plane)
{
  return Gpu("g") + Switch("s", tier, plane) + Edge("id=\"e0\" source=\"g\" target=\"s\"");
}

} // namespace

TEST_CASE("a well-formed small GraphML fabric is read", "[graphml]")
{
  CHECK(ErrorOf(OneSwitch("0", "0")).empty());
  CHECK(ErrorOf(OneSwitch("0", "63")).empty());
  // What WriteFabricGraphml writes for a GPU: tier and plane -1.
  CHECK(ErrorOf(Gpu("g", "<data key=\"tier\">-1</data><data key=\"plane\">-1</data>") + Switch("s", "0", "0") +
                Edge("source=\"g\" target=\"s\"", "1000000000", "0"))
          .empty());
}

TEST_CASE("GraphML nested deeper than the limit is refused before Boost parses it", "[graphml]")
{
  const int levels = 100000;
  std::string deep = "<?xml version=\"1.0\"?><graphml>";
  for (int i = 0; i < levels; ++i)
    deep += "<x>";
  for (int i = 0; i < levels; ++i)
    deep += "</x>";
  deep += "</graphml>";
  std::stringstream in(deep);
  CHECK_THROWS_WITH(ReadFabricGraphml(in, "deep.graphml"),
                    Catch::Contains("deep.graphml: at byte ") && Catch::Contains("nested deeper than 64 levels"));
  // A tag the scan cannot read is refused rather than passed on uncounted.
  std::stringstream malformed("<graphml><x a=b>" + deep.substr(deep.find("<x>")));
  CHECK_THROWS_WITH(ReadFabricGraphml(malformed, "bad.graphml"),
                    Catch::StartsWith("bad.graphml: at byte 10: not readable as GraphML: malformed tag \"<x\""));
  // Markup in comments, CDATA and attribute values is not nesting.
  std::string quiet = "<!-- " + std::string(1000, '<') + " -->" + Gpu("g", "<![CDATA[" + std::string(100, '<') + "]]>");
  CHECK(ErrorOf(quiet +
                "<node id=\"s\" note=\"<<<>\"><data key=\"role\">switch</data><data key=\"tier\">0</data>"
                "<data key=\"plane\">0</data></node>" +
                Edge("source=\"g\" target=\"s\""))
          .empty());
}

TEST_CASE("GraphML plane and tier are range-checked, naming the node and the attribute", "[graphml]")
{
  // 65536 used to wrap to plane 0 (int16), 64 to write past the NIC's 64 port bits.
  for (const std::string bad : { "64", "65536", "-1", "-2", "12abc", "", "3x", "1.5", "99999999999999999999" })
  {
    INFO("plane \"" << bad << "\"");
    CHECK_THAT(ErrorOf(OneSwitch("0", bad)),
               Catch::Contains("mine.graphml: node \"s\": attribute plane: expected a whole number in [0, 63], got \"" +
                               bad + "\""));
  }
  for (const std::string bad : { "15", "-1", "32768", "x" })
  {
    INFO("tier \"" << bad << "\"");
    CHECK_THAT(ErrorOf(OneSwitch(bad, "0")),
               Catch::Contains("mine.graphml: node \"s\": attribute tier: expected a whole number in [0, 14], got \"" +
                               bad + "\""));
  }
  // A GPU has neither: anything but -1 (what the writer puts) is a mistake.
  CHECK_THAT(
    ErrorOf(Gpu("g", "<data key=\"plane\">3</data>") + Switch("s", "0", "0") + Edge("source=\"g\" target=\"s\"")),
    Catch::Contains("mine.graphml: node \"g\": attribute plane: ") && Catch::Contains("-1"));
  CHECK_THAT(ErrorOf(Gpu("g") + "<node id=\"s\"><data key=\"role\">switch</data><data key=\"plane\">0</data></node>" +
                     Edge("source=\"g\" target=\"s\"")),
             Catch::Contains("mine.graphml: node \"s\": attribute tier: ") && Catch::Contains("missing"));
  CHECK_THAT(
    ErrorOf("<node id=\"r\"><data key=\"role\">router</data></node>"),
    Catch::Contains("mine.graphml: node \"r\": attribute role: expected \"gpu\" or \"switch\", got \"router\""));
}

TEST_CASE("GraphML rate and delay are range-checked, never truncated", "[graphml]")
{
  const std::string ends = Gpu("g") + Switch("s", "0", "0");
  // 2^32 + 5 ns used to become 5 ns.
  for (const std::string bad : { "4294967301", "1000000001", "-1", "", "5ns", "1e3" })
  {
    INFO("delay_ns \"" << bad << "\"");
    CHECK_THAT(ErrorOf(ends + Edge("id=\"e0\" source=\"g\" target=\"s\"", "100000000000", bad)),
               Catch::Contains("mine.graphml: edge \"e0\": attribute delay_ns: expected a whole number in [0, "
                               "1000000000], got \"" +
                               bad + "\""));
  }
  for (const std::string bad : { "0", "-100", "999999999", "16000000000001", "9223372036854775808", "fast" })
  {
    INFO("rate_bps \"" << bad << "\"");
    CHECK_THAT(ErrorOf(ends + Edge("id=\"e0\" source=\"g\" target=\"s\"", bad)),
               Catch::Contains("mine.graphml: edge \"e0\": attribute rate_bps: expected a whole number in "
                               "[1000000000, 16000000000000], got \"" +
                               bad + "\""));
  }
  // An edge without an id is named by its place in the file and its ends.
  CHECK_THAT(ErrorOf(ends + Edge("source=\"g\" target=\"s\"", "0")),
             Catch::Contains("mine.graphml: edge #0 (\"g\" -- \"s\"): attribute rate_bps"));
  CHECK_THAT(ErrorOf(ends + "<edge id=\"e0\" source=\"g\" target=\"s\"><data key=\"rate\">1000000000</data></edge>"),
             Catch::Contains("mine.graphml: edge \"e0\": attribute delay_ns: ") && Catch::Contains("missing"));
  CHECK_THAT(ErrorOf(ends + "<edge id=\"e0\" source=\"g\" target=\"s\"><data key=\"rate\">1000000000</data>"
                            "<data key=\"delay\">0</data><data key=\"link\">-3</data></edge>"),
             Catch::Contains("mine.graphml: edge \"e0\": attribute link: expected a whole number in [0, 4294967295]"));
}

TEST_CASE("GraphML node ids are unique and edges join declared nodes", "[graphml]")
{
  // Boost merged a repeated id into one vertex, the second declaration's data overwriting the first.
  CHECK_THAT(ErrorOf(Gpu("a") + Switch("a", "0", "0") + Gpu("g") + Edge("source=\"g\" target=\"a\"")),
             Catch::Contains("mine.graphml: node \"a\" is declared twice"));
  CHECK_THAT(ErrorOf(Gpu("g") + Switch("s", "0", "0") + Edge("id=\"e7\" source=\"g\" target=\"nowhere\"")),
             Catch::Contains("mine.graphml: edge \"e7\": target \"nowhere\" is not a declared node"));
}

TEST_CASE("GraphML values are shown as valid UTF-8 of bounded length", "[graphml]")
{
  // Messages reach terminals and Python exceptions: raw bytes and 200 KB values do not belong.
  const std::string huge = ErrorOf("<node id=\"r\"><data key=\"role\">" + std::string(200000, 's') + "</data></node>");
  CHECK_THAT(huge, Catch::Contains("attribute role: expected \"gpu\" or \"switch\", got \"sss"));
  CHECK(huge.size() < 300);
  const std::string bytes = ErrorOf("<node id=\"\xff\"><data key=\"role\">r\xfe</data></node>");
  CHECK_THAT(bytes,
             Catch::Contains("node \"\xef\xbf\xbd\": attribute role: ") && Catch::Contains("got \"r\xef\xbf\xbd\""));
  CHECK(bytes.find('\xff') == std::string::npos);
  CHECK(bytes.find('\xfe') == std::string::npos);
  // A NUL byte is never XML: /dev/zero is refused at once, not read to the size limit.
  std::stringstream nul(kHead + std::string("<node id=\"a\0\"/>", 15) + kTail);
  CHECK_THROWS_WITH(ReadFabricGraphml(nul, "nul.graphml"),
                    Catch::Contains("nul.graphml: at byte ") && Catch::Contains("a NUL byte; expected a GraphML file"));
}

TEST_CASE("a GraphML fabric without a GPU is refused", "[graphml]")
{
  CHECK_THAT(ErrorOf(Switch("s", "0", "0")), Catch::Contains("mine.graphml: ") && Catch::Contains("no GPU"));
  CHECK_THAT(ErrorOf(""), Catch::Contains("mine.graphml: ") && Catch::Contains("no GPU"));
}

TEST_CASE("a directory is refused as a GraphML file", "[graphml]")
{
  const std::string dir = std::filesystem::temp_directory_path().string();
  CHECK_THROWS_WITH(ReadFabricGraphml(dir), dir + ": is a directory, expected a GraphML file");
  FabricSpec spec;
  spec.kind = "graphml";
  spec.graphmlFile = dir;
  CHECK_THROWS_WITH(BuildFabric(spec), dir + ": is a directory, expected a GraphML file");
}
