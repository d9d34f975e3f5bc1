// Defaults match the docs: the tables under "Defaults per kind" in docs/behaviours.md list
// every rules, motion, behaviour and vehicle key of each kind with exactly the default of
// default_world_def() (as the scenario writer prints it), and the scenario files do not
// contradict the docs' statement of which behaviours are on by default.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "core/scenario.hpp"

using namespace boids;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t`");
  const auto e = s.find_last_not_of(" \t`");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// key -> value of every kind key, from the scenario writer's TOML of the defaults.
std::map<std::string, std::string> code_defaults(const std::string& prefix) {
  std::map<std::string, std::string> out;
  std::istringstream in(scenario_to_toml(default_world_def()));
  std::string line, section;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line.front() == '[') {
      section = line.substr(1, line.size() - 2);
      continue;
    }
    const auto eq = line.find(" = ");
    const std::string key = section + "." + line.substr(0, eq);
    for (const char* group : {"rules.", "motion.", "behaviour.", "vehicle."}) {
      if (key.rfind(prefix + group, 0) == 0) out[key] = line.substr(eq + 3);
    }
  }
  return out;
}

// key -> value of the table under "### <heading>" in the "## Defaults per kind" section.
std::map<std::string, std::string> doc_table(const std::string& text, const std::string& heading) {
  std::map<std::string, std::string> out;
  const auto sec = text.find("## Defaults per kind");
  REQUIRE(sec != std::string::npos);
  const auto at = text.find("### " + heading, sec);
  REQUIRE(at != std::string::npos);
  std::istringstream in(text.substr(at));
  std::string line;
  std::getline(in, line);  // the heading
  while (std::getline(in, line)) {
    if (line.rfind("###", 0) == 0 || line.rfind("## ", 0) == 0) break;
    if (line.rfind("| `", 0) != 0) continue;
    const auto a = line.find('|', 1), b = line.find('|', a + 1);
    out[trim(line.substr(1, a - 1))] = trim(line.substr(a + 1, b - a - 1));
  }
  return out;
}

bool same_value(const std::string& code, const std::string& doc) {
  char* end = nullptr;
  const double x = std::strtod(code.c_str(), &end);
  if (end && *end == '\0' && !code.empty()) {
    char* end2 = nullptr;
    const double y = std::strtod(doc.c_str(), &end2);
    return end2 && *end2 == '\0' && x == y;
  }
  return code == doc;
}

}  // namespace

TEST_CASE("the docs' per-kind default tables match default_world_def()", "[defaults][docs]") {
  const std::string text = read_file(std::string(BOIDS_SOURCE_DIR) + "/docs/behaviours.md");
  REQUIRE(!text.empty());
  const std::pair<const char*, const char*> kinds[] = {
      {"Boids", ""}, {"Predators", "predators."}, {"Leaders", "leaders."}};
  for (const auto& [heading, prefix] : kinds) {
    const auto code = code_defaults(prefix);
    const auto doc = doc_table(text, heading);
    INFO(heading);
    CHECK(code.size() > 30);
    for (const auto& [key, value] : code) {
      INFO("key " << key << " = " << value);
      REQUIRE(doc.count(key) == 1);
      CHECK(same_value(value, doc.at(key)));
    }
    CHECK(doc.size() == code.size());  // nothing documented that the code does not have
  }
}

TEST_CASE("behaviours are off by default except flee, chase and the leaders' arrive",
          "[defaults]") {
  const WorldDef d = default_world_def();
  const BehaviourDef none{};
  // The plain BehaviourDef has every weight off.
  for (double w : {none.seek, none.arrive, none.flee, none.pursue, none.evade, none.wander,
                   none.follow_leader, none.flee_predators, none.evade_predators, none.chase,
                   none.avoid, none.containment, none.formation, none.global_cohesion,
                   none.destination_alignment, none.closest_separation}) {
    CHECK(w == 0);
  }
  CHECK(d.kinds[0].behaviour.flee_predators == 1.0);
  CHECK(d.kinds[0].behaviour.chase == 0.0);
  CHECK(d.kinds[1].behaviour.chase == 1.0);
  CHECK(d.kinds[1].behaviour.flee_predators == 0.0);
  CHECK(d.kinds[2].behaviour.arrive == 1.0);
  CHECK(d.kinds[0].behaviour.arrive == 0.0);
  CHECK(d.predators == 0);
  CHECK(d.leaders == 0);
}
