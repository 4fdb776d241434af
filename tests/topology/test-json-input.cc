// Hostile JSON input: nesting deep enough to overflow a recursive parser, duplicate keys,
// numbers beyond a double, directories given as files. Every error is a SpecError naming the
// file and where in it.
#include "topologies/fabric-spec.h"
#include "topologies/json-reader.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

using namespace mrcsim;

namespace
{

/// A file of `text` in a fresh temporary directory, removed with the object.
class TempFile
{
public:
  TempFile(const std::string& name, const std::string& text)
    : m_dir(std::filesystem::temp_directory_path() /
            ("mrcsim-test-json-" + std::to_string(::getpid()) + "-" + std::to_string(s_count++)))
  {
    std::filesystem::create_directories(m_dir);
    m_path = (m_dir / name).string();
    std::ofstream(m_path, std::ios::binary) << text;
  }
  ~TempFile() { std::filesystem::remove_all(m_dir); }

  const std::string& Path() const { return m_path; }
  std::string Dir() const { return m_dir.string(); }

private:
  static inline int s_count = 0;
  std::filesystem::path m_dir;
  std::string m_path;
};

/// The message ReadJsonFile throws for `text`, or "" if it throws nothing.
std::string
ErrorOf(const std::string& text)
{
  TempFile f("in.json", text);
  try
  {
    ReadJsonFile(f.Path());
  }
  catch (const SpecError& e)
  {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("JSON nested deeper than the limit is refused before it is parsed", "[json]")
{
  // 100,000 levels (200 KB): enough to overflow any recursive parse, copy, dump or destructor.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  TempFile f("deep.json", deep);
  CHECK_THROWS_AS(ReadJsonFile(f.Path()), SpecError);
  const std::string message = ErrorOf(deep);
  CHECK_THAT(message,
             Catch::Contains("in.json: at byte 65: ") && Catch::Contains("nested deeper than 64 levels") &&
               Catch::Contains("at most 64"));

  // Objects count as levels too, and the limit itself is fine.
  std::string objects;
  for (int i = 0; i < 65; ++i)
    objects += "{\"k\": ";
  objects += "1" + std::string(65, '}');
  CHECK_THAT(ErrorOf(objects), Catch::Contains("nested deeper than 64 levels"));
  CHECK(ErrorOf(std::string(64, '[') + std::string(64, ']')).empty());
  // Brackets inside strings (escaped quotes too) are text, not nesting.
  CHECK(ErrorOf("[\"\\\"" + std::string(1000, '[') + "\"]").empty());
}

TEST_CASE("duplicate JSON keys are refused with the object's path and the key", "[json]")
{
  CHECK_THAT(ErrorOf(R"({"a": 1, "a": 2})"), Catch::Contains("in.json: at /: duplicate key \"a\""));
  CHECK_THAT(ErrorOf(R"({"x": [{"k": 1}, {"k": 1, "j": {"q": 0, "q": 0}}]})"),
             Catch::Contains("in.json: at /x/1/j: duplicate key \"q\""));
  // The same key in different objects is fine.
  CHECK(ErrorOf(R"({"a": {"k": 1}, "b": {"k": 1}, "k": [{"k": 2}]})").empty());
}

TEST_CASE("a number beyond a double names the file, the path and the byte", "[json]")
{
  const std::string message = ErrorOf(R"({"a": [1, 1e400]})");
  CHECK_THAT(message,
             Catch::Contains("in.json: at /a/1 (byte 15): ") && Catch::Contains("1e400") &&
               Catch::Contains("out of range"));
  CHECK_THAT(ErrorOf("-" + std::string(400, '9')), Catch::Contains("in.json: at / (byte 401)"));
}

TEST_CASE("syntax errors keep naming the file and the byte", "[json]")
{
  CHECK_THAT(ErrorOf(R"({"a": 1,})"), Catch::Contains("in.json: not valid JSON (byte 9)"));
  CHECK_THAT(ErrorOf(""), Catch::Contains("in.json: not valid JSON (byte 1)"));
}

TEST_CASE("an empty key is named visibly", "[json]")
{
  const nlohmann::json doc = ParseJsonText(R"({"a": {"": 1}})", "e.json");
  JsonReader r(doc, "e.json", "");
  JsonReader a = r.Object("a");
  CHECK_THROWS_WITH(a.Finish(), Catch::StartsWith("e.json: at /a/\"\": unknown key"));
}

TEST_CASE("a NUL byte is refused as soon as it is read", "[json]")
{
  // Never valid in JSON; it stops /dev/zero at its first chunk rather than at the size limit.
  CHECK_THAT(ErrorOf(std::string("{\"a\": \"\0\"}", 10)),
             Catch::Contains("in.json: at byte 8: a NUL byte; expected a JSON file"));
}

TEST_CASE("a directory or a missing file is refused as a JSON file", "[json]")
{
  TempFile f("x.json", "{}");
  CHECK_THROWS_WITH(ReadJsonFile(f.Dir()), f.Dir() + ": is a directory, expected a JSON file");
  CHECK_THROWS_WITH(ReadFabricSpecFile(f.Dir()), f.Dir() + ": is a directory, expected a JSON file");
  CHECK_THROWS_WITH(ReadJsonFile(f.Dir() + "/none.json"), Catch::Contains("none.json: cannot open file"));
}

TEST_CASE("ParseJsonText applies the same checks to text from anywhere, naming its origin", "[json]")
{
  CHECK(ParseJsonText(R"({"a": [1, 2.5, "x", null, true]})", "--set a") ==
        nlohmann::json{ { "a", { 1, 2.5, "x", nullptr, true } } });
  CHECK(ParseJsonText("18446744073709551615", "x") == nlohmann::json(18446744073709551615ull));
  CHECK_THROWS_WITH(ParseJsonText(std::string(65, '['), "--set a"),
                    Catch::StartsWith("--set a: at byte 65: ") && Catch::Contains("nested deeper"));
  CHECK_THROWS_WITH(ParseJsonText(R"({"a": 1, "a": 1})", "--set a"), Catch::StartsWith("--set a: at /: duplicate key"));
  CHECK_THROWS_WITH(ParseJsonText("1e400", "--set a"), Catch::StartsWith("--set a: at / (byte 5): number 1e400"));
  // Only text that is not JSON at all is a JsonSyntaxError: a caller may take it as a string.
  CHECK_THROWS_AS(ParseJsonText("1s", "--set a"), JsonSyntaxError);
  CHECK_THROWS_AS(ParseJsonText("[1, 2", "--set a"), JsonSyntaxError);
  for (const std::string& refused : { std::string(65, '['), std::string(R"({"a": 1, "a": 1})"), std::string("1e400") })
  {
    try
    {
      ParseJsonText(refused, "--set a");
      FAIL("accepted " << refused);
    }
    catch (const JsonSyntaxError& e)
    {
      FAIL("a syntax error for " << refused << ": " << e.what());
    }
    catch (const SpecError&)
    {
    }
  }
}

TEST_CASE("a value with invalid UTF-8 put in a document by code is shown, not thrown over", "[json]")
{
  // E.g. a --set value taken as a string: the parser never saw it.
  const nlohmann::json doc{ { "n", std::string("\xff\xfe") } };
  JsonReader r(doc, "<set>", "");
  CHECK_THROWS_AS(r.Int("n", 0, 1), SpecError);
}
