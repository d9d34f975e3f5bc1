// OpenGL 3.3 core drawing for the viewer: glyphs (every boid in one instanced draw call for
// small flocks; predators, leaders and the debug view's boids always), one batch of lines for
// the world box, the debug vectors and the behaviour shapes, and shaded translucent
// obstacles. Large flocks are drawn as density splats instead (viewer/density.hpp).
//
// Instance data is interleaved, kInstanceFloats (8) floats a boid: position, velocity, kind
// and local count, written by the simulation thread (viewer/instance_ring.hpp). The vertex
// shader builds each glyph's orientation from its velocity and its colour from kind, speed,
// heading or local density, so the CPU does nothing per boid at draw time.
#pragma once

#include <epoxy/gl.h>

#include <cstdint>
#include <glm/glm.hpp>
#include <string>
#include <vector>

namespace boids::view {

struct Frame;

/// Bytes per boid of the instance data (kInstanceFloats floats, viewer/sim_runner.hpp).
inline constexpr std::size_t kInstanceStride = 8 * sizeof(float);

enum class ColorMode : int { kind = 0, speed = 1, heading = 2, density = 3 };

/// GLSL shared by the glyph and splat vertex shaders: `vec3 boid_colour(kind, vel, local)`
/// with uniforms u_color_mode, u_max_speed, u_max_local, u_ortho. Colours of the kinds:
/// boids sky blue, predators red, leaders gold.
extern const char* const kColourGlsl;

/// Whether a GL_RENDERER string names a CPU rasteriser (Mesa's llvmpipe, softpipe, swrast).
inline bool is_software_renderer(const std::string& name) {
  return name.find("llvmpipe") != std::string::npos || name.find("softpipe") != std::string::npos ||
         name.find("swrast") != std::string::npos;
}

/// Glyph of a boid in 3D (2D always draws triangles): a round cone, a three-sided dart with a
/// quarter of the triangles, or one point (for flocks seen from so far that glyphs would be
/// a pixel or two anyway).
enum class Glyph : int { cone = 0, dart = 1, point = 2 };

/// A set of glyph instances (interleaved, 8 floats each): with its own buffer, streamed by
/// upload(), or reading an external buffer (attach(): a mapped slot of the InstanceRing).
class InstanceSet {
 public:
  void create(GLuint mesh_vbo);
  void attach(GLuint mesh_vbo, GLuint buffer);
  void destroy();
  /// Streams `n` interleaved instances into the own buffer (orphaning the old storage).
  void upload(std::size_t n, const float* data);
  /// Sets the count when the data is already in an attached buffer.
  void set_count(std::size_t n) { count_ = n; }
  std::size_t count() const { return count_; }
  GLuint vao() const { return vao_; }
  GLuint point_vao() const { return point_vao_; }

 private:
  void setup(GLuint mesh_vbo, GLuint buffer);
  GLuint vao_ = 0, point_vao_ = 0, vbo_ = 0;
  bool own_ = false;
  std::size_t count_ = 0;
};

/// A shaded obstacle: a sphere (disc in 2D) or an axis-aligned box.
struct Solid {
  bool sphere = true;
  glm::vec3 lo{0}, hi{0};  // sphere: centre in lo, radius in hi.x
};

/// Coloured line segments gathered during a frame and drawn at once.
class LineBatch {
 public:
  void clear() { data_.clear(); }
  void add(const glm::vec3& a, const glm::vec3& b, const glm::vec4& rgba);
  void circle(const glm::vec3& c, const glm::vec3& u, const glm::vec3& v, float r,
              const glm::vec4& rgba, int segments = 48);
  /// Three great circles, or one circle in the xy plane when `flat`.
  void sphere(const glm::vec3& c, float r, const glm::vec4& rgba, bool flat);
  void box(const glm::vec3& lo, const glm::vec3& hi, const glm::vec4& rgba);
  void arrow(const glm::vec3& from, const glm::vec3& to, const glm::vec4& rgba,
             const glm::vec3& view_dir);
  const std::vector<float>& data() const { return data_; }

 private:
  std::vector<float> data_;  // x y z r g b a per vertex
};

struct GlyphParams {
  glm::mat4 view{1}, proj{1};
  bool ortho = false;             // 2D
  float size = 1.5f;              // glyph length (world units)
  float min_pixels = 3.f;         // never drawn shorter than this on screen
  float world_per_pixel = 0.01f;  // at view depth 1 (3D) or everywhere (2D)
  ColorMode color = ColorMode::kind;
  float max_speed = 4.f;
  glm::vec4 override_rgba{0, 0, 0, 0};  // alpha > 0: draw every glyph in this colour
  float scale = 1.f;
  float special_scale = 1.f;  // predators and leaders: this much larger, min_pixels too
  float max_local = 1.f;      // density colour: local count at the top of the ramp
  Glyph glyph = Glyph::cone;
};

class Renderer {
 public:
  /// Compiles shaders and creates buffers; returns an error message, empty on success.
  std::string init();
  void shutdown();

  /// GL_RENDERER, and whether it is a CPU rasteriser (Mesa llvmpipe/softpipe), where every
  /// instance of an instanced draw costs a pipeline run: large flocks are drawn as points.
  const std::string& renderer_name() const { return renderer_name_; }
  bool software() const { return software_; }

  GLuint mesh_vbo() const { return mesh_vbo_; }
  InstanceSet& highlight() { return highlight_; }
  InstanceSet& selected() { return selected_; }
  InstanceSet& special() { return special_; }

  /// Clears the whole framebuffer and sets the viewport to the scene rectangle.
  void clear(int x0, int width, int height);
  void draw_glyphs(const InstanceSet& set, int dims, const GlyphParams& p);
  /// Draws the batch; wider than 1 pixel draws each segment as a screen-space quad.
  void draw_lines(const LineBatch& lines, const glm::mat4& view_proj, bool depth_test,
                  float width_px = 1.0f);
  /// Draws obstacles lit and translucent (alpha `alpha`), without writing depth.
  void draw_solids(const std::vector<Solid>& solids, const glm::mat4& view, const glm::mat4& proj,
                   bool flat, const glm::vec3& rgb, float alpha);

  /// Reads the current back buffer as tightly packed RGB rows, top row first.
  std::vector<std::uint8_t> read_pixels(int width, int height) const;

 private:
  std::string renderer_name_;
  bool software_ = false;
  GLuint glyph_prog_ = 0, line_prog_ = 0, solid_prog_ = 0;
  GLuint mesh_vbo_ = 0, solid_vao_ = 0;
  // triangle, cone, dart, sphere, cube, disc
  GLint mesh_first_[6] = {0, 0, 0, 0, 0, 0}, mesh_count_[6] = {0, 0, 0, 0, 0, 0};
  InstanceSet highlight_, selected_, special_;
  GLuint line_vao_ = 0, line_vbo_ = 0;
  std::size_t line_capacity_ = 0;
  std::vector<float> line_scratch_;
};

/// The meshes (position + normal per vertex, triangles) in one array: triangle (2D glyph),
/// cone, dart, unit sphere, unit cube, unit disc; first vertex and count of each
/// (viewer/geometry.cpp).
void build_meshes(std::vector<float>& m, GLint first[6], GLint count[6]);

/// Compiles and links a vertex and fragment shader; sets `err` on failure.
GLuint link_program(const char* vs, const char* fs, std::string& err);

/// Writes an RGB image (rows top first) as PNG; returns an error message, empty on success.
std::string write_png(const std::string& path, int width, int height,
                      const std::vector<std::uint8_t>& rgb);

}  // namespace boids::view
