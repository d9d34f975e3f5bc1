#include "viewer/density.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <glm/gtc/type_ptr.hpp>

namespace boids::view {

namespace {

const char* kSplatVs = R"(
layout(location = 2) in vec3 i_pos;
layout(location = 3) in vec3 i_vel;
layout(location = 4) in float i_kind;
layout(location = 5) in float i_local;
uniform mat4 u_view;
uniform mat4 u_proj;
uniform float u_size;
uniform float u_wpp;
uniform vec2 u_viewport;
uniform float u_px;  // full-resolution pixels per target pixel (2 for the moving preview)
uniform float u_fog_start;
uniform float u_fog_length;
out vec3 v_color;
out float v_weight;
flat out vec2 v_dir;
flat out float v_len;
flat out float v_size;

void main() {
  vec4 pv = u_view * vec4(i_pos, 1.0);
  vec4 c = u_proj * pv;
  gl_Position = c;
  float depth = u_ortho == 1 ? 1.0 : max(-pv.z, 1e-6);
  float len_px = u_size / (u_ortho == 1 ? u_wpp : u_wpp * depth);
  // 2 to 20 full-resolution pixels, so a preview's weights per pixel match the full picture's.
  float sz = clamp(len_px, 2.0 / u_px, 20.0 / u_px);
  gl_PointSize = sz;
  v_size = sz * u_px;
  float speed = length(i_vel);
  vec3 f = speed > 1e-20 ? i_vel / speed : vec3(1.0, 0.0, 0.0);
  vec4 c2 = u_proj * (u_view * vec4(i_pos + f * u_size * 0.5, 1.0));
  vec2 d = (c2.xy / c2.w - c.xy / max(c.w, 1e-6)) * u_viewport * 0.5;
  float dl = length(d);
  v_dir = dl > 1e-6 ? d / dl : vec2(1.0, 0.0);
  v_len = clamp(dl / (0.5 * sz), 0.0, 1.0);  // streak half-length, in sprite radii
  v_weight = u_ortho == 1 ? 1.0 : exp(-max(depth - u_fog_start, 0.0) / u_fog_length);
  v_color = boid_colour(i_kind, i_vel, i_local);
}
)";

const char* kSplatFs = R"(#version 330 core
in vec3 v_color;
in float v_weight;
flat in vec2 v_dir;
flat in float v_len;
flat in float v_size;
out vec4 o_color;
void main() {
  vec2 q = gl_PointCoord * 2.0 - 1.0;
  q.y = -q.y;
  float along = dot(q, v_dir), across = dot(q, vec2(-v_dir.y, v_dir.x));
  // A capsule along the heading, brighter towards the head.
  float L = 0.75 * v_len;
  float t = clamp(along, -L, L);
  float dist = length(vec2(along - t, across));
  // Sprites of a few pixels cannot show a streak: they are filled.
  float a = v_size < 4.0 ? 1.0 : 1.0 - smoothstep(0.3, 0.6, dist);
  if (a <= 0.0) discard;
  float head = L > 0.05 ? 0.5 + 0.5 * clamp((along + L) / (2.0 * L), 0.0, 1.0) : 1.0;
  float w = a * head * v_weight;
  o_color = vec4(v_color * w, w);
}
)";

const char* kResolveVs = R"(#version 330 core
out vec2 v_uv;
void main() {
  vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
  v_uv = p * 0.5 + 0.5;
  gl_Position = vec4(p, 0.0, 1.0);
}
)";

const char* kResolveFs = R"(#version 330 core
in vec2 v_uv;
uniform sampler2D u_accum;
uniform float u_scale;      // n / drawn
uniform float u_exposure;
uniform float u_mean;       // mean weight over the flock's pixels (at n / drawn = 1)
uniform vec2 u_uv_scale;    // the part of the accumulation in use (a preview: about half)
out vec4 o_color;
void main() {
  vec4 s = texture(u_accum, v_uv * u_uv_scale);
  if (s.a <= 1e-6) discard;
  // Logarithmic: one boid is still visible (about a fifth of full brightness) and a core
  // of sixteen times the flock's mean density is white-hot, whatever the flock's size.
  float a = s.a * u_scale;
  float mean = u_mean * u_scale;
  const float a0 = 0.25;
  float top = max(16.0 * mean / u_exposure, 4.0 * a0);
  float b = clamp(log(1.0 + a / a0) / log(1.0 + top / a0), 0.0, 1.0);
  vec3 col = s.rgb / s.a;
  col = mix(col, vec3(1.0), 0.45 * b * b * b * b);  // dense cores glow towards white
  o_color = vec4(col * b, b);  // premultiplied
}
)";

// The layer over the scene: texel for texel, premultiplied.
const char* kComposeFs = R"(#version 330 core
uniform sampler2D u_layer;
uniform ivec2 u_origin;  // the viewport's lower left corner, window pixels
uniform int u_div;       // window pixels per layer texel (2 for the moving preview)
out vec4 o_color;
void main() { o_color = texelFetch(u_layer, (ivec2(gl_FragCoord.xy) - u_origin) / u_div, 0); }
)";

bool same(const SplatParams& a, const SplatParams& b) {
  return std::memcmp(glm::value_ptr(a.view), glm::value_ptr(b.view), sizeof(a.view)) == 0 &&
         std::memcmp(glm::value_ptr(a.proj), glm::value_ptr(b.proj), sizeof(a.proj)) == 0 &&
         a.ortho == b.ortho && a.size == b.size && a.world_per_pixel == b.world_per_pixel &&
         a.color == b.color && a.max_speed == b.max_speed && a.max_local == b.max_local &&
         a.fog_start == b.fog_start && a.fog_length == b.fog_length;
}

}  // namespace

std::string SplatPass::init() {
  std::string err;
  prog_ = link_program((std::string("#version 330 core\n") + kColourGlsl + kSplatVs).c_str(),
                       kSplatFs, err);
  if (!err.empty()) return err;
  resolve_prog_ = link_program(kResolveVs, kResolveFs, err);
  if (!err.empty()) return err;
  compose_prog_ = link_program(kResolveVs, kComposeFs, err);
  if (!err.empty()) return err;
  glGenVertexArrays(1, &empty_vao_);
  return "";
}

void SplatPass::destroy() {
  if (tex_) glDeleteTextures(1, &tex_);
  if (fbo_) glDeleteFramebuffers(1, &fbo_);
  if (layer_tex_) glDeleteTextures(1, &layer_tex_);
  if (layer_fbo_) glDeleteFramebuffers(1, &layer_fbo_);
  for (GLuint* prog : {&prog_, &resolve_prog_, &compose_prog_})
    if (*prog) glDeleteProgram(*prog);
  if (empty_vao_) glDeleteVertexArrays(1, &empty_vao_);
  tex_ = fbo_ = layer_tex_ = layer_fbo_ = prog_ = resolve_prog_ = compose_prog_ = empty_vao_ = 0;
}

namespace {

// A render target texture, sampled nearest (with mip levels, made by glGenerateMipmap, when
// `mips`), attached to `fbo` (created when 0).
GLuint target(GLuint& fbo, GLint internal, GLenum type, int width, int height, bool mips) {
  GLuint tex = 0;
  if (!fbo) glGenFramebuffers(1, &fbo);
  glGenTextures(1, &tex);
  glBindTexture(GL_TEXTURE_2D, tex);
  glTexImage2D(GL_TEXTURE_2D, 0, internal, width, height, 0, GL_RGBA, type, nullptr);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER,
                  mips ? GL_NEAREST_MIPMAP_NEAREST : GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  return tex;
}

}  // namespace

void SplatPass::begin(int width, int height, std::uint64_t serial, std::uint64_t step,
                      const SplatParams& p, std::size_t n, bool progressive) {
  const bool resized = width != width_ || height != height_;
  if (resized) {
    if (tex_) glDeleteTextures(1, &tex_);
    if (layer_tex_) glDeleteTextures(1, &layer_tex_);
    width_ = width;
    height_ = height;
    levels_ = 1 + int(std::floor(std::log2(double(std::max(width, height)))));
    tex_ = target(fbo_, GL_RGBA32F, GL_FLOAT, width, height, true);
    layer_tex_ = target(layer_fbo_, GL_RGBA8, GL_UNSIGNED_BYTE, width, height, false);
    layer_valid_ = layer_complete_ = false;
    mean_ = 0;
  }
  const float exposure = p.exposure, coverage = p.coverage;
  const bool view_changed = resized || !same(p, params_) || n != total_;
  // A moving view is previewed at half resolution (a quarter of the pixels to clear, splat
  // and resolve); one that rests starts over at full resolution.
  const int div = progressive && view_changed && !resized && mean_ > 0 ? 2 : 1;
  if (view_changed || serial != serial_ || div != div_) {
    // The mean weight: a new view keeps the last one until it rests (it changes little from
    // one frame of a camera move to the next, and measuring costs a mipmap and a read-back),
    // a new count measures it again at once, and a new state seen the same way keeps it
    // until its accumulation completes (no read-back stall per state).
    if (n != total_) mean_ = 0;
    mean_drawn_ = view_changed || div != div_ ? 0 : n;
    // A new state seen the same way: the finished picture stays until the new one is done.
    hold_ = !view_changed && div == div_ && layer_complete_;
    div_ = div;
    serial_ = serial;
    step_ = step;
    params_ = p;
    total_ = n;
    drawn_ = 0;
    GLint vp[4];
    glGetIntegerv(GL_VIEWPORT, vp);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
    glViewport(0, 0, width_, height_);
    glClearColor(0, 0, 0, 0);
    if (div_ > 1) {
      glEnable(GL_SCISSOR_TEST);
      glScissor(0, 0, acc_width(), acc_height());
    }
    glClear(GL_COLOR_BUFFER_BIT);
    glDisable(GL_SCISSOR_TEST);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(vp[0], vp[1], vp[2], vp[3]);
    mip_dirty_ = true;
    layer_dirty_ = true;
  }
  view_changed_ = view_changed;
  params_.exposure = exposure;  // these only change the resolve
  params_.coverage = coverage;
}

std::size_t SplatPass::accumulate(const InstanceSet& set, std::size_t budget) {
  chunk_ = 0;
  chunk_ms_ = 0;
  if (drawn_ >= total_ || set.count() < total_) return 0;
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t first = drawn_;
  const std::size_t count = budget == 0 ? total_ - first : std::min(budget, total_ - first);
  GLint vp[4];
  glGetIntegerv(GL_VIEWPORT, vp);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glViewport(0, 0, acc_width(), acc_height());
  glDisable(GL_DEPTH_TEST);
  glEnable(GL_BLEND);
  glBlendFunc(GL_ONE, GL_ONE);
  glEnable(GL_PROGRAM_POINT_SIZE);
  glUseProgram(prog_);
  auto loc = [this](const char* name) { return glGetUniformLocation(prog_, name); };
  const SplatParams& p = params_;
  glUniformMatrix4fv(loc("u_view"), 1, GL_FALSE, glm::value_ptr(p.view));
  glUniformMatrix4fv(loc("u_proj"), 1, GL_FALSE, glm::value_ptr(p.proj));
  glUniform1i(loc("u_ortho"), p.ortho ? 1 : 0);
  glUniform1f(loc("u_size"), p.size);
  glUniform1f(loc("u_wpp"), p.world_per_pixel * float(div_));
  glUniform1f(loc("u_px"), float(div_));
  glUniform2f(loc("u_viewport"), float(acc_width()), float(acc_height()));
  glUniform1f(loc("u_fog_start"), p.fog_start);
  glUniform1f(loc("u_fog_length"), p.fog_length);
  glUniform1i(loc("u_color_mode"), int(p.color));
  glUniform1f(loc("u_max_speed"), p.max_speed);
  glUniform1f(loc("u_max_local"), p.max_local);
  glBindVertexArray(set.point_vao());
  glDrawArrays(GL_POINTS, GLint(first), GLsizei(count));
  glBindVertexArray(0);
  glDisable(GL_BLEND);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glViewport(vp[0], vp[1], vp[2], vp[3]);
  if (budget > 0) {
    glFinish();  // the chunk's own cost, which the caller adapts the next budget to
    chunk_ = count;
    chunk_ms_ =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  drawn_ += count;
  mip_dirty_ = true;
  layer_dirty_ = true;
  return count;
}

void SplatPass::resolve(const int scissor[4]) {
  if (!tex_) return;
  const bool show_new = drawn_ > 0 && !holding();
  if (show_new) {
    // The mean weight: the smallest mip level, read back once per change of the
    // accumulation (a 1x1 read; while accumulating for a resting view, only when the drawn
    // count has doubled since; not while the camera moves).
    // (A preview's accumulation fills a quarter of the texture: it is never measured.)
    if (mip_dirty_ && div_ == 1 &&
        (mean_ <= 0 || complete() || (!view_changed_ && drawn_ >= 2 * mean_drawn_))) {
      glBindTexture(GL_TEXTURE_2D, tex_);
      glGenerateMipmap(GL_TEXTURE_2D);
      float px[4] = {0, 0, 0, 0};
      glGetTexImage(GL_TEXTURE_2D, levels_ - 1, GL_RGBA, GL_FLOAT, px);
      mean_ = px[3] / std::max(params_.coverage, 1e-3f) * float(double(total_) / double(drawn_));
      mean_drawn_ = drawn_;
      mip_dirty_ = false;
    }
    // While a resting view fills in, the layer follows in steps of a quarter more boids (a
    // resolve reads the whole float accumulation; each frame's would cost as much as its chunk).
    const bool grown = complete() || view_changed_ || drawn_ >= layer_drawn_ + layer_drawn_ / 4;
    if ((layer_dirty_ && grown) || params_.exposure != layer_exposure_ || mean_ != layer_mean_)
      resolve_layer(scissor);
  }
  if (!layer_valid_) return;
  // Composite the layer over the scene, within the flock's rectangle.
  GLint vp[4];
  glGetIntegerv(GL_VIEWPORT, vp);
  glEnable(GL_SCISSOR_TEST);
  glScissor(layer_scissor_[0], layer_scissor_[1], layer_scissor_[2], layer_scissor_[3]);
  glDisable(GL_DEPTH_TEST);
  glEnable(GL_BLEND);
  glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glUseProgram(compose_prog_);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, layer_tex_);
  glUniform1i(glGetUniformLocation(compose_prog_, "u_layer"), 0);
  glUniform2i(glGetUniformLocation(compose_prog_, "u_origin"), vp[0], vp[1]);
  glUniform1i(glGetUniformLocation(compose_prog_, "u_div"), layer_div_);
  glBindVertexArray(empty_vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glDisable(GL_BLEND);
  glDisable(GL_SCISSOR_TEST);
}

// Tone-maps the accumulation into the layer (premultiplied; zero where no boid is).
void SplatPass::resolve_layer(const int scissor[4]) {
  GLint vp[4];
  glGetIntegerv(GL_VIEWPORT, vp);
  glBindFramebuffer(GL_FRAMEBUFFER, layer_fbo_);
  glViewport(0, 0, acc_width(), acc_height());
  glEnable(GL_SCISSOR_TEST);
  glScissor(0, 0, acc_width(), acc_height());
  glClearColor(0, 0, 0, 0);
  glClear(GL_COLOR_BUFFER_BIT);
  // Only the flock's rectangle has anything to resolve (scissor is in window pixels).
  const int d = div_;
  glScissor((scissor[0] - vp[0]) / d - 1, (scissor[1] - vp[1]) / d - 1, scissor[2] / d + 2,
            scissor[3] / d + 2);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  glUseProgram(resolve_prog_);
  auto loc = [this](const char* name) { return glGetUniformLocation(resolve_prog_, name); };
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, tex_);
  glUniform1i(loc("u_accum"), 0);
  glUniform1f(loc("u_scale"), float(double(total_) / double(drawn_)));
  glUniform1f(loc("u_exposure"), params_.exposure);
  glUniform1f(loc("u_mean"), mean_ * float(double(drawn_) / double(total_)));
  glUniform2f(loc("u_uv_scale"), float(acc_width()) / float(width_),
              float(acc_height()) / float(height_));
  glBindVertexArray(empty_vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glDisable(GL_SCISSOR_TEST);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glViewport(vp[0], vp[1], vp[2], vp[3]);
  std::copy(scissor, scissor + 4, layer_scissor_);
  layer_valid_ = true;
  layer_complete_ = complete() && div_ == 1;
  layer_step_ = step_;
  layer_drawn_ = drawn_;
  layer_div_ = div_;
  layer_dirty_ = false;
  layer_exposure_ = params_.exposure;
  layer_mean_ = mean_;
  if (layer_complete_) hold_ = false;
}

}  // namespace boids::view
