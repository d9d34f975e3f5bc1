// Viewer cameras. 2D: an orthographic view given by its centre and the world distance from
// the centre to the top edge. 3D: an orbit camera around a target, z up, 45 degree vertical
// field of view. The maths is spelled out in docs/viewer.md so tests can recompute where a
// boid must appear on screen.
#pragma once

#include <glm/glm.hpp>
#include <string>

namespace boids::view {

struct Camera {
  int dims = 3;
  // 2D
  glm::dvec2 center{50, 50};
  double half_height = 55;
  // 3D
  glm::dvec3 target{50, 50, 50};
  double yaw = glm::radians(-60.0);   // azimuth of the eye around the target, from +x
  double pitch = glm::radians(25.0);  // elevation of the eye above the target's xy plane
  double distance = 220;
  double fovy = glm::radians(45.0);

  glm::dvec3 eye() const;
  glm::dmat4 view() const;
  glm::dmat4 proj(double aspect) const;

  /// World position -> window pixel (x right, y down); z is NDC depth. Returns false when
  /// behind the camera.
  bool project(const glm::dvec3& p, int width, int height, glm::dvec3& out) const;
  /// Ray through a window pixel (x right, y down).
  void ray(double px, double py, int width, int height, glm::dvec3& origin, glm::dvec3& dir) const;
  /// The point under the cursor: in 2D the world point; in 3D where the ray meets the plane
  /// through the target facing the camera.
  glm::dvec3 cursor_point(double px, double py, int width, int height) const;

  /// World units per pixel at the view depth of 1 (3D) or everywhere (2D).
  double world_per_pixel(int height) const;

  void orbit(double dx_px, double dy_px);
  void pan(double dx_px, double dy_px, int height);
  /// Zooms by `factor` (<1 = closer), keeping the point under the cursor fixed in 2D.
  void zoom(double factor, double px, double py, int width, int height);
  /// Fits the box [lo, hi] into the view.
  void frame(const glm::dvec3& lo, const glm::dvec3& hi, double aspect);

  /// After the view's aspect ratio changed (window resized, panel shown or hidden): zooms out
  /// as far as needed to keep in view what was in view.
  void keep_view(double old_aspect, double new_aspect);

  /// Parses "cx,cy,half_height" (2D) or "tx,ty,tz,yaw_deg,pitch_deg,distance" (3D). Returns
  /// an error message, empty on success.
  std::string parse(const std::string& spec);
};

}  // namespace boids::view
