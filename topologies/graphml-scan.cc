#include "topologies/graphml-scan.h"

#include "topologies/json-reader.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

namespace mrcsim
{

namespace
{

/// An attribute value with XML's predefined and ASCII character references resolved, as the
/// parser Boost uses resolves them (ids are only used in messages, so others stay as written).
std::string
Unescaped(const std::string& raw)
{
  static const std::map<std::string, char> named{
    { "lt", '<' }, { "gt", '>' }, { "amp", '&' }, { "quot", '"' }, { "apos", '\'' }
  };
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i)
  {
    const size_t semi = raw[i] == '&' ? raw.find(';', i) : std::string::npos;
    if (semi != std::string::npos && semi - i <= 8)
    {
      const std::string name = raw.substr(i + 1, semi - i - 1);
      if (auto it = named.find(name); it != named.end())
      {
        out += it->second;
        i = semi;
        continue;
      }
      if (name.size() > 1 && name[0] == '#')
      {
        const bool hex = name[1] == 'x';
        const std::string digits = name.substr(hex ? 2 : 1);
        char* end = nullptr;
        const unsigned long code = std::strtoul(digits.c_str(), &end, hex ? 16 : 10);
        if (!digits.empty() && *end == '\0' && code > 0 && code < 128)
        {
          out += static_cast<char>(code);
          i = semi;
          continue;
        }
      }
    }
    out += raw[i];
  }
  return out;
}

/// A start tag: its name, the attributes asked for, whether it closes itself and where it ends.
struct StartTag
{
  std::string name;
  std::map<std::string, std::string> attributes;
  bool selfClosing = false;
  size_t end = std::string::npos; ///< index just past '>'; npos if the tag never ends
};

/// Reads the start tag at `text[at]` == '<'. Attribute values are quoted and may hold '>'; a
/// tag that is not well-formed XML has `end` npos.
StartTag
ReadStartTag(const std::string& text, size_t at)
{
  StartTag tag;
  size_t i = at + 1;
  auto isSpace = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (i < text.size() && !isSpace(text[i]) && text[i] != '>' && text[i] != '/')
  {
    tag.name += text[i++];
  }
  while (i < text.size())
  {
    if (isSpace(text[i]))
    {
      ++i;
    }
    else if (text[i] == '>')
    {
      tag.end = i + 1;
      return tag;
    }
    else if (text[i] == '/' && i + 1 < text.size() && text[i + 1] == '>')
    {
      tag.selfClosing = true;
      tag.end = i + 2;
      return tag;
    }
    else
    {
      std::string name;
      while (i < text.size() && !isSpace(text[i]) && text[i] != '=' && text[i] != '>' && text[i] != '/')
      {
        name += text[i++];
      }
      while (i < text.size() && isSpace(text[i]))
      {
        ++i;
      }
      if (name.empty() || i >= text.size() || text[i] != '=')
      {
        return tag;
      }
      ++i;
      while (i < text.size() && isSpace(text[i]))
      {
        ++i;
      }
      if (i >= text.size() || (text[i] != '"' && text[i] != '\''))
      {
        return tag;
      }
      const size_t close = text.find(text[i], i + 1);
      if (close == std::string::npos)
      {
        return tag;
      }
      tag.attributes[name] = Unescaped(text.substr(i + 1, close - i - 1));
      i = close + 1;
    }
  }
  return tag;
}

/// Index just past a declaration such as <!DOCTYPE ...>, whose internal subset in [...] and
/// quoted literals may hold '>'; npos if it never ends.
size_t
SkipDeclaration(const std::string& text, size_t at)
{
  int brackets = 0;
  for (size_t i = at + 2; i < text.size(); ++i)
  {
    const char c = text[i];
    if (c == '"' || c == '\'')
    {
      i = text.find(c, i + 1);
      if (i == std::string::npos)
      {
        return i;
      }
    }
    else if (c == '[')
    {
      ++brackets;
    }
    else if (c == ']')
    {
      --brackets;
    }
    else if (c == '>' && brackets <= 0)
    {
      return i + 1;
    }
  }
  return std::string::npos;
}

/// Index just past `close` found from `from`; npos if absent.
size_t
Past(const std::string& text, size_t from, const std::string& close)
{
  const size_t at = text.find(close, from);
  return at == std::string::npos ? at : at + close.size();
}

} // namespace

std::string
Quoted(const std::string& value)
{
  // Values end up in terminals and in Python exceptions, which want valid UTF-8 of sane length.
  const bool cut = value.size() > 60;
  return nlohmann::json(cut ? value.substr(0, 57) : value)
           .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
         (cut ? "..." : "");
}

std::string
GraphmlEdgeName(const GraphmlOutline::Edge& edge, size_t index)
{
  return edge.id.empty()
           ? "edge #" + std::to_string(index) + " (" + Quoted(edge.source) + " -- " + Quoted(edge.target) + ")"
           : "edge " + Quoted(edge.id);
}

GraphmlOutline
ScanGraphml(const std::string& text, const std::string& origin)
{
  GraphmlOutline outline;
  std::map<std::string, size_t> declaredAt; // node id -> byte of its declaration
  enum class FirstGraph
  {
    Ahead,
    Inside,
    Done
  } firstGraph = FirstGraph::Ahead;
  int depth = 0;
  for (size_t i = text.find('<'); i != std::string::npos; i = i == std::string::npos ? i : text.find('<', i))
  {
    if (text.compare(i, 4, "<!--") == 0)
    {
      i = Past(text, i + 4, "-->");
    }
    else if (text.compare(i, 9, "<![CDATA[") == 0)
    {
      i = Past(text, i + 9, "]]>");
    }
    else if (text.compare(i, 2, "<?") == 0)
    {
      i = Past(text, i + 2, "?>");
    }
    else if (text.compare(i, 2, "<!") == 0)
    {
      i = SkipDeclaration(text, i);
    }
    else if (text.compare(i, 2, "</") == 0)
    {
      if (depth == 2 && firstGraph == FirstGraph::Inside)
      {
        firstGraph = FirstGraph::Done;
      }
      depth = std::max(0, depth - 1);
      i = Past(text, i + 2, ">");
    }
    else
    {
      StartTag tag = ReadStartTag(text, i);
      if (tag.end == std::string::npos)
      {
        // Never hand Boost markup whose depth was not counted.
        throw SpecError(origin + ": at byte " + std::to_string(i + 1) + ": not readable as GraphML: malformed tag " +
                        Quoted("<" + tag.name));
      }
      const int level = depth + 1; // the element's own depth, the root being 1
      if (!tag.selfClosing && ++depth > kMaxXmlDepth)
      {
        throw SpecError(origin + ": at byte " + std::to_string(i + 1) + ": XML elements nested deeper than " +
                        std::to_string(kMaxXmlDepth) + " levels; expected at most " + std::to_string(kMaxXmlDepth));
      }
      if (level == 2 && tag.name == "graph" && firstGraph == FirstGraph::Ahead)
      {
        firstGraph = tag.selfClosing ? FirstGraph::Done : FirstGraph::Inside;
      }
      else if (level == 3 && firstGraph == FirstGraph::Inside)
      {
        if (tag.name == "graph")
        {
          throw SpecError(origin + ": at byte " + std::to_string(i + 1) +
                          ": a <graph> directly inside <graph> is not GraphML; nest graphs in a <node> (they are "
                          "ignored) or flatten them");
        }
        if (tag.name == "node")
        {
          if (!tag.attributes.count("id"))
          {
            throw SpecError(origin + ": at byte " + std::to_string(i + 1) + ": a <node> without an id");
          }
          const std::string& id = tag.attributes["id"];
          if (!declaredAt.emplace(id, i + 1).second)
          {
            throw SpecError(origin + ": node " + Quoted(id) + " is declared twice (bytes " +
                            std::to_string(declaredAt[id]) + " and " + std::to_string(i + 1) + "); ids must be unique");
          }
          outline.nodes.push_back(id);
        }
        else if (tag.name == "edge")
        {
          outline.edges.push_back({ tag.attributes["id"], tag.attributes["source"], tag.attributes["target"] });
        }
      }
      i = tag.end;
    }
  }
  for (size_t e = 0; e < outline.edges.size(); ++e)
  {
    const GraphmlOutline::Edge& edge = outline.edges[e];
    for (const auto& [end, id] : { std::pair{ "source", &edge.source }, std::pair{ "target", &edge.target } })
    {
      if (!declaredAt.count(*id))
      {
        throw SpecError(origin + ": " + GraphmlEdgeName(edge, e) + ": " + end + " " + Quoted(*id) +
                        " is not a declared node");
      }
    }
  }
  return outline;
}

} // namespace mrcsim
