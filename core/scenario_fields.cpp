// The typed setters of the scenario schema (core/scenario_fields.hpp).
#include "core/scenario_fields.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>

#include "boids/world.hpp"
#include "core/files.hpp"

namespace boids::scenario_fields {

std::string toml_double(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  std::string t = os.str();
  if (t.find_first_of(".eEn") == std::string::npos) t += ".0";  // keep it a TOML float
  return t;
}

[[noreturn]] void fail(const std::string& where, const std::string& key, const std::string& msg) {
  throw Error(where + ": " + escape_control(key) + ": " + escape_control(msg));
}

std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    default:
      return "a date/time";
  }
}

Field number(std::string key, double* target) {
  return {key,
          [key, target](const toml::node& n, const std::string& where) {
            double v;
            if (auto i = n.value_exact<std::int64_t>())
              v = double(*i);
            else if (auto f = n.value_exact<double>())
              v = *f;
            else
              fail(where, key, "expected a number, got " + type_name(n));
            if (!std::isfinite(v)) fail(where, key, "must be a finite number");
            *target = v;
          },
          [target] { return toml_double(*target); }};
}

// boids.seed: any u64. TOML integers stop at 2^63 - 1, so larger seeds are written (and may be
// given) as a decimal string: seed = "18446744073709551615".
Field seed_field(std::string key, std::uint64_t* target) {
  return {key,
          [key, target](const toml::node& n, const std::string& where) {
            const std::string range = "must be an integer between 0 and 18446744073709551615";
            if (auto i = n.value_exact<std::int64_t>()) {
              if (*i < 0) fail(where, key, range + ", got " + std::to_string(*i));
              *target = std::uint64_t(*i);
              return;
            }
            auto s = n.value_exact<std::string>();
            if (!s) fail(where, key, range + ", got " + type_name(n));
            std::uint64_t v = 0;
            const char* end = s->data() + s->size();
            const auto [ptr, ec] = std::from_chars(s->data(), end, v);
            if (s->empty() || ec != std::errc() || ptr != end || !std::isdigit((*s)[0]))
              fail(where, key, range + " (a string of digits above 2^63 - 1), got \"" + *s + "\"");
            *target = v;
          },
          [target] {
            const std::string t = std::to_string(*target);
            return *target > std::uint64_t(std::numeric_limits<std::int64_t>::max())
                       ? "\"" + t + "\""
                       : t;
          }};
}

Field boolean(std::string key, bool* target) {
  return {key,
          [key, target](const toml::node& n, const std::string& where) {
            auto b = n.value_exact<bool>();
            if (!b) fail(where, key, "expected true or false, got " + type_name(n));
            *target = *b;
          },
          [target] { return std::string(*target ? "true" : "false"); }};
}

namespace {

// A list of numbers: `[1.0, 2.0, 3.0]` (checked against world.dims by check_def).
std::vector<double> number_list(const toml::node& n, const std::string& where,
                                const std::string& key) {
  const toml::array* a = n.as_array();
  if (!a) fail(where, key, "expected an array of numbers such as [1.0, 2.0], got " + type_name(n));
  std::vector<double> out;
  for (std::size_t i = 0; i < a->size(); ++i) {
    const toml::node& e = *a->get(i);
    double v;
    if (auto iv = e.value_exact<std::int64_t>())
      v = double(*iv);
    else if (auto f = e.value_exact<double>())
      v = *f;
    else
      fail(where, key,
           "element " + std::to_string(i + 1) + ": expected a number, got " + type_name(e));
    if (!std::isfinite(v))
      fail(where, key, "element " + std::to_string(i + 1) + ": must be finite");
    out.push_back(v);
  }
  return out;
}

std::string show_list(const std::vector<double>& v) {
  std::string t = "[";
  for (std::size_t i = 0; i < v.size(); ++i) t += (i ? ", " : "") + toml_double(v[i]);
  return t + "]";
}

// An array of inline tables, each with exactly the given keys, e.g.
// spheres = [{center = [1, 2, 3], radius = 4}]. `apply(i, name, node, where)` stores a key.
using TableItem =
    std::function<void(std::size_t, const std::string&, const toml::node&, const std::string&)>;
void table_list(const toml::node& n, const std::string& where, const std::string& key,
                const std::vector<std::string>& names, const TableItem& apply) {
  const toml::array* a = n.as_array();
  if (!a) fail(where, key, "expected an array of tables, got " + type_name(n));
  for (std::size_t i = 0; i < a->size(); ++i) {
    const toml::table* t = a->get(i)->as_table();
    const std::string item = key + "[" + std::to_string(i + 1) + "]";
    if (!t) fail(where, item, "expected a table such as {" + names[0] + " = ...}");
    for (const auto& name : names) {
      if (!t->get(name)) fail(where, item, "missing key " + name);
    }
    for (auto&& [k, v] : *t) {
      const std::string kn(k.str());
      if (std::find(names.begin(), names.end(), kn) == names.end())
        fail(where, item, "unknown key " + kn + " (expected " + names[0] + ", " + names[1] + ")");
      apply(i, kn, v, where);
    }
  }
}

}  // namespace

Field vector_field(std::string key, std::vector<double>* target) {
  return {key,
          [key, target](const toml::node& n, const std::string& where) {
            *target = number_list(n, where, key);
          },
          [target] { return show_list(*target); }};
}

Field spheres_field(std::string key, std::vector<SphereObstacle>* target) {
  return {key,
          [key, target](const toml::node& n, const std::string& where) {
            std::vector<SphereObstacle> out(n.is_array() ? n.as_array()->size() : 0);
            table_list(n, where, key, {"center", "radius"},
                       [&](std::size_t i, const std::string& k, const toml::node& v,
                           const std::string& w) {
                         const std::string item = key + "[" + std::to_string(i + 1) + "]." + k;
                         if (k == "center") {
                           out[i].center = number_list(v, w, item);
                         } else {
                           auto iv = v.value_exact<std::int64_t>();
                           auto fv = v.value_exact<double>();
                           if (!iv && !fv) fail(w, item, "expected a number, got " + type_name(v));
                           out[i].radius = iv ? double(*iv) : *fv;
                         }
                       });
            *target = std::move(out);
          },
          [target] {
            std::string t = "[";
            for (std::size_t i = 0; i < target->size(); ++i) {
              t += (i ? ", " : "") + std::string("{center = ") + show_list((*target)[i].center) +
                   ", radius = " + toml_double((*target)[i].radius) + "}";
            }
            return t + "]";
          }};
}

Field boxes_field(std::string key, std::vector<BoxObstacle>* target) {
  return {key,
          [key, target](const toml::node& n, const std::string& where) {
            std::vector<BoxObstacle> out(n.is_array() ? n.as_array()->size() : 0);
            table_list(n, where, key, {"lo", "hi"},
                       [&](std::size_t i, const std::string& k, const toml::node& v,
                           const std::string& w) {
                         const std::string item = key + "[" + std::to_string(i + 1) + "]." + k;
                         (k == "lo" ? out[i].lo : out[i].hi) = number_list(v, w, item);
                       });
            *target = std::move(out);
          },
          [target] {
            std::string t = "[";
            for (std::size_t i = 0; i < target->size(); ++i) {
              t += (i ? ", " : "") + std::string("{lo = ") + show_list((*target)[i].lo) +
                   ", hi = " + show_list((*target)[i].hi) + "}";
            }
            return t + "]";
          }};
}

}  // namespace boids::scenario_fields
