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
// llvmpipe).
//
// The resolved picture is kept in a texture of its own (the layer, premultiplied RGBA8), so
// a UI frame in which nothing new was added costs one textured quad, not a million sprites:
//  * a new view (camera moved, window resized, colour changed) starts over at once and shows
//    its first chunk, a level-of-detail sample of the flock weighted by n / drawn, then
//    refines while the camera rests;
//  * a new state seen the same way is added up behind the last finished picture, which stays
//    on screen (held) until the new one is complete: the still picture is always a whole
//    flock, never a noisy part of one. Meanwhile busy() asks the caller to keep newer states
//    waiting, so a flock that steps faster than it can be drawn is shown state after state,
//    each complete, instead of restarting forever.
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
  /// the state's, `step` its step count for the panel, the rest is compared as given). Call
  /// once per frame before accumulate(). `progressive`: drawn in budgeted chunks over frames,
  /// so a moving view may be previewed at half resolution (never for screenshots).
  void begin(int width, int height, std::uint64_t serial, std::uint64_t step, const SplatParams& p,
             std::size_t n, bool progressive = true);
  /// Adds up to `budget` more boids of `set` (all of them when budget is 0). Returns how many.
  /// With a budget it waits for the chunk to be drawn and times it (chunk_ms()).
  std::size_t accumulate(const InstanceSet& set, std::size_t budget);
  /// The last budgeted chunk: its boids and the milliseconds it took (0 when none).
  std::size_t chunk() const { return chunk_; }
  double chunk_ms() const { return chunk_ms_; }
  bool complete() const { return drawn_ >= total_; }
  /// A state is being added up for a view that did not change: hand over no newer state yet.
  bool busy() const { return !complete() && !view_changed_; }
  /// The finished picture of an older state is on screen while this one is added up.
  bool holding() const { return hold_ && !complete(); }
  std::size_t drawn() const { return drawn_; }
  /// Step count of the state on screen.
  std::uint64_t shown_step() const { return layer_step_; }
  /// Draws the tone-mapped picture into the current viewport, blended over what is there,
  /// within the window rectangle `scissor` (x, y, w, h: the flock's projected box). Resolves
  /// the accumulation into the layer first when it has something new to show.
  void resolve(const int scissor[4]);

 private:
  void resolve_layer(const int scissor[4]);
  // The part of the accumulation in use: all of it, or half of each side for a preview.
  int acc_width() const { return (width_ + div_ - 1) / div_; }
  int acc_height() const { return (height_ + div_ - 1) / div_; }
  GLuint prog_ = 0, resolve_prog_ = 0, compose_prog_ = 0, fbo_ = 0, tex_ = 0, empty_vao_ = 0;
  GLuint layer_fbo_ = 0, layer_tex_ = 0;
  int width_ = 0, height_ = 0, levels_ = 1;
  int div_ = 1, layer_div_ = 1;  // pixels per accumulation / layer texel along each side
  std::uint64_t serial_ = ~std::uint64_t(0), step_ = 0, layer_step_ = 0;
  SplatParams params_;
  std::size_t drawn_ = 0, total_ = 0, chunk_ = 0, layer_drawn_ = 0;
  double chunk_ms_ = 0;
  bool mip_dirty_ = true;
  bool view_changed_ = true;     // the last begin() started over for a new view
  bool hold_ = false;            // the layer shows the last state complete; keep it until done
  bool layer_dirty_ = true;      // the accumulation or the tone curve changed since the layer
  bool layer_valid_ = false;     // the layer holds a picture (of this size)
  bool layer_complete_ = false;  // ... of a whole flock
  float layer_exposure_ = -1, layer_mean_ = -1;
  int layer_scissor_[4] = {0, 0, 0, 0};
  float mean_ = 0;              // mean weight per flock pixel, scaled to the whole flock
  std::size_t mean_drawn_ = 0;  // drawn_ when mean_ was measured
};

}  // namespace boids::view
