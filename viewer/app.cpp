// App: submitting a def, choosing the glyph, framing the flock, the scene's rectangle, the window.
#include <algorithm>
#include <string>

#include "viewer/app.hpp"

namespace boids::view {

bool App::submit(const WorldDef& def) {
  if (sim->replaying()) {
    notify("replay: a recording cannot be changed (open the scenario to simulate)", true);
    return false;
  }
  if (def.engine == EngineKind::naive && def.count > kNaiveLimit) {
    notify("naive engine refused for " + std::to_string(def.count) +
               " boids (it checks every pair; at most " + std::to_string(kNaiveLimit) +
               "): use the grid engine",
           true);
    return false;
  }
  try {
    validate(def);
  } catch (const Error& e) {
    notify(e.what(), true);
    return false;
  }
  edit = def;
  sim->request_def(def);
  if (message_is_error) notify("", false);
  return true;
}

Glyph App::glyph(std::size_t count, int fb_height) const {
  // Density splats (Glyph::point) for large flocks, or where glyphs would be tiny.
  if (view.detail == 3) return Glyph::point;
  const double px = camera.dims == 2
                        ? view.glyph_size / camera.world_per_pixel(fb_height)
                        : view.glyph_size / (camera.world_per_pixel(fb_height) * camera.distance);
  const bool dense = count > kSplatCount || px < 3.5;
  if (camera.dims == 2) return view.detail == 0 && dense ? Glyph::point : Glyph::cone;
  if (view.detail == 1) return Glyph::cone;
  if (view.detail == 2) return Glyph::dart;
  return dense ? Glyph::point : Glyph::cone;
}

void App::frame_flock() {
  if (!frame || frame->count == 0) return;
  const Frame& f = *frame;
  int x0, w, h;
  scene(x0, w, h);
  camera.frame(glm::dvec3(f.lo[0], f.lo[1], f.lo[2]), glm::dvec3(f.hi[0], f.hi[1], f.hi[2]),
               double(w) / h);
}

GLFWwindow* open_window(int width, int height, bool interactive) {
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_RESIZABLE, interactive ? GLFW_TRUE : GLFW_FALSE);
  // Hidden until the renderer is known: a software one gets a window without multisampling.
  glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  for (int samples = interactive ? 4 : 0;; samples = 0) {
    glfwWindowHint(GLFW_SAMPLES, samples);
    GLFWwindow* win = glfwCreateWindow(width, height, "boids-view", nullptr, nullptr);
    if (!win && samples > 0) continue;  // no multisampled visual: try without
    if (!win) return nullptr;
    glfwMakeContextCurrent(win);
    const char* name = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    if (samples == 0 || !name || !is_software_renderer(name)) {
      glfwShowWindow(win);
      return win;
    }
    glfwMakeContextCurrent(nullptr);
    glfwDestroyWindow(win);
  }
}

void App::scene(int& x0, int& w, int& h) const {
  int ww, wh;
  glfwGetWindowSize(window, &ww, &wh);
  x0 = view.show_panel ? std::clamp(panel_right, 0, ww / 2) : 0;
  w = std::max(ww - x0, 1);
  h = std::max(wh, 1);
}

}  // namespace boids::view
