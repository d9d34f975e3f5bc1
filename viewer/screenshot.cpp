// Screenshots: reading the back buffer and writing PNGs (P / F12, --screenshot).
#include <stb_image_write.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "viewer/app.hpp"

namespace boids::view {

std::vector<std::uint8_t> Renderer::read_pixels(int width, int height) const {
  std::vector<std::uint8_t> raw(std::size_t(width) * std::size_t(height) * 3);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, raw.data());
  // GL rows run bottom to top; PNG rows top to bottom.
  std::vector<std::uint8_t> out(raw.size());
  const std::size_t row = std::size_t(width) * 3;
  for (int yy = 0; yy < height; ++yy) {
    std::copy_n(raw.data() + std::size_t(height - 1 - yy) * row, row,
                out.data() + std::size_t(yy) * row);
  }
  return out;
}

std::string write_png(const std::string& path, int width, int height,
                      const std::vector<std::uint8_t>& rgb) {
  // stbi_write_png comes from Debian's libstb.so (no STB_IMAGE_WRITE_IMPLEMENTATION here:
  // libimgui.a already links that library, and a second copy would clash with it).
  const std::string tmp = path + ".tmp";
  if (!stbi_write_png(tmp.c_str(), width, height, 3, rgb.data(), width * 3)) {
    std::remove(tmp.c_str());
    return path + ": cannot write PNG";
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return path + ": cannot write PNG";
  }
  return "";
}

void save_screenshot_now(App& app, const std::string& path) {
  int w, h;
  glfwGetFramebufferSize(app.window, &w, &h);
  const std::string err = write_png(path, w, h, app.renderer.read_pixels(w, h));
  if (err.empty()) {
    app.notify("saved " + path, false);
    app.last_screenshot = path;
  } else {
    app.notify(err, true);
  }
}

std::string timestamped_png() {
  char buf[64];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "boids-view-%Y%m%d-%H%M%S.png", std::localtime(&t));
  return buf;
}

}  // namespace boids::view
