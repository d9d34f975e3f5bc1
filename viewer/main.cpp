// boids-view: watch and steer a flock. Reads the same scenario files and --set overrides as
// `boids run`, simulates on its own thread (viewer/sim_runner.hpp) and draws every boid with
// one instanced draw call (viewer/renderer.hpp). docs/viewer.md has the controls.
#include <epoxy/gl.h>

#include <GLFW/glfw3.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <glm/gtc/matrix_transform.hpp>
#include <iostream>
#include <limits>

#include "backends/imgui_impl_glfw.h"
#include "backends/imgui_impl_opengl3.h"
#include "boids/io.hpp"
#include "boids/scenario.hpp"
#include "imgui.h"
#include "viewer/app.hpp"
#include "viewer/behaviours.hpp"
#include "viewer/frame_stats.hpp"

namespace boids::view {

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string scenario;
  std::vector<std::string> sets;
  std::string engine;
  int threads = -1;
  long long seed = -1;
  std::string init;
  std::string size = "1280x800";
  std::string screenshot;
  int frames = 0;
  int warmup = 0;
  bool paused = false;
  bool hide_ui = false;
  std::string color = "kind";
  std::string glyph = "auto";
  std::string camera;
  double glyph_size = 0;
  double min_pixels = 3;
  double rate = 30;
  bool no_vsync = false;
  bool stats = false;
  long long select = -1;
  std::string replay;          // a recording (boids run --record) to play instead of simulating
  long long replay_step = -1;  // start at the recorded frame of this step
  std::string snapshot;        // a snapshot (boids run --save) to continue live
  double exposure = 1;
  bool no_persistent = false;
  double orbit = 0;  // for measuring: turn (3D) or pan (2D) the camera this much every frame
};

const char* engine_label(EngineKind e) {
  return e == EngineKind::naive ? "naive" : e == EngineKind::grid ? "grid" : "cluster";
}

std::string shortest(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

int parse_size(const std::string& s, int& w, int& h) {
  const auto x = s.find('x');
  try {
    if (x == std::string::npos) throw std::invalid_argument(s);
    std::size_t u1 = 0, u2 = 0;
    w = std::stoi(s.substr(0, x), &u1);
    h = std::stoi(s.substr(x + 1), &u2);
    if (u1 != x || u2 != s.size() - x - 1) throw std::invalid_argument(s);
  } catch (const std::exception&) {
    return 1;
  }
  return (w >= 16 && h >= 16 && w <= 16384 && h <= 16384) ? 0 : 1;
}

// GLFW errors before the window exists end up in the one-line error of run(); later ones are
// printed as they come.
std::string g_glfw_error;
bool g_window_open = false;
void glfw_error(int code, const char* what) {
  g_glfw_error = what ? what : "?";
  if (g_window_open) std::fprintf(stderr, "boids-view: GLFW error %d: %s\n", code, what);
}

int run(const Options& o) {
  int win_w = 0, win_h = 0;
  if (parse_size(o.size, win_w, win_h))
    throw Error("--size: expected WxH with 16..16384 pixels each, got \"" + o.size + "\"");
  ColorMode color;
  if (o.color == "kind")
    color = ColorMode::kind;
  else if (o.color == "speed")
    color = ColorMode::speed;
  else if (o.color == "density")
    color = ColorMode::density;
  else
    color = ColorMode::heading;
  for (const std::string* path : {&o.scenario, &o.init, &o.replay, &o.snapshot}) {
    std::error_code ec;
    if (!path->empty() && std::filesystem::is_directory(*path, ec))
      throw Error(*path + ": is a directory, not a file");
  }
  if (!std::isfinite(o.exposure) || o.exposure <= 0 || o.exposure > 100)
    throw Error("--exposure: expected a number in (0, 100], got " + shortest(o.exposure));
  if (!std::isfinite(o.orbit))
    throw Error("--orbit: expected degrees in [-90, 90], got " + shortest(o.orbit));

  std::vector<std::string> sets = o.sets;
  if (!o.engine.empty()) sets.push_back("engine.kind=\"" + o.engine + "\"");
  if (o.threads >= 0) sets.push_back("engine.threads=" + std::to_string(o.threads));
  if (o.seed >= 0) sets.push_back("boids.seed=" + std::to_string(o.seed));
  std::optional<World> snap;
  if (!o.snapshot.empty()) snap.emplace(World::load(o.snapshot));
  std::unique_ptr<ReplaySource> replay;
  if (!o.replay.empty()) replay = open_recording(o.replay);
  // An H5MD recording holds the scenario it was made with: the default for its replay.
  const bool own_scenario = replay && o.scenario.empty() && !replay->scenario_text().empty();
  const WorldDef def = snap           ? snap->def()
                       : own_scenario ? parse_scenario(replay->scenario_text(), o.replay, sets)
                       : o.scenario.empty() ? parse_scenario(default_scenario_text(),
                                                             "<built-in default scenario>", sets)
                                            : load_scenario(o.scenario, sets);
  // A glyph longer than the box is a typo, and a huge one would overflow the shaders.
  if (o.glyph_size > 0 && !(o.glyph_size <= def.size))
    throw Error("--glyph-size: " + shortest(o.glyph_size) +
                " is larger than the world box (world.size = " + shortest(def.size) + ")");
  std::optional<State> init;
  if (!o.init.empty()) init = read_state_csv(o.init, def.dims, def.count);

  App app;
  app.camera.dims = def.dims;
  const double L = def.size;
  app.camera.frame({0, 0, 0}, {L, L, def.dims == 3 ? L : 0}, double(win_w) / win_h);
  if (!o.camera.empty()) {
    const std::string err = app.camera.parse(o.camera);
    if (!err.empty()) throw Error(err);
  }
  app.view.color = color;
  app.view.detail = o.glyph == "cone" ? 1 : o.glyph == "dart" ? 2 : o.glyph == "point" ? 3 : 0;
  app.view.glyph_size = o.glyph_size > 0
                            ? float(o.glyph_size)
                            : float(std::max(0.5 * def.kinds[0].rules.separation_radius, 1e-3));
  app.view.min_pixels = float(o.min_pixels);
  app.view.exposure = float(o.exposure);
  app.view.target_rate = float(o.rate);
  app.view.show_panel = !o.hide_ui;
  app.view.arrow_scale =
      float(1.5 * def.kinds[0].rules.radius / std::max(def.kinds[0].motion.max_force, 1e-9));

  if (!o.screenshot.empty()) {
    // Fail before opening a window when the screenshot cannot be written.
    const std::string probe = o.screenshot + ".probe.tmp";
    std::FILE* pf = std::fopen(probe.c_str(), "wb");
    if (!pf) throw Error(o.screenshot + ": cannot write here (directory missing or not writable)");
    std::fclose(pf);
    std::remove(probe.c_str());
  }
  if (!glfwInit()) {
    const char* why = nullptr;
    glfwGetError(&why);
    throw Error(std::string("cannot initialise GLFW: ") + (why ? why : "unknown error") +
                " (no display? try xvfb-run)");
  }
  glfwSetErrorCallback(glfw_error);
  struct GlfwGuard {
    ~GlfwGuard() { glfwTerminate(); }
  } glfw_guard;
  // The simulation thread writes into mapped GL buffers: it stops before the context goes,
  // on every path out of here.
  struct SimGuard {
    App& app;
    ~SimGuard() { app.sim.reset(); }
  } sim_guard{app};
  GLFWwindow* win = open_window(win_w, win_h, o.screenshot.empty());
  if (!win) throw Error("cannot open an OpenGL 3.3 core window: " + g_glfw_error);
  g_window_open = true;
  app.window = win;
  glfwSwapInterval(o.no_vsync ? 0 : 1);
  glfwSetWindowUserPointer(win, &app);
  install_input(win);

  if (const std::string err = app.renderer.init(); !err.empty()) throw Error(err);
  if (const std::string err = app.splats.init(); !err.empty()) throw Error(err);
  app.ring.init(app.renderer.mesh_vbo(), !o.no_persistent);
  app.ring.reserve(def.count);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ImGui::StyleColorsDark();
  ImGui_ImplGlfw_InitForOpenGL(win, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  struct ImGuiGuard {
    ~ImGuiGuard() {
      ImGui_ImplOpenGL3_Shutdown();
      ImGui_ImplGlfw_Shutdown();
      ImGui::DestroyContext();
    }
  } imgui_guard;

  if (replay) {
    const std::size_t start =
        o.replay_step >= 0 ? frame_at_step(*replay, std::uint64_t(o.replay_step)) : 0;
    if (o.replay_step >= 0 && replay->step_of(start) != std::uint64_t(o.replay_step))
      throw Error("--replay-step: " + o.replay + " has no frame at step " +
                  std::to_string(o.replay_step) +
                  " (nearest before: " + std::to_string(replay->step_of(start)) + ")");
    app.sim = std::make_unique<SimRunner>(def, std::move(replay), start, o.paused, &app.ring);
  } else if (snap) {
    app.sim = std::make_unique<SimRunner>(std::move(*snap), o.warmup, o.paused, &app.ring);
  } else {
    app.sim = std::make_unique<SimRunner>(def, init, o.warmup, o.paused, &app.ring);
  }
  app.sim->set_target_rate(app.view.target_rate);
  app.edit = app.sim->def();
  if (o.select >= 0) {
    if (std::uint64_t(o.select) >= def.count)
      throw Error("--select: index " + std::to_string(o.select) + " is not below boids.count");
    app.selected = o.select;
    app.sim->set_debug_index(o.select);
  }

  const bool shooting = !o.screenshot.empty();
  const int frames = shooting ? std::max(o.frames, 1) : o.frames;
  if (shooting && !app.sim->wait_first_frame(60.0))
    throw Error("the simulation produced no state within 60 s");

  int frame_no = 0;
  double upload_ms_sum = 0;
  std::uint64_t uploads = 0;
  const auto start = Clock::now();
  auto last = start;
  bool first = true;
  double last_aspect = 0;
  FrameStats frame_stats;  // every frame after the first, for --stats
  app.splat_all = shooting;
  while (!glfwWindowShouldClose(win)) {
    const auto frame_start = Clock::now();
    glfwPollEvents();
    int w, h;
    glfwGetFramebufferSize(win, &w, &h);
    if (w <= 0 || h <= 0) {
      glfwWaitEventsTimeout(0.1);
      continue;
    }
    app.ring.poll();
    int retired = -1;
    // While a state's splats are still being added up for a resting camera, a newer state
    // waits in the mailbox: taking it would start the picture over (docs/viewer.md).
    if (!app.splat_busy && app.sim->acquire(app.frame, retired)) {
      if (retired >= 0) app.ring.retire(retired);
      const auto t0 = Clock::now();
      upload_frame(app);
      upload_ms_sum += std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      ++uploads;
      if (app.frame->has_metrics) app.metrics.push(app.frame->metrics);
      if (first && o.camera.empty()) app.frame_flock();
      first = false;
    }
    if (app.want_frame_flock) {
      app.frame_flock();
      app.want_frame_flock = false;
    }
    if (o.orbit != 0) {
      if (app.camera.dims == 3)
        app.camera.yaw += glm::radians(o.orbit);
      else
        app.camera.center.x += o.orbit / 100 * app.camera.half_height;
    }
    update_cursor_predator(app);
    if (!app.message.empty() && glfwGetTime() - app.message_time > kMessageSeconds)
      app.message.clear();

    {
      // The scene's rectangle in framebuffer pixels (HiDPI framebuffers are larger).
      int x0, sw, sh, ww, wh;
      app.scene(x0, sw, sh);
      // A resized window (or the panel shown or hidden) keeps what was in view in view.
      const double aspect = double(sw) / sh;
      if (last_aspect > 0 && aspect != last_aspect) app.camera.keep_view(last_aspect, aspect);
      last_aspect = aspect;
      glfwGetWindowSize(win, &ww, &wh);
      const double sx = double(w) / std::max(ww, 1);
      const int fx0 = int(std::lround(x0 * sx));
      draw_scene(app, fx0, std::max(w - fx0, 1), h);
      glViewport(0, 0, w, h);
    }

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    if (app.view.show_panel) draw_panel(app);
    if (app.view.show_panel) draw_debug_legend(app);
    if (app.view.show_panel) draw_legend(app);
    if (app.sim->replaying() && app.view.show_panel) draw_timeline(app);
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

    if (app.want_screenshot) {
      save_screenshot_now(app, timestamped_png());
      app.want_screenshot = false;
    }
    ++frame_no;
    if (shooting && frame_no >= frames) {
      glFinish();
      save_screenshot_now(app, o.screenshot);
      if (app.message_is_error) throw Error(app.message);
      break;
    }
    if (app.splats.chunk() > 0) {
      // Adapt the splat chunk so the frame's work stays near kSplatFrameMs: the room the rest
      // of the frame leaves, at the chunk's measured cost per boid, but at rest never less
      // than kSplatMinMs, so that a busy machine still finishes the picture (while the camera
      // moves every frame starts over anyway: there the frame rate comes first).
      glFinish();
      const double work =
          std::chrono::duration<double, std::milli>(Clock::now() - frame_start).count();
      const double per_boid = app.splats.chunk_ms() / double(app.splats.chunk());
      frame_stats.add_chunk(app.splats.chunk(), app.splats.chunk_ms());
      const double room = std::max(kSplatFrameMs - (work - app.splats.chunk_ms()),
                                   app.view_moved ? kSplatMovingMinMs : kSplatMinMs);
      const double want = room / std::max(per_boid, 1e-7);
      const double cur = double(app.splat_budget);
      app.splat_budget = std::size_t(
          std::clamp(std::clamp(want, 0.5 * cur, 2.0 * cur), 4096.0, double(std::size_t(1) << 24)));
    }
    glfwSwapBuffers(win);
    const auto swapped = Clock::now();
    // Xvfb and software renderers do not pace the swap: a frame done early waits (for input)
    // until 1/60 s is up, so an idle window leaves the cores to the flock.
    if (!o.no_vsync && !shooting) {
      const double left = 1.0 / 60 - std::chrono::duration<double>(swapped - frame_start).count();
      if (left > 1e-3) glfwWaitEventsTimeout(left);
    }

    const auto now = Clock::now();
    const double dt_ms = std::chrono::duration<double, std::milli>(now - last).count();
    last = now;
    if (frame_no > 1)
      frame_stats.add({dt_ms,
                       std::chrono::duration<double, std::milli>(swapped - frame_start).count(),
                       app.view_moved});
    // Smoothed, but the first measured frame shows at once (no "0.0 fps" while measuring).
    app.frame_ms = app.frames_drawn == 0 ? dt_ms : 0.9 * app.frame_ms + 0.1 * dt_ms;
    app.fps = 1000.0 / std::max(app.frame_ms, 1e-3);
    ++app.frames_drawn;
    if (!shooting && frames > 0 && frame_no >= frames) break;
  }

  if (o.stats) {
    const double secs = std::chrono::duration<double>(Clock::now() - start).count();
    const SimStats st = app.sim->stats();
    double load = -1;
    if (std::FILE* lf = std::fopen("/proc/loadavg", "r")) {
      if (std::fscanf(lf, "%lf", &load) != 1) load = -1;
      std::fclose(lf);
    }
    const char* glyphs[] = {"cone", "dart", "density splat"};
    frame_stats.print(stdout, app.ring.persistent() ? "persistently mapped" : "streamed", st.count);
    std::printf(
        "boids-view: %zu boids, %dD, engine %s (%s), GL %s, %s glyphs: %d frames in %.2f s = "
        "%.2f fps (%.1f ms/frame), %llu state uploads (%.2f ms each); simulation %.2f ms/step, "
        "%.2f steps/s, %.3g boid-steps/s, %llu steps; load average %.2f\n",
        st.count, def.dims, engine_label(def.engine), st.kernel.c_str(),
        app.renderer.renderer_name().c_str(),
        (def.dims == 2 && app.glyph(st.count, win_h) != Glyph::point)
            ? "triangle"
            : glyphs[int(app.glyph(st.count, win_h))],
        frame_no, secs, frame_no / secs, 1000.0 * secs / frame_no, (unsigned long long)uploads,
        uploads ? upload_ms_sum / double(uploads) : 0.0, st.step_ms, st.steps_per_s,
        st.boid_steps_per_s, (unsigned long long)st.steps, load);
  }
  app.sim.reset();
  app.ring.destroy();
  app.splats.destroy();
  app.renderer.shutdown();
  return 0;
}

}  // namespace

}  // namespace boids::view

int main(int argc, char** argv) {
  using boids::view::Options;
  CLI::App cli{
      "boids-view: watch and steer a flock. Same scenario files and --set overrides as "
      "`boids run`.\n"
      "Mouse: left-drag orbit (3D) / pan (2D), right- or middle-drag pan, wheel zoom, left click "
      "sets the goal, right click inspects a boid, hold Ctrl: the cursor is a predator.\n"
      "Keys: Space pause, N step, R reset, Shift+R re-seed, F frame the flock, C colour mode, "
      "B box, Tab panel, P or F12 screenshot, Esc deselect, Q quit."};
  Options o;
  cli.add_option("--scenario", o.scenario, "Scenario TOML file (default: the built-in scenario)");
  cli.add_option("--set", o.sets, "Override a scenario key: section.key=value (repeatable)");
  cli.add_option("--engine", o.engine, "Stepper: naive, grid or cluster")
      ->check(CLI::IsMember({"naive", "grid", "cluster"}));
  cli.add_option("--threads", o.threads, "Worker threads; 0 = all cores")
      ->check(CLI::Range(0, 1024));
  cli.add_option("--seed", o.seed, "Seed of the initial state")->check(CLI::NonNegativeNumber);
  cli.add_option("--init", o.init, "Start from this state CSV (as written by boids run --out)");
  cli.add_option("--size", o.size, "Window size WxH in pixels")->capture_default_str();
  cli.add_option("--screenshot", o.screenshot, "Render --frames frames, save a PNG here, exit");
  cli.add_option("--frames", o.frames, "Frames to render before exiting (0 = until closed)")
      ->check(CLI::NonNegativeNumber);
  cli.add_option("--warmup", o.warmup, "Steps to run before the first frame")
      ->check(CLI::NonNegativeNumber);
  cli.add_flag("--paused", o.paused, "Start paused");
  cli.add_flag("--hide-ui", o.hide_ui, "Start with the control panel hidden");
  cli.add_option("--color", o.color,
                 "Colour by kind, speed, heading or density (boids in the same perception cell)")
      ->check(CLI::IsMember({"kind", "speed", "heading", "density"}))
      ->capture_default_str();
  cli.add_option("--glyph", o.glyph,
                 "Glyph: auto, cone, dart or point (density splats: oriented streaks added up "
                 "and tone-mapped)")
      ->check(CLI::IsMember({"auto", "cone", "dart", "point"}))
      ->capture_default_str();
  cli.add_option("--camera", o.camera,
                 "Fixed camera: 2D cx,cy,half_height; 3D tx,ty,tz,yaw_deg,pitch_deg,distance");
  cli.add_option("--glyph-size", o.glyph_size,
                 "Glyph length in world units (default: half "
                 "the separation radius)")
      ->check(CLI::PositiveNumber);
  cli.add_option("--min-pixels", o.min_pixels, "Glyphs are never drawn shorter than this")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cli.add_option("--rate", o.rate, "Simulation steps per second (0 = as fast as possible)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cli.add_flag("--no-vsync", o.no_vsync, "Do not wait for vertical sync (for measuring)");
  cli.add_option("--select", o.select, "Inspect this boid (index in id order) in the debug view")
      ->check(CLI::NonNegativeNumber);
  cli.add_flag("--stats", o.stats, "Print frame rate, UI frame time and step time at exit");
  cli.add_option("--replay", o.replay,
                 "Play a recording made by `boids run --record` (give its scenario with "
                 "--scenario/--set for the box)");
  cli.add_option("--replay-step", o.replay_step, "With --replay: start at the frame of this step")
      ->check(CLI::NonNegativeNumber);
  cli.add_option("--snapshot", o.snapshot, "Continue a snapshot (boids run --save) live");
  cli.add_option("--exposure", o.exposure,
                 "Density splats: brightness of a pixel of mean density (default 1)");
  cli.add_flag("--no-persistent", o.no_persistent,
               "Stream the instance buffer instead of mapping it persistently");
  cli.add_option("--orbit", o.orbit,
                 "For measuring a moving camera: turn it DEG degrees about its target every "
                 "frame (2D: pan DEG percent of the view)")
      ->check(CLI::Range(-90.0, 90.0));
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return cli.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return cli.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, exit status 2, like every other bad input.
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    std::cerr << "boids-view: error: " << what << "\n";
    return 2;
  }
  try {
    return boids::view::run(o);
  } catch (const boids::Error& e) {
    std::cerr << "boids-view: error: " << e.what() << "\n";
  } catch (const std::bad_alloc&) {
    std::cerr << "boids-view: error: out of memory\n";
  } catch (const std::exception& e) {
    std::cerr << "boids-view: error: " << e.what() << "\n";
  }
  return 2;
}
