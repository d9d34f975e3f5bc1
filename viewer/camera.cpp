#include "viewer/camera.hpp"

#include <algorithm>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>
#include <sstream>
#include <vector>

namespace boids::view {

glm::dvec3 Camera::eye() const {
  const glm::dvec3 dir(std::cos(pitch) * std::cos(yaw), std::cos(pitch) * std::sin(yaw),
                       std::sin(pitch));
  return target + distance * dir;
}

glm::dmat4 Camera::view() const {
  if (dims == 2) {
    return glm::translate(glm::dmat4(1.0), glm::dvec3(-center.x, -center.y, 0.0));
  }
  return glm::lookAt(eye(), target, glm::dvec3(0, 0, 1));
}

glm::dmat4 Camera::proj(double aspect) const {
  if (dims == 2) {
    const double hw = half_height * aspect;
    return glm::ortho(-hw, hw, -half_height, half_height, -1.0, 1.0);
  }
  const double near_plane = std::max(distance * 0.01, 1e-3);
  const double far_plane = distance * 4.0 + 1e3;
  return glm::perspective(fovy, aspect, near_plane, far_plane);
}

bool Camera::project(const glm::dvec3& p, int width, int height, glm::dvec3& out) const {
  const double aspect = double(width) / double(height);
  const glm::dvec4 c = proj(aspect) * view() * glm::dvec4(p, 1.0);
  if (c.w <= 0) return false;
  const glm::dvec3 ndc = glm::dvec3(c) / c.w;
  out = glm::dvec3((ndc.x + 1) * 0.5 * width, (1 - ndc.y) * 0.5 * height, ndc.z);
  return true;
}

void Camera::ray(double px, double py, int width, int height, glm::dvec3& origin,
                 glm::dvec3& dir) const {
  const double aspect = double(width) / double(height);
  const glm::dmat4 inv = glm::inverse(proj(aspect) * view());
  const double nx = 2 * px / width - 1, ny = 1 - 2 * py / height;
  glm::dvec4 a = inv * glm::dvec4(nx, ny, -1, 1);
  glm::dvec4 b = inv * glm::dvec4(nx, ny, 1, 1);
  a /= a.w;
  b /= b.w;
  origin = glm::dvec3(a);
  dir = glm::normalize(glm::dvec3(b - a));
}

glm::dvec3 Camera::cursor_point(double px, double py, int width, int height) const {
  glm::dvec3 o, d;
  ray(px, py, width, height, o, d);
  if (dims == 2) return glm::dvec3(o.x, o.y, 0);
  const glm::dvec3 n = glm::normalize(eye() - target);
  const double den = glm::dot(d, n);
  if (std::abs(den) < 1e-12) return target;
  const double t = glm::dot(target - o, n) / den;
  return o + t * d;
}

double Camera::world_per_pixel(int height) const {
  if (dims == 2) return 2 * half_height / height;
  return 2 * std::tan(fovy / 2) / height;
}

void Camera::orbit(double dx_px, double dy_px) {
  yaw -= dx_px * 0.008;
  pitch = std::clamp(pitch + dy_px * 0.008, glm::radians(-89.0), glm::radians(89.0));
}

void Camera::pan(double dx_px, double dy_px, int height) {
  if (dims == 2) {
    const double wpp = world_per_pixel(height);
    center.x -= dx_px * wpp;
    center.y += dy_px * wpp;
    return;
  }
  const double wpp = world_per_pixel(height) * distance;
  const glm::dvec3 fwd = glm::normalize(target - eye());
  const glm::dvec3 right = glm::normalize(glm::cross(fwd, glm::dvec3(0, 0, 1)));
  const glm::dvec3 up = glm::cross(right, fwd);
  target += (-dx_px * right + dy_px * up) * wpp;
}

void Camera::zoom(double factor, double px, double py, int width, int height) {
  if (dims == 2) {
    const glm::dvec3 before = cursor_point(px, py, width, height);
    half_height = std::clamp(half_height * factor, 1e-3, 1e9);
    const glm::dvec3 after = cursor_point(px, py, width, height);
    center += glm::dvec2(before.x - after.x, before.y - after.y);
    return;
  }
  distance = std::clamp(distance * factor, 1e-2, 1e9);
}

void Camera::frame(const glm::dvec3& lo, const glm::dvec3& hi, double aspect) {
  const glm::dvec3 mid = (lo + hi) * 0.5;
  const glm::dvec3 ext = hi - lo;
  if (dims == 2) {
    center = glm::dvec2(mid.x, mid.y);
    half_height = std::max({ext.y * 0.5, ext.x * 0.5 / aspect, 1e-3}) * 1.08;
    return;
  }
  target = mid;
  const double radius = std::max(glm::length(ext) * 0.5, 1e-3);
  const double half_fov = std::min(fovy, 2 * std::atan(std::tan(fovy / 2) * aspect)) / 2;
  distance = radius / std::sin(half_fov) * 1.02;
}

void Camera::keep_view(double old_aspect, double new_aspect) {
  if (!(old_aspect > 0) || !(new_aspect > 0)) return;
  if (dims == 2) {
    // Keep the visible width when the window gets narrower, the height otherwise.
    if (new_aspect < old_aspect) half_height *= old_aspect / new_aspect;
    return;
  }
  // Keep the sphere that fitted the old view inside the new one.
  auto half_fov = [this](double a) {
    return std::min(fovy, 2 * std::atan(std::tan(fovy / 2) * a)) / 2;
  };
  distance *= std::sin(half_fov(old_aspect)) / std::sin(half_fov(new_aspect));
}

std::string Camera::parse(const std::string& spec) {
  std::vector<double> v;
  std::stringstream ss(spec);
  for (std::string item; std::getline(ss, item, ',');) {
    try {
      std::size_t used = 0;
      v.push_back(std::stod(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
      if (!std::isfinite(v.back()) || std::abs(v.back()) > 1e9) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      return "--camera: \"" + item + "\" is not a finite number (at most 1e9 in size)";
    }
  }
  if (dims == 2) {
    if (v.size() != 3 || !(v[2] > 0)) return "--camera: 2D expects cx,cy,half_height (> 0)";
    center = {v[0], v[1]};
    half_height = v[2];
    return "";
  }
  if (v.size() != 6 || !(v[5] > 0))
    return "--camera: 3D expects tx,ty,tz,yaw_deg,pitch_deg,distance (> 0)";
  target = {v[0], v[1], v[2]};
  yaw = glm::radians(v[3]);
  pitch = glm::radians(std::clamp(v[4], -89.0, 89.0));
  distance = v[5];
  return "";
}

}  // namespace boids::view
