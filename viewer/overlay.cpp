// Windows drawn over the scene: the colour legend and the replay timeline.
#include <algorithm>
#include <cmath>

#include "imgui.h"
#include "viewer/app.hpp"

namespace boids::view {

namespace {

ImU32 rgb(float r, float g, float b) { return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1)); }

// The shaders' speed/density ramp (renderer.cpp, ramp()).
ImVec4 ramp(float t) {
  const ImVec4 c[4] = {{0.16f, 0.26f, 0.85f, 1},
                       {0.10f, 0.80f, 0.90f, 1},
                       {1.00f, 0.88f, 0.20f, 1},
                       {1.00f, 0.25f, 0.15f, 1}};
  const float x = std::clamp(t, 0.0f, 1.0f) * 3.0f;
  const int i = std::min(int(x), 2);
  const float u = x - float(i);
  return ImVec4(c[i].x + (c[i + 1].x - c[i].x) * u, c[i].y + (c[i + 1].y - c[i].y) * u,
                c[i].z + (c[i + 1].z - c[i].z) * u, 1);
}

ImVec4 hue(float h) {  // hsv(h, 0.75, 1) as in the shader
  ImVec4 out(1, 1, 1, 1);
  float* ch[3] = {&out.x, &out.y, &out.z};
  const float off[3] = {0, 4, 2};
  for (int c = 0; c < 3; ++c) {
    const float k = std::clamp(std::abs(std::fmod(h * 6 + off[c], 6.0f) - 3) - 1, 0.0f, 1.0f);
    *ch[c] = 1.0f + (k - 1.0f) * 0.75f;
  }
  return out;
}

// A horizontal colour bar, `f(t)` for t in [0, 1].
template <class F>
void bar(F f, float width) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const int steps = 32;
  for (int i = 0; i < steps; ++i) {
    const ImVec4 a = f(float(i) / steps), b = f(float(i + 1) / steps);
    dl->AddRectFilledMultiColor(
        ImVec2(p.x + width * float(i) / steps, p.y),
        ImVec2(p.x + width * float(i + 1) / steps, p.y + 10), ImGui::ColorConvertFloat4ToU32(a),
        ImGui::ColorConvertFloat4ToU32(b), ImGui::ColorConvertFloat4ToU32(b),
        ImGui::ColorConvertFloat4ToU32(a));
  }
  ImGui::Dummy(ImVec2(width, 12));
}

void swatch(const char* label, ImU32 colour) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  dl->AddRectFilled(ImVec2(p.x, p.y + 2), ImVec2(p.x + 12, p.y + 12), colour);
  ImGui::Dummy(ImVec2(14, 12));
  ImGui::SameLine();
  ImGui::TextUnformatted(label);
}

}  // namespace

void draw_legend(App& app) {
  if (!app.frame) return;
  const Frame& f = *app.frame;
  int x0, w, h;
  app.scene(x0, w, h);
  ImGui::SetNextWindowPos(ImVec2(float(x0) + 8, float(h) - 8), ImGuiCond_Always, ImVec2(0, 1));
  ImGui::SetNextWindowBgAlpha(0.6f);
  ImGui::Begin("legend", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav |
                   ImGuiWindowFlags_NoInputs);
  const float bw = 150;
  switch (app.view.color) {
    case ColorMode::kind:
      ImGui::TextUnformatted("colour: kind");
      break;
    case ColorMode::speed:
      ImGui::TextUnformatted("colour: speed");
      bar(ramp, bw);
      ImGui::Text("0 %*s %.3g u/s", 18, "", f.def.kinds[0].motion.max_speed);
      break;
    case ColorMode::heading:
      ImGui::TextUnformatted("colour: heading (azimuth)");
      bar([](float t) { return hue(t); }, bw);
      ImGui::TextUnformatted("-x    -y    +x    +y    -x");
      if (f.dims == 3) ImGui::TextDisabled("lighter: climbing, darker: diving");
      break;
    case ColorMode::density:
      ImGui::TextUnformatted("colour: boids in the same perception cell");
      bar(ramp, bw);
      ImGui::Text("0 %*s %.0f", 22, "", double(f.max_local));
      break;
  }
  if (app.view.color == ColorMode::kind) swatch("boids", rgb(0.35f, 0.75f, 1.0f));
  // Predators and leaders keep their colours in every mode.
  if (f.def.predators > 0) swatch("predators (larger)", rgb(1.0f, 0.30f, 0.25f));
  if (f.def.leaders > 0) swatch("leaders (larger)", rgb(1.0f, 0.80f, 0.20f));
  if (app.glyph(f.count, h) == Glyph::point)
    ImGui::TextDisabled("brightness: how many boids (tone-mapped)");
  ImGui::End();
}

void draw_timeline(App& app) {
  const SimStats st = app.sim->stats();
  if (st.replay_frames == 0) return;
  int x0, w, h;
  app.scene(x0, w, h);
  const float width = std::min(float(w) - 16, 720.0f);
  ImGui::SetNextWindowPos(ImVec2(float(x0) + float(w) * 0.5f, 8), ImGuiCond_Always,
                          ImVec2(0.5f, 0));
  ImGui::SetNextWindowSize(ImVec2(width, 0), ImGuiCond_Always);
  ImGui::SetNextWindowBgAlpha(0.75f);
  ImGui::Begin(
      "timeline", nullptr,
      ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav);
  const bool paused = app.sim->paused();
  if (ImGui::Button(paused ? "play" : "pause")) {
    if (paused && st.replay_pos + 1 >= st.replay_frames) app.sim->request_seek(0);
    app.sim->set_paused(!paused);
  }
  ImGui::SameLine();
  if (ImGui::Button("|<")) app.sim->request_seek(0);
  ImGui::SameLine();
  if (ImGui::Button("<") && st.replay_pos > 0) app.sim->request_seek(st.replay_pos - 1);
  ImGui::SameLine();
  if (ImGui::Button(">")) app.sim->request_step();
  ImGui::SameLine();
  if (ImGui::Button(">|")) app.sim->request_seek(st.replay_frames - 1);
  ImGui::SameLine();
  ImGui::PushItemWidth(110);
  if (ImGui::SliderFloat("frames/s", &app.view.target_rate, 0.5f, 120.0f, "%.1f",
                         ImGuiSliderFlags_Logarithmic))
    app.sim->set_target_rate(app.view.target_rate);
  ImGui::PopItemWidth();
  ImGui::SameLine();
  ImGui::Text("step %llu", (unsigned long long)st.steps);
  int pos = int(st.replay_pos);
  ImGui::PushItemWidth(-1);
  char label[64];
  std::snprintf(label, sizeof label, "frame %d / %zu", pos + 1, st.replay_frames);
  if (ImGui::SliderInt("##pos", &pos, 0, int(st.replay_frames) - 1, label))
    app.sim->request_seek(std::size_t(pos));
  ImGui::PopItemWidth();
  ImGui::End();
}

}  // namespace boids::view
