// The Dear ImGui control panel: readouts, run controls, every rule and motion parameter as a
// live slider, engine and count, behaviour toggles, view options and the debug read-out.
#include <algorithm>
#include <cmath>
#include <thread>

#include "imgui.h"
#include "viewer/app.hpp"
#include "viewer/behaviours.hpp"

namespace boids::view {

namespace {

const char* kKindNames[kKindCount] = {"boids", "predators", "leaders"};

bool slider(const char* label, double& v, double lo, double hi, const char* fmt = "%.3g") {
  float f = float(v);
  if (ImGui::SliderFloat(label, &f, float(lo), float(hi), fmt)) {
    v = f;
    return true;
  }
  return false;
}

// Rule and motion sliders of kind k; returns whether `d` changed.
bool kind_controls(WorldDef& d, int k) {
  RuleDef& r = d.kinds[k].rules;
  MotionDef& m = d.kinds[k].motion;
  bool ch = false;
  const double rmax = d.boundary == Boundary::wrap ? d.size / 2 * 0.999 : d.size;
  ch |= slider("radius", r.radius, 0.1, std::max(rmax, 0.2));
  ch |= slider("separation radius", r.separation_radius, 0.0, r.radius);
  ch |= slider("view angle (deg)", r.view_angle, 1.0, 360.0, "%.0f");
  ch |= slider("separation", r.separation, 0.0, 10.0);
  ch |= slider("alignment", r.alignment, 0.0, 5.0);
  ch |= slider("cohesion", r.cohesion, 0.0, 5.0);
  ch |= slider("max speed", m.max_speed, 0.05, 20.0);
  ch |= slider("min speed", m.min_speed, 0.0, m.max_speed);
  ch |= slider("max force", m.max_force, 0.0, 20.0);
  return ch;
}

std::string human(double v) {
  char buf[32];
  if (v >= 1e9)
    std::snprintf(buf, sizeof buf, "%.2f G", v / 1e9);
  else if (v >= 1e6)
    std::snprintf(buf, sizeof buf, "%.2f M", v / 1e6);
  else if (v >= 1e3)
    std::snprintf(buf, sizeof buf, "%.1f k", v / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

}  // namespace

void draw_debug_legend(App& app) {
  const DebugInfo* dbg = app.frame && app.frame->debug.index >= 0 ? &app.frame->debug : nullptr;
  if (!dbg) return;
  int w, h;
  glfwGetWindowSize(app.window, &w, &h);
  ImGui::SetNextWindowPos(ImVec2(float(w) - 8, float(h) - 8), ImGuiCond_Always, ImVec2(1, 1));
  ImGui::SetNextWindowBgAlpha(0.75f);
  ImGui::Begin("debug", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav);
  ImGui::Text("boid %u: %zu neighbours (yellow)", dbg->id, dbg->neighbours.size());
  ImGui::Text("radius %.2f (white circle), separation %.2f (red)", dbg->radius,
              dbg->separation_radius);
  auto row = [](const char* name, const float* v, ImVec4 col) {
    ImGui::TextColored(col, "%-22s", name);
    ImGui::SameLine();
    ImGui::Text("%7.3f u/s^2", std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
  };
  for (const DebugTerm& t : dbg->terms)
    row(t.name.c_str(), t.v, ImVec4(t.rgb[0], t.rgb[1], t.rgb[2], 1));
  row("total", dbg->total, ImVec4(1, 1, 1, 1));
  row("applied (after limits)", dbg->applied, ImVec4(0.6f, 0.6f, 0.6f, 1));
  ImGui::TextDisabled("arrows: %.2f u per u/s^2; blue-grey: velocity", app.view.arrow_scale);
  ImGui::End();
}

void draw_panel(App& app) {
  const SimStats st = app.sim->stats();
  int w, h;
  glfwGetWindowSize(app.window, &w, &h);
  ImGui::SetNextWindowPos(ImVec2(8, 8), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(370, float(std::max(h - 16, 200))), ImGuiCond_FirstUseEver);
  ImGui::Begin("boids-view");
  ImGui::PushItemWidth(170);

  // Readouts say "measuring" until there is a measurement, never a made-up 0.
  if (app.frames_drawn == 0)
    ImGui::Text("UI: measuring the frame time ...");
  else
    ImGui::Text("UI %.1f ms/frame (%.1f fps)", app.frame_ms, app.fps);
  if (app.sim->replaying()) {
    ImGui::Text("replay: frame %zu of %zu", st.replay_pos + 1, st.replay_frames);
  } else if (!st.stepped) {
    ImGui::Text(app.sim->paused() ? "simulation paused (no step timed yet)"
                                  : "simulation: timing the first step ...");
  } else {
    ImGui::Text("step %.1f ms, %.2f steps/s%s", st.step_ms, st.steps_per_s,
                app.sim->paused() ? " (paused)" : "");
    ImGui::Text("%s boid-steps/s", human(st.boid_steps_per_s).c_str());
  }
  ImGui::Text("%zu agents, %dD, step %llu, %s", st.count, app.edit.dims,
              (unsigned long long)st.steps, st.kernel.c_str());
  if (app.frame && app.glyph(app.frame->count, h) == Glyph::point && !app.splats.complete()) {
    const double pct =
        100.0 * double(app.splats.drawn()) / double(std::max<std::size_t>(app.frame->count, 1));
    if (app.splats.holding())
      ImGui::Text("showing step %llu, drawing step %llu: %.0f%% (%s boids a frame)",
                  (unsigned long long)app.splats.shown_step(), (unsigned long long)app.frame->step,
                  pct, human(double(app.splat_budget)).c_str());
    else
      ImGui::Text("drawing the flock: %.0f%% (%s boids a frame)", pct,
                  human(double(app.splat_budget)).c_str());
  }
  ImGui::TextDisabled("GL: %s", app.renderer.renderer_name().c_str());
  {
    // Always one line (wrapped when longer), so the controls below do not jump.
    const ImVec4 col = app.message_is_error ? ImVec4(1, 0.4f, 0.35f, 1) : ImVec4(0.6f, 1, 0.6f, 1);
    ImGui::PushStyleColor(ImGuiCol_Text, col);
    ImGui::TextWrapped("%s", app.message.empty() ? " " : app.message.c_str());
    ImGui::PopStyleColor();
  }
  if (!st.message.empty() && st.message_is_error) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.4f, 0.35f, 1));
    ImGui::TextWrapped("simulation: %s", st.message.c_str());
    ImGui::PopStyleColor();
  }

  WorldDef d = app.edit;
  bool changed = false;

  if (ImGui::CollapsingHeader("Simulation", ImGuiTreeNodeFlags_DefaultOpen)) {
    bool paused = app.sim->paused();
    if (ImGui::Checkbox("paused (Space)", &paused)) app.sim->set_paused(paused);
    ImGui::SameLine();
    if (ImGui::Button("step (N)")) app.sim->request_step();
    if (ImGui::Button("reset (R)")) app.sim->request_reset();
    ImGui::SameLine();
    if (ImGui::Button("re-seed (Shift+R)")) {
      d.seed = d.seed * 6364136223846793005ull + 1442695040888963407ull;
      d.seed >>= 1;
      app.edit.seed = d.seed;
      app.sim->request_reseed(d.seed);
    }
    // On its own line and wrapped: a 20-digit seed stays inside the panel.
    ImGui::TextWrapped("seed %llu", (unsigned long long)d.seed);
    if (ImGui::SliderFloat("steps/s (0 = max)", &app.view.target_rate, 0.0f, 240.0f, "%.0f"))
      app.sim->set_target_rate(app.view.target_rate);
    changed |= slider("dt (s)", d.dt, 0.005, 0.5);
  }

  if (ImGui::CollapsingHeader("World and engine", ImGuiTreeNodeFlags_DefaultOpen)) {
    // The field keeps what the user typed until "apply"; it follows the world's count when
    // that changes (reset, a refused request).
    static int count_edit = -1;
    static std::uint32_t count_seen = 0;
    if (count_edit < 0 || d.count != count_seen) {
      count_edit = int(d.count);
      count_seen = d.count;
    }
    ImGui::InputInt("agents", &count_edit, 1000, 100000);
    count_edit = std::clamp(count_edit, 0, 100000000);
    ImGui::SameLine();
    std::uint32_t apply_count = 0;
    if (ImGui::Button("apply") && std::uint32_t(count_edit) != d.count) {
      // A large count costs seconds per step: say so first and let the user confirm.
      if (std::uint32_t(count_edit) > kSlowCount && std::uint32_t(count_edit) > d.count)
        app.pending_count = std::uint32_t(count_edit);
      else
        apply_count = std::uint32_t(count_edit);
    }
    if (app.pending_count > 0) {
      const double rate = st.boid_steps_per_s > 0 ? st.boid_steps_per_s : 2e6;
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.8f, 0.3f, 1));
      ImGui::TextWrapped(
          "%u boids will be slow: about %.1f s a step at the measured %s boid-steps/s, and "
          "%.0f MB of memory.",
          app.pending_count, double(app.pending_count) / rate, human(rate).c_str(),
          double(app.pending_count) * 400 / 1e6);
      ImGui::PopStyleColor();
      if (ImGui::Button("apply anyway")) {
        apply_count = app.pending_count;
        app.pending_count = 0;
      }
      ImGui::SameLine();
      if (ImGui::Button("cancel")) {
        app.pending_count = 0;
        count_edit = int(d.count);
      }
    }
    if (apply_count > 0) {
      d.count = apply_count;
      d.predators = std::min(d.predators, d.count);
      d.leaders = std::min(d.leaders, d.count - d.predators);
      changed = true;
    }
    int preds = int(d.predators), leaders = int(d.leaders);
    if (ImGui::SliderInt("predators", &preds, 0, 20)) {
      d.predators = std::uint32_t(std::min<long long>(preds, d.count));
      changed = true;
    }
    if (ImGui::SliderInt("leaders", &leaders, 0, 20)) {
      d.leaders = std::uint32_t(std::min<long long>(leaders, d.count - d.predators));
      changed = true;
    }
    // Combo order: grid, naive, cluster.
    int engine = d.engine == EngineKind::grid ? 0 : d.engine == EngineKind::naive ? 1 : 2;
    if (ImGui::Combo(
            "engine", &engine,
            "grid (cell list, SIMD, threads)\0naive (O(n^2))\0cluster (cluster pairs)\0")) {
      d.engine = engine == 0   ? EngineKind::grid
                 : engine == 1 ? EngineKind::naive
                               : EngineKind::cluster;
      changed = true;
    }
    const int hw = int(std::max(1u, std::thread::hardware_concurrency()));
    int threads = d.threads;
    if (ImGui::SliderInt("threads (0 = all)", &threads, 0, hw)) {
      d.threads = threads;
      changed = true;
    }
  }

  for (int k = 0; k < kKindCount; ++k) {
    const bool present = k == 0 || (k == 1 && d.predators > 0) || (k == 2 && d.leaders > 0);
    if (!present) continue;
    ImGui::PushID(k);
    std::string title = std::string("Rules: ") + kKindNames[k];
    if (ImGui::CollapsingHeader(title.c_str(), k == 0 ? ImGuiTreeNodeFlags_DefaultOpen : 0))
      changed |= kind_controls(d, k);
    title = std::string("Behaviours: ") + kKindNames[k];
    if (ImGui::CollapsingHeader(title.c_str())) changed |= behaviour_controls(d, k);
    ImGui::PopID();
  }
  if (ImGui::CollapsingHeader("Goal, target, formation")) {
    changed |= world_behaviour_controls(d);
    ImGui::TextWrapped(
        "Left click sets the goal; hold Ctrl and move the mouse to chase the "
        "flock with the cursor.");
  }

  if (changed) app.submit(d);

  if (ImGui::CollapsingHeader("View", ImGuiTreeNodeFlags_DefaultOpen)) {
    int color = int(app.view.color);
    ImGui::Text("colour by (C):");
    ImGui::SameLine();
    ImGui::RadioButton("kind", &color, 0);
    ImGui::SameLine();
    ImGui::RadioButton("speed", &color, 1);
    ImGui::SameLine();
    ImGui::RadioButton("heading", &color, 2);
    ImGui::SameLine();
    ImGui::RadioButton("density", &color, 3);
    app.view.color = ColorMode(color);
    ImGui::SliderFloat("exposure", &app.view.exposure, 0.05f, 20.0f, "%.2f",
                       ImGuiSliderFlags_Logarithmic);
    if (app.edit.dims == 3) ImGui::SliderFloat("depth fog", &app.view.fog, 0.0f, 4.0f, "%.2f");
    ImGui::SliderFloat("predator/leader size", &app.view.special_scale, 1.0f, 5.0f, "%.1fx");
    ImGui::SliderFloat("glyph size", &app.view.glyph_size, 0.05f, 20.0f, "%.2f",
                       ImGuiSliderFlags_Logarithmic);
    ImGui::Combo("glyph", &app.view.detail,
                 app.edit.dims == 3 ? "auto\0cone\0dart (4 triangles)\0density splats\0"
                                    : "auto\0triangle\0triangle\0density splats\0");
    ImGui::SliderFloat("min glyph pixels", &app.view.min_pixels, 0.0f, 12.0f, "%.1f");
    ImGui::Checkbox("world box (B)", &app.view.show_box);
    ImGui::SameLine();
    ImGui::Checkbox("goal/obstacles", &app.view.show_shapes);
    if (ImGui::Button("frame flock (F)")) app.want_frame_flock = true;
    ImGui::SameLine();
    if (ImGui::Button("screenshot (P)")) app.want_screenshot = true;
  }

  if (ImGui::CollapsingHeader("Debug view", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::TextWrapped(
        "Right-click a boid to see its perception radius, its neighbours and "
        "each steering term (Esc to deselect).");
    ImGui::Checkbox("auto arrow scale", &app.view.auto_arrows);
    if (!app.view.auto_arrows)
      ImGui::SliderFloat("arrow scale", &app.view.arrow_scale, 0.1f, 100.0f, "%.2f",
                         ImGuiSliderFlags_Logarithmic);
  }

  if (ImGui::CollapsingHeader("Metrics")) app.metrics.draw_panel();

  if (ImGui::CollapsingHeader("Controls")) {
    ImGui::TextWrapped(
        "Left drag: orbit (3D) / pan (2D). Right or middle drag: pan. Wheel: zoom.\n"
        "Left click: set goal. Right click: inspect boid. Hold Ctrl: cursor is a predator.\n"
        "Space pause, N step (replay: Right/Left step), R reset, Shift+R re-seed, F frame "
        "flock, C colour, B box, "
        "Tab panel, P/F12 screenshot, Esc deselect, Q quit.");
  }
  ImGui::PopItemWidth();
  app.panel_right =
      ImGui::IsWindowCollapsed() ? 0 : int(ImGui::GetWindowPos().x + ImGui::GetWindowSize().x + 4);
  ImGui::End();
}

}  // namespace boids::view
