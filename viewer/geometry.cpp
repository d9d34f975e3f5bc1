// Geometry: the glyph meshes (triangle, cone, dart) and the obstacle meshes (sphere, cube,
// disc), and the shapes a LineBatch can hold (circles, spheres, boxes, arrows).
#include <cmath>
#include <glm/glm.hpp>
#include <vector>

#include "viewer/renderer.hpp"

namespace boids::view {

namespace {

// Glyph meshes, position + normal per vertex, non-indexed triangles. Both are centred on the
// boid: the 2D triangle runs from -0.5 (tail) to +0.5 (tip) along its heading; the 3D cone
// the same way with its base at the tail.
void push_vertex(std::vector<float>& m, glm::vec3 p, glm::vec3 n) {
  m.insert(m.end(), {p.x, p.y, p.z, n.x, n.y, n.z});
}

// A cone with `seg` sides: 3 makes a dart (4 triangles), 8 a round cone (16 triangles).
void push_cone(std::vector<float>& m, int seg, float r) {
  const float pi2 = 6.28318530718f;
  for (int i = 0; i < seg; ++i) {
    // Sides start at the top (+z) so a dart has one fin up.
    const float a0 = pi2 * float(i) / float(seg) + pi2 / 4;
    const float a1 = pi2 * float(i + 1) / float(seg) + pi2 / 4;
    const glm::vec3 tip(0.5f, 0.0f, 0.0f);
    const glm::vec3 b0(-0.5f, r * std::cos(a0), r * std::sin(a0));
    const glm::vec3 b1(-0.5f, r * std::cos(a1), r * std::sin(a1));
    if (seg <= 4) {
      const glm::vec3 n = glm::normalize(glm::cross(b0 - tip, b1 - tip));
      push_vertex(m, tip, n);
      push_vertex(m, b0, n);
      push_vertex(m, b1, n);
    } else {
      const glm::vec3 n0 = glm::normalize(glm::vec3(r, std::cos(a0), std::sin(a0)));
      const glm::vec3 n1 = glm::normalize(glm::vec3(r, std::cos(a1), std::sin(a1)));
      const float am = 0.5f * (a0 + a1);
      push_vertex(m, tip, glm::normalize(glm::vec3(r, std::cos(am), std::sin(am))));
      push_vertex(m, b0, n0);
      push_vertex(m, b1, n1);
    }
  }
  // Base cap, a fan around the first rim vertex.
  auto rim = [&](int i) {
    const float a = pi2 * float(i) / float(seg) + pi2 / 4;
    return glm::vec3(-0.5f, r * std::cos(a), r * std::sin(a));
  };
  for (int i = 1; i + 1 < seg; ++i) {
    push_vertex(m, rim(0), {-1, 0, 0});
    push_vertex(m, rim(i + 1), {-1, 0, 0});
    push_vertex(m, rim(i), {-1, 0, 0});
  }
}

}  // namespace

void build_meshes(std::vector<float>& m, GLint first[6], GLint count[6]) {
  const glm::vec3 up(0, 0, 1);
  // Triangle (2D).
  first[0] = 0;
  push_vertex(m, {0.5f, 0.0f, 0.0f}, up);
  push_vertex(m, {-0.5f, 0.32f, 0.0f}, up);
  push_vertex(m, {-0.5f, -0.32f, 0.0f}, up);
  count[0] = 3;
  // Round cone (3D, up close).
  first[1] = GLint(m.size() / 6);
  push_cone(m, 8, 0.24f);
  count[1] = GLint(m.size() / 6) - first[1];
  // Dart (3D, large flocks: a quarter of the triangles).
  first[2] = GLint(m.size() / 6);
  push_cone(m, 3, 0.3f);
  count[2] = GLint(m.size() / 6) - first[2];
  // Unit sphere (obstacles), 24 x 12 quads.
  first[3] = GLint(m.size() / 6);
  const float pi = 3.14159265f;
  auto sp = [&](int i, int j) {
    const float a = 2 * pi * float(i) / 24, b = pi * float(j) / 12 - pi / 2;
    return glm::vec3(std::cos(b) * std::cos(a), std::cos(b) * std::sin(a), std::sin(b));
  };
  for (int j = 0; j < 12; ++j) {
    for (int i = 0; i < 24; ++i) {
      const glm::vec3 q[4] = {sp(i, j), sp(i + 1, j), sp(i + 1, j + 1), sp(i, j + 1)};
      for (int t : {0, 1, 2, 0, 2, 3}) push_vertex(m, q[t], q[t]);
    }
  }
  count[3] = GLint(m.size() / 6) - first[3];
  // Unit cube [0, 1]^3 (box obstacles).
  first[4] = GLint(m.size() / 6);
  for (int axis = 0; axis < 3; ++axis) {
    for (int side = 0; side < 2; ++side) {
      glm::vec3 n(0);
      n[axis] = side ? 1.0f : -1.0f;
      const int u = (axis + 1) % 3, v = (axis + 2) % 3;
      glm::vec3 c[4];
      for (int k = 0; k < 4; ++k) {
        c[k][axis] = float(side);
        c[k][u] = float(k == 1 || k == 2);
        c[k][v] = float(k >= 2);
      }
      for (int t : {0, 1, 2, 0, 2, 3}) push_vertex(m, c[t], n);
    }
  }
  count[4] = GLint(m.size() / 6) - first[4];
  // Unit disc in the xy plane (sphere obstacles in 2D).
  first[5] = GLint(m.size() / 6);
  for (int i = 0; i < 48; ++i) {
    const float a0 = 2 * pi * float(i) / 48, a1 = 2 * pi * float(i + 1) / 48;
    push_vertex(m, {0, 0, 0}, up);
    push_vertex(m, {std::cos(a0), std::sin(a0), 0}, up);
    push_vertex(m, {std::cos(a1), std::sin(a1), 0}, up);
  }
  count[5] = GLint(m.size() / 6) - first[5];
}

void LineBatch::add(const glm::vec3& a, const glm::vec3& b, const glm::vec4& c) {
  data_.insert(data_.end(), {a.x, a.y, a.z, c.r, c.g, c.b, c.a, b.x, b.y, b.z, c.r, c.g, c.b, c.a});
}

void LineBatch::circle(const glm::vec3& c, const glm::vec3& u, const glm::vec3& v, float r,
                       const glm::vec4& rgba, int segments) {
  const float pi2 = 6.28318530718f;
  glm::vec3 prev = c + r * u;
  for (int i = 1; i <= segments; ++i) {
    const float a = pi2 * float(i) / float(segments);
    const glm::vec3 next = c + r * (std::cos(a) * u + std::sin(a) * v);
    add(prev, next, rgba);
    prev = next;
  }
}

void LineBatch::sphere(const glm::vec3& c, float r, const glm::vec4& rgba, bool flat) {
  const glm::vec3 x(1, 0, 0), y(0, 1, 0), z(0, 0, 1);
  circle(c, x, y, r, rgba);
  if (flat) return;
  circle(c, x, z, r, rgba);
  circle(c, y, z, r, rgba);
}

void LineBatch::box(const glm::vec3& lo, const glm::vec3& hi, const glm::vec4& rgba) {
  for (int i = 0; i < 4; ++i) {
    const bool a = (i & 1) != 0, b = (i & 2) != 0;
    add({lo.x, a ? hi.y : lo.y, b ? hi.z : lo.z}, {hi.x, a ? hi.y : lo.y, b ? hi.z : lo.z}, rgba);
    add({a ? hi.x : lo.x, lo.y, b ? hi.z : lo.z}, {a ? hi.x : lo.x, hi.y, b ? hi.z : lo.z}, rgba);
    add({a ? hi.x : lo.x, b ? hi.y : lo.y, lo.z}, {a ? hi.x : lo.x, b ? hi.y : lo.y, hi.z}, rgba);
  }
}

void LineBatch::arrow(const glm::vec3& from, const glm::vec3& to, const glm::vec4& rgba,
                      const glm::vec3& view_dir) {
  add(from, to, rgba);
  const glm::vec3 d = to - from;
  const float len = glm::length(d);
  if (len <= 0) return;
  const glm::vec3 f = d / len;
  glm::vec3 side = glm::cross(f, view_dir);
  if (glm::length(side) < 1e-6f) side = glm::cross(f, glm::vec3(0, 0, 1));
  if (glm::length(side) < 1e-6f) side = glm::cross(f, glm::vec3(0, 1, 0));
  side = glm::normalize(side);
  const float h = len * 0.2f;
  add(to, to - h * f + 0.5f * h * side, rgba);
  add(to, to - h * f - 0.5f * h * side, rgba);
}

}  // namespace boids::view
