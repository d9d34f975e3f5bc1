// Mouse and keyboard: orbit, pan, zoom, goal, picking, the cursor predator, the keys.
// ImGui's GLFW backend chains to these callbacks; they ignore what ImGui consumes.
#include <GLFW/glfw3.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>

#include "imgui.h"
#include "viewer/app.hpp"
#include "viewer/behaviours.hpp"

namespace boids::view {

namespace {

App* app_of(GLFWwindow* w) { return static_cast<App*>(glfwGetWindowUserPointer(w)); }

// ---------------------------------------------------------------------------------------------
// Input. ImGui's GLFW backend chains to these callbacks; they ignore what ImGui consumes.

// Nearest boid to a window pixel, within `max_px`, or -1.
std::int64_t pick(const App& app, double px, double py, double max_px) {
  if (!app.frame) return -1;
  const Frame& f = *app.frame;
  int x0, w, h;
  app.scene(x0, w, h);
  px -= x0;
  const glm::dmat4 m = app.camera.proj(double(w) / h) * app.camera.view();
  std::int64_t best = -1;
  double best_d2 = max_px * max_px, best_depth = std::numeric_limits<double>::max();
  for (std::size_t i = 0; i < f.count; ++i) {
    const glm::dvec4 c = m * glm::dvec4(f.x[i], f.y[i], f.z[i], 1.0);
    if (c.w <= 0) continue;
    const double sx = (c.x / c.w + 1) * 0.5 * w, sy = (1 - c.y / c.w) * 0.5 * h;
    const double d2 = (sx - px) * (sx - px) + (sy - py) * (sy - py);
    const double depth = c.z / c.w;
    if (d2 < best_d2 - 1e-9 || (d2 <= best_d2 + 1e-9 && depth < best_depth)) {
      best = std::int64_t(i);
      best_d2 = d2;
      best_depth = depth;
    }
  }
  return best;
}

void on_click(App& app, int button, double px, double py) {
  int x0, w, h;
  app.scene(x0, w, h);
  if (button == GLFW_MOUSE_BUTTON_LEFT) {
    const glm::dvec3 p = app.camera.cursor_point(px - x0, py, w, h);
    WorldDef d = app.edit;
    std::string note;
    set_goal(d, p, note);
    if (app.submit(d)) app.notify(note, false);
  } else if (button == GLFW_MOUSE_BUTTON_RIGHT) {
    app.selected = pick(app, px, py, 14.0);
    app.sim->set_debug_index(app.selected);
  }
}

void mouse_button_cb(GLFWwindow* win, int button, int action, int mods) {
  (void)mods;
  App& app = *app_of(win);
  double x, y;
  glfwGetCursorPos(win, &x, &y);
  if (action == GLFW_PRESS) {
    // ImGui's hover state is a frame old; at a low frame rate a click can arrive before it
    // knows the cursor is over the panel, so the panel's rectangle is checked as well.
    int x0, sw, sh;
    app.scene(x0, sw, sh);
    if (ImGui::GetIO().WantCaptureMouse || x < x0 || app.drag_button >= 0) return;
    app.drag_button = button;
    app.press_x = app.last_x = x;
    app.press_y = app.last_y = y;
    app.drag_moved = false;
  } else if (action == GLFW_RELEASE && button == app.drag_button) {
    app.drag_button = -1;
    if (!app.drag_moved) on_click(app, button, x, y);
  }
}

void cursor_cb(GLFWwindow* win, double x, double y) {
  App& app = *app_of(win);
  app.cursor_x = x;
  app.cursor_y = y;
  if (app.drag_button < 0) return;
  const double dx = x - app.last_x, dy = y - app.last_y;
  app.last_x = x;
  app.last_y = y;
  if (std::abs(x - app.press_x) + std::abs(y - app.press_y) > 4) app.drag_moved = true;
  if (!app.drag_moved) return;
  int x0, w, h;
  app.scene(x0, w, h);
  if (app.drag_button == GLFW_MOUSE_BUTTON_LEFT && app.camera.dims == 3)
    app.camera.orbit(dx, dy);
  else
    app.camera.pan(dx, dy, h);
}

void scroll_cb(GLFWwindow* win, double dx, double dy) {
  (void)dx;
  App& app = *app_of(win);
  if (ImGui::GetIO().WantCaptureMouse) return;
  int x0, w, h;
  app.scene(x0, w, h);
  app.camera.zoom(std::pow(0.88, dy), app.cursor_x - x0, app.cursor_y, w, h);
}

}  // namespace

namespace {

void key_cb(GLFWwindow* win, int key, int scancode, int action, int mods) {
  (void)scancode;
  App& app = *app_of(win);
  if (key == GLFW_KEY_LEFT_CONTROL || key == GLFW_KEY_RIGHT_CONTROL) {
    // Held Ctrl: the cursor is a predator (see the main loop).
    if (action == GLFW_PRESS && !ImGui::GetIO().WantCaptureKeyboard) app.predator_active = true;
    if (action == GLFW_RELEASE) app.predator_active = false;
    return;
  }
  if (action != GLFW_PRESS && action != GLFW_REPEAT) return;
  if (ImGui::GetIO().WantCaptureKeyboard) return;
  switch (key) {
    case GLFW_KEY_SPACE:
      app.sim->set_paused(!app.sim->paused());
      break;
    case GLFW_KEY_N:
    case GLFW_KEY_RIGHT:
      app.sim->request_step();
      break;
    case GLFW_KEY_LEFT:  // replay: one recorded frame back
      if (app.sim->replaying() && app.frame && app.frame->replay_frame > 0)
        app.sim->request_seek(app.frame->replay_frame - 1);
      break;
    case GLFW_KEY_R:
      if (mods & GLFW_MOD_SHIFT) {
        app.edit.seed = app.edit.seed * 6364136223846793005ull + 1442695040888963407ull;
        app.edit.seed >>= 1;
        app.sim->request_reseed(app.edit.seed);
      } else {
        app.sim->request_reset();
      }
      break;
    case GLFW_KEY_F:
      app.want_frame_flock = true;
      break;
    case GLFW_KEY_C:
      app.view.color = ColorMode((int(app.view.color) + 1) % 4);
      break;
    case GLFW_KEY_TAB:
    case GLFW_KEY_H:
      app.view.show_panel = !app.view.show_panel;
      break;
    case GLFW_KEY_B:
      app.view.show_box = !app.view.show_box;
      break;
    case GLFW_KEY_F12:
    case GLFW_KEY_P:
      app.want_screenshot = true;
      break;
    case GLFW_KEY_ESCAPE:
      app.selected = -1;
      app.sim->set_debug_index(-1);
      break;
    case GLFW_KEY_Q:
      glfwSetWindowShouldClose(win, GLFW_TRUE);
      break;
    default:
      break;
  }
}

}  // namespace

// While Ctrl is held the cursor is a predator: its position goes to the world every frame it
// moves; releasing Ctrl restores the def as it was.
void update_cursor_predator(App& app) {
  static bool was_active = false;
  static glm::dvec3 last(std::numeric_limits<double>::quiet_NaN());
  if (!app.predator_active && !was_active) return;
  if (!app.predator_active) {
    was_active = false;
    WorldDef d = app.edit;
    set_cursor_predator(d, false, {});
    app.submit(d);
    return;
  }
  int x0, w, h;
  app.scene(x0, w, h);
  const glm::dvec3 p = app.camera.cursor_point(app.cursor_x - x0, app.cursor_y, w, h);
  if (was_active && p == last) return;
  was_active = true;
  last = p;
  WorldDef d = app.edit;
  set_cursor_predator(d, true, p);
  app.submit(d);
}

void install_input(GLFWwindow* win) {
  glfwSetMouseButtonCallback(win, mouse_button_cb);
  glfwSetCursorPosCallback(win, cursor_cb);
  glfwSetScrollCallback(win, scroll_cb);
  glfwSetKeyCallback(win, key_cb);
}

}  // namespace boids::view
