// State shared by the viewer's main loop, input handlers and control panel.
#pragma once

#include <GLFW/glfw3.h>

#include <cstdint>
#include <memory>
#include <string>

#include "viewer/camera.hpp"
#include "viewer/density.hpp"
#include "viewer/instance_ring.hpp"
#include "viewer/metrics_plot.hpp"
#include "viewer/renderer.hpp"
#include "viewer/sim_runner.hpp"

namespace boids::view {

struct ViewSettings {
  ColorMode color = ColorMode::kind;
  float glyph_size = 1.5f;     // glyph length (world units)
  float min_pixels = 3.0f;     // glyphs never shorter than this on screen
  float arrow_scale = 2.0f;    // debug arrows: world units per u/s^2
  float target_rate = 30.0f;   // simulation steps per second (0 = unlimited)
  int detail = 0;              // 3D glyph: 0 auto, 1 cone, 2 dart, 3 point (density splats)
  float exposure = 1.0f;       // density splats: brightness of a pixel of mean density
  float fog = 1.0f;            // 3D depth fog strength (0 = none)
  float special_scale = 2.2f;  // predators and leaders are drawn this much larger
  bool auto_arrows = true;     // debug arrows: longest term as long as the perception radius
  bool show_box = true;
  bool show_panel = true;
  bool show_shapes = true;  // goal, target, obstacles, formation sphere
};

struct App {
  GLFWwindow* window = nullptr;
  std::unique_ptr<SimRunner> sim;
  std::unique_ptr<Frame> frame;  // the state being drawn
  Camera camera;
  ViewSettings view;
  Renderer renderer;

  WorldDef edit;        // the def the panel edits (sent to the sim on every change)
  std::string message;  // last notice for the panel
  bool message_is_error = false;
  double message_time = 0;          // glfwGetTime() when it was set; cleared after kMessageSeconds
  std::uint32_t pending_count = 0;  // a count waiting for "apply anyway" (slow), 0 = none

  InstanceRing ring;  // the flock's instance buffers, filled by the simulation thread
  SplatPass splats;   // density rendering of large flocks
  std::size_t splat_budget = 32768;  // boids accumulated per UI frame (adapted)
  bool splat_all = false;            // screenshots: the whole flock in one frame
  bool splat_busy = false;           // a state's splats are being added up for a resting camera
  bool view_moved = false;           // the camera changed in the last drawn frame
  glm::mat4 last_view{0}, last_proj{0};
  MetricsPlot metrics;

  // Mouse.
  int drag_button = -1;
  double press_x = 0, press_y = 0, last_x = 0, last_y = 0;
  bool drag_moved = false;
  bool predator_active = false;  // the cursor acts as a predator
  double cursor_x = 0, cursor_y = 0;

  std::int64_t selected = -1;  // id-order index of the inspected boid
  bool want_frame_flock = false;
  bool want_screenshot = false;
  std::string last_screenshot;

  // Timing of the render loop: smoothed over the last frames; frames counted so far.
  double fps = 0, frame_ms = 0;
  std::uint64_t frames_drawn = 0;

  void notify(std::string msg, bool error) {
    message = std::move(msg);
    message_is_error = error;
    message_time = glfwGetTime();
  }
  /// Validates `def` and sends it to the simulation; on refusal keeps `edit` unchanged and
  /// shows why. Returns whether it was sent.
  bool submit(const WorldDef& def);
  /// The 3D glyph to draw this frame (auto: points when glyphs would be tiny on screen or
  /// the flock is over 50,000 on a software rasteriser, darts for flocks over 20,000, cones
  /// otherwise).
  Glyph glyph(std::size_t count, int fb_height) const;
  /// Frames the flock (or, before the first state, the world box).
  void frame_flock();
  /// The scene's part of the window (right of the panel when it is shown), in window
  /// coordinates: left edge x0, size w x h.
  void scene(int& x0, int& w, int& h) const;
  int panel_right = 390;  // right edge of the panel (window coordinates), updated as drawn
};

inline constexpr double kMessageSeconds = 6.0;
/// Above this many boids the flock is drawn as density splats (auto glyph).
inline constexpr std::size_t kSplatCount = 20000;
/// Work per UI frame (ms) the density splats' chunk is adapted to while a picture fills in,
/// and the least time a chunk gets however slow the rest of the frame is.
inline constexpr double kSplatFrameMs = 25.0;
inline constexpr double kSplatMinMs = 6.0;
inline constexpr double kSplatMovingMinMs = 2.0;  // the same while the camera moves
/// Above this many boids the panel asks before applying a count (one step takes long).
inline constexpr std::uint32_t kSlowCount = 250000;

/// Opens the window with an OpenGL 3.3 core context and makes it current; nullptr on
/// failure. `interactive`: resizable, and 4x multisampled unless the renderer is a CPU
/// rasteriser, where multisampling would cost every frame four times the framebuffer work.
GLFWwindow* open_window(int width, int height, bool interactive);
/// Draws the scene (box, flock, obstacles, kinds, goal, debug view) into the framebuffer
/// rectangle (x0, 0, w, h) (viewer/scene.cpp).
void draw_scene(App& app, int x0, int w, int h);
/// Makes the newly acquired frame drawable: the streamed fallback, the few special glyphs.
void upload_frame(App& app);

/// Installs the mouse and keyboard callbacks (viewer/input.cpp); the window's user pointer
/// is the App.
void install_input(GLFWwindow* win);
/// While Ctrl is held the cursor is a predator: sends its position when it moved; restores
/// the def when Ctrl is released. Called once per frame.
void update_cursor_predator(App& app);
/// Saves the back buffer as PNG and says so in the panel.
void save_screenshot_now(App& app, const std::string& path);
/// "boids-view-YYYYmmdd-HHMMSS.png".
std::string timestamped_png();

/// Draws the control panel.
void draw_panel(App& app);
/// Draws the colour legend in the scene's corner.
void draw_legend(App& app);
/// Replay: the timeline window (play, pause, speed, step, jump).
void draw_timeline(App& app);
/// Draws the debug view's legend (terms, magnitudes) when a boid is selected.
void draw_debug_legend(App& app);

}  // namespace boids::view
