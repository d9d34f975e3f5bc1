// Tiny strict parsers the bench tests use to read the harness's own output back: a CSV line
// splitter, a JSON parser (RFC 8259 subset: everything the writer can produce) and an XML
// well-formedness check that also counts elements. They throw std::runtime_error on malformed
// input.
#pragma once

#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace boids::test {

// Splits one CSV line honouring quotes.
inline std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool q = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (q && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (c == '"') {
      q = !q;
    } else if (c == ',' && !q) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

struct Json {
  enum class Type { null, boolean, number, string, array, object } type = Type::null;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<Json> arr;
  std::map<std::string, Json> obj;

  const Json& operator[](const std::string& k) const {
    auto it = obj.find(k);
    if (type != Type::object || it == obj.end()) throw std::runtime_error("no key " + k);
    return it->second;
  }
  const Json& operator[](std::size_t i) const { return arr.at(i); }
};

class JsonParser {
 public:
  explicit JsonParser(std::string_view s) : s_(s) {}
  Json parse() {
    Json v = value();
    ws();
    if (i_ != s_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(i_));
  }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t'))
      ++i_;
  }
  bool eat(char c) {
    ws();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  bool word(std::string_view w) {
    if (s_.substr(i_, w.size()) == w) {
      i_ += w.size();
      return true;
    }
    return false;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (true) {
      if (i_ >= s_.size()) fail("unterminated string");
      const char c = s_[i_++];
      if (c == '"') break;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) fail("bad escape");
      const char e = s_[i_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'u': {
          if (i_ + 4 > s_.size()) fail("bad \\u escape");
          const long cp = std::strtol(std::string(s_.substr(i_, 4)).c_str(), nullptr, 16);
          i_ += 4;
          if (cp < 0x80)
            out += char(cp);
          else
            out += '?';
          break;
        }
        default:
          fail("bad escape");
      }
    }
    return out;
  }
  Json value() {
    ws();
    Json v;
    if (i_ >= s_.size()) fail("unexpected end");
    const char c = s_[i_];
    if (c == '{') {
      ++i_;
      v.type = Json::Type::object;
      if (eat('}')) return v;
      do {
        ws();
        std::string k = string();
        expect(':');
        if (v.obj.count(k)) fail("duplicate key " + k);
        v.obj[k] = value();
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      ++i_;
      v.type = Json::Type::array;
      if (eat(']')) return v;
      do v.arr.push_back(value());
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.type = Json::Type::string;
      v.str = string();
    } else if (word("true")) {
      v.type = Json::Type::boolean;
      v.b = true;
    } else if (word("false")) {
      v.type = Json::Type::boolean;
    } else if (word("null")) {
      v.type = Json::Type::null;
    } else {
      // Number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
      const std::size_t b = i_;
      if (s_[i_] == '-') ++i_;
      if (i_ < s_.size() && s_[i_] == '0') {
        ++i_;
      } else {
        if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) fail("bad value");
        while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      }
      if (i_ < s_.size() && s_[i_] == '.') {
        ++i_;
        if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_])))
          fail("bad fraction");
        while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      }
      if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
        ++i_;
        if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
        if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_])))
          fail("bad exponent");
        while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      }
      v.type = Json::Type::number;
      v.num = std::strtod(std::string(s_.substr(b, i_ - b)).c_str(), nullptr);
    }
    return v;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

inline Json parse_json(std::string_view s) { return JsonParser(s).parse(); }

/// One XML element: name, attributes, children (text is checked for bare '<' and '&' only).
struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::vector<std::unique_ptr<XmlElement>> children;
  std::string text;

  void collect(const std::string& n, std::vector<const XmlElement*>& out) const {
    if (name == n) out.push_back(this);
    for (const auto& c : children) c->collect(n, out);
  }
  std::vector<const XmlElement*> all(const std::string& n) const {
    std::vector<const XmlElement*> out;
    collect(n, out);
    return out;
  }
};

/// Parses a well-formed XML document (prolog, one root, nested elements, attributes in
/// quotes, the five predefined entities). Throws on anything malformed.
inline std::unique_ptr<XmlElement> parse_xml(std::string_view s) {
  std::size_t i = 0;
  auto fail = [&](const std::string& what) -> void {
    throw std::runtime_error("XML: " + what + " at offset " + std::to_string(i));
  };
  auto ws = [&] {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  };
  auto check_text = [&](std::string_view t) {
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (t[k] == '<') fail("'<' in text");
      if (t[k] == '&') {
        const std::size_t semi = t.find(';', k);
        if (semi == std::string_view::npos) fail("unterminated entity");
        const std::string_view ent = t.substr(k, semi - k + 1);
        if (ent != "&lt;" && ent != "&gt;" && ent != "&amp;" && ent != "&quot;" && ent != "&apos;")
          fail("unknown entity");
      }
    }
  };
  auto name = [&] {
    const std::size_t b = i;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '-' ||
                            s[i] == '_' || s[i] == ':' || s[i] == '.'))
      ++i;
    if (i == b) fail("expected a name");
    return std::string(s.substr(b, i - b));
  };
  ws();
  if (s.substr(i, 5) == "<?xml") {
    const std::size_t e = s.find("?>", i);
    if (e == std::string_view::npos) fail("unterminated prolog");
    i = e + 2;
  }
  std::vector<XmlElement*> stack;
  std::unique_ptr<XmlElement> root;
  while (true) {
    const std::size_t lt = s.find('<', i);
    const std::string_view text = s.substr(i, (lt == std::string_view::npos ? s.size() : lt) - i);
    check_text(text);
    if (stack.empty()) {
      for (char c : text) {
        if (!std::isspace(static_cast<unsigned char>(c))) fail("text outside the root");
      }
    } else {
      stack.back()->text += std::string(text);
    }
    if (lt == std::string_view::npos) break;
    i = lt + 1;
    if (i < s.size() && s[i] == '/') {
      ++i;
      const std::string n = name();
      ws();
      if (i >= s.size() || s[i] != '>') fail("expected '>'");
      ++i;
      if (stack.empty() || stack.back()->name != n) fail("mismatched </" + n + ">");
      stack.pop_back();
      continue;
    }
    if (s.substr(i, 3) == "!--") {
      const std::size_t e = s.find("-->", i);
      if (e == std::string_view::npos) fail("unterminated comment");
      i = e + 3;
      continue;
    }
    auto el = std::make_unique<XmlElement>();
    el->name = name();
    bool self_closing = false;
    while (true) {
      ws();
      if (i >= s.size()) fail("unterminated tag");
      if (s[i] == '/') {
        if (i + 1 >= s.size() || s[i + 1] != '>') fail("expected '/>'");
        i += 2;
        self_closing = true;
        break;
      }
      if (s[i] == '>') {
        ++i;
        break;
      }
      const std::string an = name();
      ws();
      if (i >= s.size() || s[i] != '=') fail("expected '=' after attribute " + an);
      ++i;
      ws();
      if (i >= s.size() || (s[i] != '"' && s[i] != '\'')) fail("unquoted attribute");
      const char q = s[i++];
      const std::size_t e = s.find(q, i);
      if (e == std::string_view::npos) fail("unterminated attribute");
      const std::string_view av = s.substr(i, e - i);
      check_text(av);
      if (el->attrs.count(an)) fail("duplicate attribute " + an);
      el->attrs[an] = std::string(av);
      i = e + 1;
    }
    XmlElement* raw = el.get();
    if (stack.empty()) {
      if (root) fail("second root element");
      root = std::move(el);
    } else {
      stack.back()->children.push_back(std::move(el));
    }
    if (!self_closing) stack.push_back(raw);
  }
  if (!stack.empty()) fail("unclosed <" + stack.back()->name + ">");
  if (!root) fail("no root element");
  return root;
}

}  // namespace boids::test
