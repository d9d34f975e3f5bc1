#include "viewer/renderer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>

namespace boids::view {

namespace {

// Floats per line vertex: position, colour, other end, (end, side).
constexpr int kLineFloats = 12;

// Vertex attributes: mesh position and normal, then the interleaved instance data.
enum : GLuint {
  kAttrVert = 0,
  kAttrNormal = 1,
  kAttrPos = 2,
  kAttrVel = 3,
  kAttrKind = 4,
  kAttrLocal = 5
};

const char* kGlyphVs = R"(
layout(location = 0) in vec3 a_vert;    // glyph space: x forward, y side, z up; length 1
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec3 i_pos;
layout(location = 3) in vec3 i_vel;
layout(location = 4) in float i_kind;
layout(location = 5) in float i_local;
uniform mat4 u_view;
uniform mat4 u_proj;
uniform float u_size;
uniform float u_min_px;
uniform float u_wpp;
uniform float u_scale;
uniform float u_special_scale;
uniform vec4 u_override;
out vec3 v_color;
out vec3 v_normal;

void main() {
  vec3 p = i_pos;
  vec3 v = i_vel;
  float speed = length(v);
  vec3 f = speed > 1e-20 ? v / speed : vec3(1.0, 0.0, 0.0);
  vec4 pv = u_view * vec4(p, 1.0);
  float wpp = u_ortho == 1 ? u_wpp : u_wpp * max(-pv.z, 1e-6);
  vec3 ref = abs(f.z) < 0.99 ? vec3(0.0, 0.0, 1.0) : vec3(0.0, 1.0, 0.0);
  vec3 s = normalize(cross(ref, f));
  vec3 u = cross(f, s);
  float sc = u_scale * (i_kind > 0.5 ? u_special_scale : 1.0);
  float len = max(u_size, u_min_px * wpp) * sc;
  vec3 w = p + len * (a_vert.x * f + a_vert.y * s + a_vert.z * u);
  gl_Position = u_proj * u_view * vec4(w, 1.0);
  v_normal = mat3(u_view) * (a_normal.x * f + a_normal.y * s + a_normal.z * u);
  v_color = u_override.a > 0.0 ? u_override.rgb : boid_colour(i_kind, v, i_local);
}
)";

// Obstacles: a unit mesh placed by u_model, lit by its normal, translucent.
const char* kSolidVs = R"(#version 330 core
layout(location = 0) in vec3 a_vert;
layout(location = 1) in vec3 a_normal;
uniform mat4 u_model;
uniform mat4 u_view;
uniform mat4 u_proj;
out vec3 v_normal;
void main() {
  gl_Position = u_proj * u_view * u_model * vec4(a_vert, 1.0);
  v_normal = mat3(u_view) * a_normal;
}
)";

const char* kSolidFs = R"(#version 330 core
in vec3 v_normal;
uniform vec4 u_rgba;
uniform int u_flat;
out vec4 o_color;
void main() {
  vec3 n = normalize(v_normal);
  float d = u_flat == 1 ? 1.0 : max(dot(n, normalize(vec3(0.35, 0.55, 0.76))), 0.0);
  float rim = u_flat == 1 ? 0.0 : pow(1.0 - abs(n.z), 3.0);  // brighter silhouette
  o_color = vec4(u_rgba.rgb * (0.3 + 0.7 * d) + 0.25 * rim, u_rgba.a);
}
)";

}  // namespace

const char* const kColourGlsl = R"(
uniform int u_ortho;
uniform int u_color_mode;
uniform float u_max_speed;
uniform float u_max_local;

vec3 hsv(float h, float s, float v) {
  vec3 k = clamp(abs(mod(h * 6.0 + vec3(0.0, 4.0, 2.0), 6.0) - 3.0) - 1.0, 0.0, 1.0);
  return v * mix(vec3(1.0), k, s);
}

vec3 ramp(float t) {  // dark blue -> cyan -> yellow -> red
  vec3 a = vec3(0.16, 0.26, 0.85), b = vec3(0.10, 0.80, 0.90);
  vec3 c = vec3(1.00, 0.88, 0.20), d = vec3(1.00, 0.25, 0.15);
  if (t < 1.0 / 3.0) return mix(a, b, t * 3.0);
  if (t < 2.0 / 3.0) return mix(b, c, t * 3.0 - 1.0);
  return mix(c, d, t * 3.0 - 2.0);
}

vec3 boid_colour(float kind, vec3 v, float local) {
  int k = int(kind + 0.5);
  // Predators and leaders keep their colours in every mode, so they stand out.
  if (k == 1) return vec3(1.0, 0.30, 0.25);
  if (k == 2) return vec3(1.0, 0.80, 0.20);
  float speed = length(v);
  if (u_color_mode == 1) return ramp(clamp(speed / max(u_max_speed, 1e-20), 0.0, 1.0));
  if (u_color_mode == 2) {
    vec3 f = speed > 1e-20 ? v / speed : vec3(1.0, 0.0, 0.0);
    float h = atan(f.y, f.x) / 6.28318530718 + 0.5;
    vec3 c = hsv(h, 0.75, 1.0);
    if (u_ortho == 0) c = f.z > 0.0 ? mix(c, vec3(1.0), f.z * 0.7) : mix(c, vec3(0.1), -f.z * 0.7);
    return c;
  }
  if (u_color_mode == 3) return ramp(clamp(local / max(u_max_local, 1.0), 0.0, 1.0));
  return vec3(0.35, 0.75, 1.0);
}
)";

namespace {

const char* kGlyphFs = R"(#version 330 core
in vec3 v_color;
in vec3 v_normal;
uniform int u_ortho;
out vec4 o_color;
void main() {
  if (u_ortho == 1) {
    o_color = vec4(v_color, 1.0);
    return;
  }
  vec3 n = normalize(v_normal);
  float d = abs(dot(n, normalize(vec3(0.35, 0.55, 0.76))));
  o_color = vec4(v_color * (0.35 + 0.65 * d), 1.0);
}
)";

// Lines: thin ones as GL_LINES; wide ones (the debug arrows) as two triangles per segment,
// pushed apart in screen space, since core profile GL has no wide lines.
const char* kLineVs = R"(#version 330 core
layout(location = 0) in vec3 a_pos;     // this end
layout(location = 1) in vec4 a_color;
layout(location = 2) in vec3 a_other;   // the other end
layout(location = 3) in vec2 a_params;  // (0 at the first end / 1 at the second, side -1/+1)
uniform mat4 u_vp;
uniform vec2 u_viewport;
uniform float u_width;
out vec4 v_color;
void main() {
  vec4 c = u_vp * vec4(a_pos, 1.0);
  v_color = a_color;
  if (u_width > 1.0) {
    vec4 o = u_vp * vec4(a_other, 1.0);
    vec2 sc = c.xy / max(c.w, 1e-6) * u_viewport;
    vec2 so = o.xy / max(o.w, 1e-6) * u_viewport;
    vec2 d = a_params.x < 0.5 ? so - sc : sc - so;
    float len = length(d);
    vec2 n = len > 0.0 ? vec2(-d.y, d.x) / len : vec2(0.0, 1.0);
    c.xy += n * a_params.y * u_width / u_viewport * c.w;
  }
  gl_Position = c;
}
)";

const char* kLineFs = R"(#version 330 core
in vec4 v_color;
out vec4 o_color;
void main() { o_color = v_color; }
)";

GLuint compile(GLenum type, const char* src, std::string& err) {
  const GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &src, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048];
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    err = std::string("shader compile error: ") + log;
  }
  return s;
}

GLuint link(const char* vs, const char* fs, std::string& err) {
  const GLuint v = compile(GL_VERTEX_SHADER, vs, err);
  const GLuint f = compile(GL_FRAGMENT_SHADER, fs, err);
  const GLuint p = glCreateProgram();
  glAttachShader(p, v);
  glAttachShader(p, f);
  glLinkProgram(p);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok && err.empty()) {
    char log[2048];
    glGetProgramInfoLog(p, sizeof log, nullptr, log);
    err = std::string("shader link error: ") + log;
  }
  glDeleteShader(v);
  glDeleteShader(f);
  return p;
}

}  // namespace

void InstanceSet::create(GLuint mesh_vbo) {
  glGenBuffers(1, &vbo_);
  own_ = true;
  setup(mesh_vbo, vbo_);
}

void InstanceSet::attach(GLuint mesh_vbo, GLuint buffer) {
  own_ = false;
  vbo_ = buffer;
  setup(mesh_vbo, buffer);
}

// Two vertex arrays read the same instance data: per instance (divisor 1) for glyph meshes,
// and per vertex (divisor 0) for splats, one GL_POINTS vertex per boid.
void InstanceSet::setup(GLuint mesh_vbo, GLuint buffer) {
  if (!vao_) glGenVertexArrays(1, &vao_);
  if (!point_vao_) glGenVertexArrays(1, &point_vao_);
  for (int divisor = 1; divisor >= 0; --divisor) {
    glBindVertexArray(divisor ? vao_ : point_vao_);
    if (divisor) {
      glBindBuffer(GL_ARRAY_BUFFER, mesh_vbo);
      glEnableVertexAttribArray(kAttrVert);
      glVertexAttribPointer(kAttrVert, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), nullptr);
      glEnableVertexAttribArray(kAttrNormal);
      glVertexAttribPointer(kAttrNormal, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float),
                            reinterpret_cast<const void*>(3 * sizeof(float)));
    }
    glBindBuffer(GL_ARRAY_BUFFER, buffer);
    const GLsizei stride = GLsizei(kInstanceStride);
    const GLuint attr[4] = {kAttrPos, kAttrVel, kAttrKind, kAttrLocal};
    const GLint size[4] = {3, 3, 1, 1};
    const std::size_t offset[4] = {0, 3, 6, 7};
    for (int a = 0; a < 4; ++a) {
      glEnableVertexAttribArray(attr[a]);
      glVertexAttribPointer(attr[a], size[a], GL_FLOAT, GL_FALSE, stride,
                            reinterpret_cast<const void*>(offset[a] * sizeof(float)));
      glVertexAttribDivisor(attr[a], GLuint(divisor));
    }
  }
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

void InstanceSet::destroy() {
  if (vbo_ && own_) glDeleteBuffers(1, &vbo_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
  if (point_vao_) glDeleteVertexArrays(1, &point_vao_);
  vao_ = point_vao_ = vbo_ = 0;
  count_ = 0;
}

void InstanceSet::upload(std::size_t n, const float* data) {
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  const std::size_t bytes = n * kInstanceStride;
  // Orphan the old storage so the driver never waits for the previous frame's draw.
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(std::max<std::size_t>(bytes, 16)), nullptr,
               GL_STREAM_DRAW);
  if (n > 0) glBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(bytes), data);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  count_ = n;
}

std::string Renderer::init() {
  std::string err;
  const char* name = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  renderer_name_ = name ? name : "?";
  software_ = is_software_renderer(renderer_name_);
  glyph_prog_ =
      link((std::string("#version 330 core\n") + kColourGlsl + kGlyphVs).c_str(), kGlyphFs, err);
  if (!err.empty()) return err;
  line_prog_ = link(kLineVs, kLineFs, err);
  if (!err.empty()) return err;
  solid_prog_ = link(kSolidVs, kSolidFs, err);
  if (!err.empty()) return err;

  std::vector<float> mesh;
  build_meshes(mesh, mesh_first_, mesh_count_);
  glGenBuffers(1, &mesh_vbo_);
  glBindBuffer(GL_ARRAY_BUFFER, mesh_vbo_);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(mesh.size() * sizeof(float)), mesh.data(),
               GL_STATIC_DRAW);
  highlight_.create(mesh_vbo_);
  selected_.create(mesh_vbo_);
  special_.create(mesh_vbo_);
  glGenVertexArrays(1, &solid_vao_);
  glBindVertexArray(solid_vao_);
  glBindBuffer(GL_ARRAY_BUFFER, mesh_vbo_);
  glEnableVertexAttribArray(kAttrVert);
  glVertexAttribPointer(kAttrVert, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), nullptr);
  glEnableVertexAttribArray(kAttrNormal);
  glVertexAttribPointer(kAttrNormal, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float),
                        reinterpret_cast<const void*>(3 * sizeof(float)));

  glGenVertexArrays(1, &line_vao_);
  glGenBuffers(1, &line_vbo_);
  glBindVertexArray(line_vao_);
  glBindBuffer(GL_ARRAY_BUFFER, line_vbo_);
  const GLsizei stride = kLineFloats * sizeof(float);
  const GLint sizes[4] = {3, 4, 3, 2};
  std::size_t offset = 0;
  for (GLuint a = 0; a < 4; ++a) {
    glEnableVertexAttribArray(a);
    glVertexAttribPointer(a, sizes[a], GL_FLOAT, GL_FALSE, stride,
                          reinterpret_cast<const void*>(offset * sizeof(float)));
    offset += std::size_t(sizes[a]);
  }
  glBindVertexArray(0);
  return "";
}

void Renderer::shutdown() {
  highlight_.destroy();
  selected_.destroy();
  special_.destroy();
  if (mesh_vbo_) glDeleteBuffers(1, &mesh_vbo_);
  if (line_vbo_) glDeleteBuffers(1, &line_vbo_);
  if (line_vao_) glDeleteVertexArrays(1, &line_vao_);
  if (solid_vao_) glDeleteVertexArrays(1, &solid_vao_);
  if (glyph_prog_) glDeleteProgram(glyph_prog_);
  if (line_prog_) glDeleteProgram(line_prog_);
  if (solid_prog_) glDeleteProgram(solid_prog_);
  mesh_vbo_ = line_vbo_ = line_vao_ = solid_vao_ = glyph_prog_ = line_prog_ = solid_prog_ = 0;
}

void Renderer::clear(int x0, int width, int height) {
  glDisable(GL_SCISSOR_TEST);
  glViewport(0, 0, x0 + width, height);
  glClearColor(0.055f, 0.063f, 0.086f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glViewport(x0, 0, width, height);
}

void Renderer::draw_glyphs(const InstanceSet& set, int dims, const GlyphParams& p) {
  if (set.count() == 0) return;
  if (dims == 3) {
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
  } else {
    glDisable(GL_DEPTH_TEST);
  }
  glDisable(GL_CULL_FACE);
  const GLuint prog = glyph_prog_;
  glUseProgram(prog);
  auto loc = [prog](const char* name) { return glGetUniformLocation(prog, name); };
  glUniformMatrix4fv(loc("u_view"), 1, GL_FALSE, glm::value_ptr(p.view));
  glUniformMatrix4fv(loc("u_proj"), 1, GL_FALSE, glm::value_ptr(p.proj));
  glUniform1i(loc("u_ortho"), p.ortho ? 1 : 0);
  glUniform1f(loc("u_size"), p.size);
  glUniform1f(loc("u_min_px"), p.min_pixels);
  glUniform1f(loc("u_wpp"), p.world_per_pixel);
  glUniform1f(loc("u_scale"), p.scale);
  glUniform1f(loc("u_special_scale"), p.special_scale);
  glUniform1i(loc("u_color_mode"), int(p.color));
  glUniform1f(loc("u_max_speed"), p.max_speed);
  glUniform1f(loc("u_max_local"), p.max_local);
  glUniform4fv(loc("u_override"), 1, glm::value_ptr(p.override_rgba));
  glBindVertexArray(set.vao());
  // The point glyph means density splats for the flock; the few glyphs drawn here then
  // (predators, leaders, the debug view's boids) are darts.
  const int mesh = dims == 2 ? 0 : p.glyph == Glyph::cone ? 1 : 2;
  glDrawArraysInstanced(GL_TRIANGLES, mesh_first_[mesh], mesh_count_[mesh], GLsizei(set.count()));
  glBindVertexArray(0);
}

void Renderer::draw_solids(const std::vector<Solid>& solids, const glm::mat4& view,
                           const glm::mat4& proj, bool flat, const glm::vec3& rgb, float alpha) {
  if (solids.empty()) return;
  glUseProgram(solid_prog_);
  auto loc = [this](const char* name) { return glGetUniformLocation(solid_prog_, name); };
  glUniformMatrix4fv(loc("u_view"), 1, GL_FALSE, glm::value_ptr(view));
  glUniformMatrix4fv(loc("u_proj"), 1, GL_FALSE, glm::value_ptr(proj));
  glUniform4f(loc("u_rgba"), rgb.r, rgb.g, rgb.b, alpha);
  glUniform1i(loc("u_flat"), flat ? 1 : 0);
  if (flat) {
    glDisable(GL_DEPTH_TEST);
  } else {
    glEnable(GL_DEPTH_TEST);
  }
  glDepthMask(GL_FALSE);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glBindVertexArray(solid_vao_);
  for (const Solid& s : solids) {
    glm::mat4 m(1.0f);
    int mesh;
    if (s.sphere) {
      m = glm::translate(m, s.lo);
      m = glm::scale(m, glm::vec3(s.hi.x));
      mesh = flat ? 5 : 3;
    } else {
      m = glm::translate(m, s.lo);
      glm::vec3 ext = s.hi - s.lo;
      if (flat) ext.z = 1;
      m = glm::scale(m, ext);
      mesh = 4;
    }
    glUniformMatrix4fv(loc("u_model"), 1, GL_FALSE, glm::value_ptr(m));
    glDrawArrays(GL_TRIANGLES, mesh_first_[mesh], mesh_count_[mesh]);
  }
  glBindVertexArray(0);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
}

void Renderer::draw_lines(const LineBatch& lines, const glm::mat4& view_proj, bool depth_test,
                          float width_px) {
  const auto& d = lines.data();
  if (d.empty()) return;
  // Expand the (position, colour) pairs into vertices that know their segment's other end.
  const bool wide = width_px > 1.0f;
  std::vector<float>& v = line_scratch_;
  v.clear();
  auto put = [&v](const float* self, const float* other, float end, float side) {
    v.insert(v.end(), self, self + 7);  // position, colour
    v.insert(v.end(), other, other + 3);
    v.push_back(end);
    v.push_back(side);
  };
  for (std::size_t i = 0; i + 14 <= d.size(); i += 14) {
    const float* a = &d[i];
    const float* b = &d[i + 7];
    if (!wide) {
      put(a, b, 0, 0);
      put(b, a, 1, 0);
      continue;
    }
    put(a, b, 0, -1);
    put(a, b, 0, 1);
    put(b, a, 1, 1);
    put(a, b, 0, -1);
    put(b, a, 1, 1);
    put(b, a, 1, -1);
  }
  if (depth_test)
    glEnable(GL_DEPTH_TEST);
  else
    glDisable(GL_DEPTH_TEST);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glUseProgram(line_prog_);
  glUniformMatrix4fv(glGetUniformLocation(line_prog_, "u_vp"), 1, GL_FALSE,
                     glm::value_ptr(view_proj));
  GLint vp[4];
  glGetIntegerv(GL_VIEWPORT, vp);
  glUniform2f(glGetUniformLocation(line_prog_, "u_viewport"), float(vp[2]), float(vp[3]));
  glUniform1f(glGetUniformLocation(line_prog_, "u_width"), width_px);
  glBindVertexArray(line_vao_);
  glBindBuffer(GL_ARRAY_BUFFER, line_vbo_);
  const std::size_t bytes = v.size() * sizeof(float);
  if (bytes > line_capacity_) line_capacity_ = bytes * 2;
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(line_capacity_), nullptr, GL_STREAM_DRAW);
  glBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(bytes), v.data());
  glDrawArrays(wide ? GL_TRIANGLES : GL_LINES, 0, GLsizei(v.size() / kLineFloats));
  glBindVertexArray(0);
  glDisable(GL_BLEND);
}

GLuint link_program(const char* vs, const char* fs, std::string& err) { return link(vs, fs, err); }

}  // namespace boids::view
