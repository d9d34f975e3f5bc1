// The scene: world box, the flock (opaque glyphs for small flocks, density splats for large
// ones), translucent obstacles, predators and leaders on top of the flock, the goal and target
// markers over everything, and the debug view of one boid.
#include <algorithm>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>

#include "viewer/app.hpp"
#include "viewer/behaviours.hpp"

namespace boids::view {

namespace {

// Instance rows (kInstanceFloats each) of the boids at id-order indices `idx` of `f`.
void gather(const Frame& f, const std::vector<std::uint32_t>& idx, InstanceSet& set) {
  std::vector<float> rows;
  rows.reserve(idx.size() * kInstanceFloats);
  for (std::uint32_t j : idx) {
    if (j >= f.count) continue;
    rows.insert(rows.end(),
                {f.x[j], f.y[j], f.z[j], f.vx[j], f.vy[j], f.vz[j], float(f.kind[j]), 0.0f});
  }
  set.upload(rows.size() / kInstanceFloats, rows.data());
}

// The vector from a to b through the nearest periodic image when the box wraps, so a line
// to a neighbour across the boundary is as short as the distance the rules use.
glm::vec3 min_image(const WorldDef& def, glm::vec3 d) {
  if (def.boundary != Boundary::wrap) return d;
  const float L = float(def.size);
  for (int c = 0; c < def.dims; ++c) d[c] -= L * std::round(d[c] / L);
  return d;
}

// Markers over everything: a dark outline under a wide coloured line.
void draw_markers(App& app, const LineBatch& markers, const glm::mat4& vp) {
  if (markers.data().empty()) return;
  LineBatch dark;
  const auto& d = markers.data();
  for (std::size_t i = 0; i + 14 <= d.size(); i += 14)
    dark.add({d[i], d[i + 1], d[i + 2]}, {d[i + 7], d[i + 8], d[i + 9]}, {0, 0, 0, 0.85f});
  app.renderer.draw_lines(dark, vp, false, 5.0f);
  app.renderer.draw_lines(markers, vp, false, 2.5f);
}

void draw_debug(App& app, const Frame& f, const GlyphParams& gp, const glm::mat4& vp) {
  const DebugInfo& dbg = f.debug;
  if (dbg.index < 0 || std::size_t(dbg.index) >= f.count) return;
  const std::size_t i = std::size_t(dbg.index);
  const bool flat = f.dims == 2;
  GlyphParams hp = gp;
  if (hp.glyph == Glyph::point) hp.glyph = Glyph::dart;
  hp.scale = 1.05f;
  hp.special_scale = 1.0f;
  hp.override_rgba = {1.0f, 0.85f, 0.2f, 1.0f};
  app.renderer.draw_glyphs(app.renderer.highlight(), f.dims, hp);
  glClear(GL_DEPTH_BUFFER_BIT);
  hp.scale = 1.8f;
  hp.override_rgba = {1.0f, 1.0f, 1.0f, 1.0f};
  app.renderer.draw_glyphs(app.renderer.selected(), f.dims, hp);

  LineBatch over, arrows;
  const glm::vec3 p(f.x[i], f.y[i], f.z[i]);
  const glm::vec3 eye(app.camera.eye());
  const glm::vec3 view_dir = glm::normalize(glm::vec3(app.camera.target) - eye);
  // 3D: one circle facing the camera instead of three great circles (less clutter).
  glm::vec3 cu(1, 0, 0), cv(0, 1, 0);
  if (!flat) {
    const glm::vec3 to_eye = glm::normalize(eye - p);
    const glm::vec3 ref = std::abs(to_eye.z) < 0.99f ? glm::vec3(0, 0, 1) : glm::vec3(0, 1, 0);
    cu = glm::normalize(glm::cross(ref, to_eye));
    cv = glm::cross(to_eye, cu);
  }
  over.circle(p, cu, cv, dbg.radius, {1, 1, 1, 0.55f});
  if (dbg.separation_radius > 0)
    over.circle(p, cu, cv, dbg.separation_radius, {1, 0.4f, 0.35f, 0.7f});
  // A limited field of view: the edge of the cone it sees through, as two rays and an arc in
  // 2D, as four rays and the rim circle in 3D.
  const glm::vec3 vel(f.vx[i], f.vy[i], f.vz[i]);
  if (dbg.view_angle < 360 && glm::length(vel) > 0) {
    const glm::vec3 fwd = glm::normalize(vel);
    const glm::vec3 ref = std::abs(fwd.z) < 0.99f ? glm::vec3(0, 0, 1) : glm::vec3(0, 1, 0);
    const glm::vec3 side = glm::normalize(glm::cross(ref, fwd));
    const glm::vec3 up = glm::cross(fwd, side);
    const float half = glm::radians(dbg.view_angle * 0.5f);
    const float r = dbg.radius;
    const glm::vec4 cone_rgba(0.6f, 0.9f, 1.0f, 0.6f);
    if (flat) {
      const int seg = 40;
      glm::vec3 prev = p + r * (std::cos(-half) * fwd + std::sin(-half) * side);
      over.add(p, prev, cone_rgba);
      for (int k = 1; k <= seg; ++k) {
        const float a = -half + 2 * half * float(k) / seg;
        const glm::vec3 next = p + r * (std::cos(a) * fwd + std::sin(a) * side);
        over.add(prev, next, cone_rgba);
        prev = next;
      }
      over.add(p, prev, cone_rgba);
    } else {
      for (int k = 0; k < 4; ++k) {
        const float b = glm::radians(90.0f * float(k));
        const glm::vec3 dir =
            std::cos(half) * fwd + std::sin(half) * (std::cos(b) * side + std::sin(b) * up);
        over.add(p, p + r * dir, cone_rgba);
      }
      over.circle(p + r * std::cos(half) * fwd, side, up, r * std::sin(half), cone_rgba);
    }
  }
  // Neighbour lines to the nearest image (the minimum-image vector the rules use).
  for (std::uint32_t j : dbg.neighbours) {
    if (j >= f.count) continue;
    const glm::vec3 d = min_image(f.def, glm::vec3(f.x[j], f.y[j], f.z[j]) - p);
    over.add(p, p + d, {1.0f, 0.85f, 0.2f, 0.35f});
  }
  // Arrows: auto-scaled so the longest steering term is as long as the perception radius.
  float s = app.view.arrow_scale;
  if (app.view.auto_arrows) {
    float longest = glm::length(glm::vec3(dbg.total[0], dbg.total[1], dbg.total[2]));
    for (const DebugTerm& t : dbg.terms)
      longest = std::max(longest, glm::length(glm::vec3(t.v[0], t.v[1], t.v[2])));
    if (longest > 0) s = dbg.radius / longest;
    app.view.arrow_scale = s;
  }
  for (const DebugTerm& t : dbg.terms) {
    const glm::vec3 v(t.v[0], t.v[1], t.v[2]);
    arrows.arrow(p, p + s * v, {t.rgb[0], t.rgb[1], t.rgb[2], 1.0f}, view_dir);
  }
  arrows.arrow(p, p + s * glm::vec3(dbg.total[0], dbg.total[1], dbg.total[2]), {1, 1, 1, 1},
               view_dir);
  arrows.arrow(p, p + s * glm::vec3(dbg.applied[0], dbg.applied[1], dbg.applied[2]),
               {0.6f, 0.6f, 0.6f, 1}, view_dir);
  arrows.arrow(p, p + vel, {0.45f, 0.55f, 0.65f, 0.9f}, view_dir);
  app.renderer.draw_lines(over, vp, false);
  app.renderer.draw_lines(arrows, vp, false, flat ? 3.0f : 2.0f);
}

}  // namespace

void upload_frame(App& app) {
  const Frame& f = *app.frame;
  if (f.slot < 0) app.ring.stream().upload(f.count, f.inst.data());
  const DebugInfo& dbg = f.debug;
  gather(f, dbg.index >= 0 ? dbg.neighbours : std::vector<std::uint32_t>{},
         app.renderer.highlight());
  gather(f,
         dbg.index >= 0 ? std::vector<std::uint32_t>{std::uint32_t(dbg.index)}
                        : std::vector<std::uint32_t>{},
         app.renderer.selected());
  gather(f, f.special, app.renderer.special());
}

void draw_scene(App& app, int x0, int w, int h) {
  app.renderer.clear(x0, w, h);
  app.splat_busy = false;
  if (!app.frame) return;
  const Frame& f = *app.frame;
  const double aspect = double(w) / h;
  const glm::mat4 view = glm::mat4(app.camera.view());
  const glm::mat4 proj = glm::mat4(app.camera.proj(aspect));
  app.view_moved = view != app.last_view || proj != app.last_proj;
  app.last_view = view;
  app.last_proj = proj;
  const glm::mat4 vp = proj * view;
  const bool flat = f.dims == 2;
  const float L = float(f.def.size);

  LineBatch under;
  if (app.view.show_box && f.def.boundary != Boundary::open) {
    const glm::vec4 grey(0.45f, 0.5f, 0.58f, 0.6f);
    if (flat)
      under.box({0, 0, 0}, {L, L, 0}, grey);
    else
      under.box({0, 0, 0}, {L, L, L}, grey);
  }
  app.renderer.draw_lines(under, vp, !flat);

  GlyphParams gp;
  gp.view = view;
  gp.proj = proj;
  gp.ortho = flat;
  gp.size = app.view.glyph_size;
  gp.min_pixels = app.view.min_pixels;
  gp.world_per_pixel = float(app.camera.world_per_pixel(h));
  gp.color = app.view.color;
  gp.max_speed = float(f.def.kinds[0].motion.max_speed);
  gp.max_local = std::max(1.0f, f.max_local);
  gp.special_scale = app.view.special_scale;
  gp.glyph = app.glyph(f.count, h);

  InstanceSet& flock = f.slot >= 0 ? app.ring.set(f.slot) : app.ring.stream();
  flock.set_count(f.count);
  if (gp.glyph == Glyph::point) {
    SplatParams sp;
    sp.view = view;
    sp.proj = proj;
    sp.ortho = flat;
    sp.size = gp.size;
    sp.world_per_pixel = gp.world_per_pixel;
    sp.color = gp.color;
    sp.max_speed = gp.max_speed;
    sp.max_local = gp.max_local;
    sp.exposure = app.view.exposure;
    // Fog over the flock's depth: none at its near side, e^-2 at its far side.
    const glm::vec3 lo(f.lo[0], f.lo[1], f.lo[2]), hi(f.hi[0], f.hi[1], f.hi[2]);
    const float radius = 0.5f * glm::length(hi - lo);
    const float centre_depth = -(view * glm::vec4(0.5f * (lo + hi), 1.0f)).z;
    sp.fog_start = centre_depth - radius;
    sp.fog_length = app.view.fog > 0 ? std::max(radius, 1e-3f) / app.view.fog : 1e30f;
    // The flock's share of the scene: its box's projected rectangle.
    glm::vec2 smin(1e9f), smax(-1e9f);
    for (int c = 0; c < 8; ++c) {
      const glm::vec4 q =
          vp * glm::vec4(c & 1 ? hi.x : lo.x, c & 2 ? hi.y : lo.y, c & 4 ? hi.z : lo.z, 1.0f);
      if (q.w <= 0) {
        smin = glm::vec2(-1);
        smax = glm::vec2(1);
        break;
      }
      smin = glm::min(smin, glm::vec2(q) / q.w);
      smax = glm::max(smax, glm::vec2(q) / q.w);
    }
    smin = glm::clamp(smin, glm::vec2(-1), glm::vec2(1));
    smax = glm::clamp(smax, glm::vec2(-1), glm::vec2(1));
    sp.coverage = std::clamp(0.25f * (smax.x - smin.x) * (smax.y - smin.y), 0.01f, 1.0f);
    // Progressive (and so previewed while the camera moves) when a frame's chunk is not the
    // whole flock.
    app.splats.begin(w, h, f.serial, f.step, sp, f.count,
                     !app.splat_all && app.splat_budget < f.count);
    app.splats.accumulate(flock, app.splat_all ? 0 : app.splat_budget);
    app.splat_busy = app.splats.busy();
    // The flock's projected box in framebuffer pixels (a sprite's width of margin).
    const int scissor[4] = {x0 + int(std::floor((smin.x + 1) * 0.5f * float(w))) - 12,
                            int(std::floor((smin.y + 1) * 0.5f * float(h))) - 12,
                            int(std::ceil((smax.x - smin.x) * 0.5f * float(w))) + 24,
                            int(std::ceil((smax.y - smin.y) * 0.5f * float(h))) + 24};
    app.splats.resolve(scissor);
  } else {
    app.renderer.draw_glyphs(flock, f.dims, gp);
  }

  std::vector<Solid> solids;
  LineBatch outlines, markers;
  if (app.view.show_shapes) add_shapes(f.def, f.step, outlines, markers, solids);
  app.renderer.draw_solids(solids, view, proj, flat, {1.0f, 0.6f, 0.2f}, 0.35f);
  app.renderer.draw_lines(outlines, vp, !flat);

  // Predators and leaders over the flock, larger (special_scale) and in their own colours.
  if (gp.glyph == Glyph::point) {
    GlyphParams kp = gp;
    kp.glyph = flat ? Glyph::cone : Glyph::dart;
    kp.min_pixels = std::max(gp.min_pixels, 5.0f);
    glClear(GL_DEPTH_BUFFER_BIT);
    app.renderer.draw_glyphs(app.renderer.special(), f.dims, kp);
  }

  // The goal and the target over everything, never hidden by depth.
  draw_markers(app, markers, vp);
  draw_debug(app, f, gp, vp);
}

}  // namespace boids::view
