// Density splats: how the viewer draws large flocks so that dense cores and thin streams
// can be told apart.
//
// Every boid is one GL_POINTS sprite shaped as a short streak along its heading (projected
// to the screen), sized by its glyph length at its depth (size attenuation) and weighted by
// a depth fog in 3D. The sprites are added (blend ONE, ONE) into a float accumulation
// texture: rgb = sum of weighted colours, a = sum of weights. The resolve pass then maps each
// pixel's weight to brightness with an exposure tone curve, 1 - exp(-k a / mean), where mean is
// the average weight over the flock's pixels (from the texture's smallest mip level), and
// its colour to the weighted mean colour: brightness says how many boids, hue says what
// they do, whatever the colour mode.
//
// Because addition does not care about order, the accumulation is progressive: each UI frame
// adds the next chunk of boids (in id order, which is spatially random) and the resolve
// scales by n / drawn, so a partly accumulated picture is an unbiased, noisier estimate of
// the full one. The chunk size adapts to a frame-time budget (see main.cpp), which keeps the
// window at display rate even where one full draw of a million sprites takes a second (Mesa's
// llvmpipe); a new state or camera restarts the accumulation.
#pragma once

#include <epoxy/gl.h>

#include <cstddef>
#include <cstdint>
#include <glm/glm.hpp>
#include <string>

#include "viewer/renderer.hpp"

namespace boids::view {

struct SplatParams {
  glm::mat4 view{1}, proj{1};
  bool ortho = false;
  float size = 1.5f;              // glyph length (world units)
  float world_per_pixel = 0.01f;  // at view depth 1 (3D) or everywhere (2D)
  ColorMode color = ColorMode::kind;
  float max_speed = 4.f;
  float max_local = 1.f;
  float fog_start = 0.f, fog_length = 1e9f;  // view depth where fog starts, e-folding length
  float exposure = 1.f;                      // brightness of a pixel of mean density: 1-e^-x
  float coverage = 1.f;                      // fraction of the scene the flock covers
};

class SplatPass {
 public:
  std::string init();
  void destroy();

  /// Starts a new accumulation when anything that changes the picture changed (`serial` is
  /// the state's, the rest is compared as given). Call once per frame before accumulate().
  void begin(int width, int height, std::uint64_t serial, const SplatParams& p, std::size_t n);
  /// Adds up to `budget` more boids of `set` (all of them when budget is 0). Returns how many.
  std::size_t accumulate(const InstanceSet& set, std::size_t budget);
  bool complete() const { return drawn_ >= total_; }
  std::size_t drawn() const { return drawn_; }
  /// Draws the tone-mapped picture into the current viewport, blended over what is there,
  /// within the window rectangle `scissor` (x, y, w, h: the flock's projected box).
  void resolve(const int scissor[4]);

 private:
  GLuint prog_ = 0, resolve_prog_ = 0, fbo_ = 0, tex_ = 0, empty_vao_ = 0;
  int width_ = 0, height_ = 0, levels_ = 1;
  std::uint64_t serial_ = ~std::uint64_t(0);
  SplatParams params_;
  std::size_t drawn_ = 0, total_ = 0;
  bool mip_dirty_ = true;
  float mean_ = 0;              // mean weight per flock pixel, scaled to the whole flock
  std::size_t mean_drawn_ = 0;  // drawn_ when mean_ was measured
};

}  // namespace boids::view
