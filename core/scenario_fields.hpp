// The typed setters of the scenario schema (core/scenario.cpp): each Field type-checks one
// TOML node for its "section.key" and stores it, or refuses it with one line naming where the
// value came from and the key; show() gives the current value back as a TOML literal.
#pragma once

#include <toml++/toml.h>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "boids/world_def.hpp"

namespace boids::scenario_fields {

using Setter = std::function<void(const toml::node&, const std::string& where)>;
using Shower = std::function<std::string()>;  // the current value as a TOML literal

struct Field {
  std::string key;  // "section.key"
  Setter set;
  Shower show;
};

/// A double as a TOML float literal (always with a '.' or an exponent).
std::string toml_double(double v);
/// Throws the one-line error "where: key: msg".
[[noreturn]] void fail(const std::string& where, const std::string& key, const std::string& msg);
/// "a string", "an integer", ... for messages.
std::string type_name(const toml::node& n);

Field number(std::string key, double* target);
Field seed_field(std::string key, std::uint64_t* target);
Field boolean(std::string key, bool* target);
Field vector_field(std::string key, std::vector<double>* target);
Field spheres_field(std::string key, std::vector<SphereObstacle>* target);
Field boxes_field(std::string key, std::vector<BoxObstacle>* target);

template <class Int>
Field integer(std::string key, Int* target, std::int64_t lo, std::int64_t hi) {
  return {key,
          [key, target, lo, hi](const toml::node& n, const std::string& where) {
            auto i = n.value_exact<std::int64_t>();
            if (!i) fail(where, key, "expected an integer, got " + type_name(n));
            if (*i < lo || *i > hi) {
              fail(where, key,
                   "must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                       ", got " + std::to_string(*i));
            }
            *target = static_cast<Int>(*i);
          },
          [target] { return std::to_string(*target); }};
}

template <class Enum>
Field choice(std::string key, Enum* target, std::vector<std::pair<std::string, Enum>> options) {
  return {key,
          [key, target, options](const toml::node& n, const std::string& where) {
            auto s = n.value_exact<std::string>();
            std::string list;
            for (const auto& [name, value] : options) {
              if (s && *s == name) {
                *target = value;
                return;
              }
              list += (list.empty() ? "\"" : ", \"") + name + "\"";
            }
            if (!s) fail(where, key, "expected one of " + list + ", got " + type_name(n));
            fail(where, key, "expected one of " + list + ", got \"" + *s + "\"");
          },
          [target, options] {
            for (const auto& [name, value] : options) {
              if (*target == value) return "\"" + name + "\"";
            }
            return std::string("\"?\"");
          }};
}

}  // namespace boids::scenario_fields
