#include "core/state_csv.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "core/files.hpp"
#include "core/id_rows.hpp"
#include "core/input_limits.hpp"

namespace boids {

namespace {

std::vector<std::string> columns_for(int dims) {
  if (dims == 2) return {"id", "x", "y", "vx", "vy"};
  return {"id", "x", "y", "z", "vx", "vy", "vz"};
}

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    out.push_back(line.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

}  // namespace

State read_state_csv(const std::string& path, int dims, std::size_t count) {
  // A row is a few dozen bytes; 1 KiB per boid leaves room for any spacing, and the file is
  // refused before it is read when it could not be a state of `count` boids.
  const std::uint64_t limit =
      std::min(4096 + std::uint64_t(count) * 1024, memory_limit_bytes() / 4);
  return parse_state_csv(read_input_file(path, "state file", limit), path, dims, count);
}

State parse_state_csv(std::string_view text, const std::string& path, int dims, std::size_t count) {
  auto fail = [&](std::size_t line, const std::string& msg) {
    throw Error(path + ":" + std::to_string(line) + ": " + msg);
  };
  if (dims != 2 && dims != 3) throw Error(path + ": dims must be 2 or 3");
  std::vector<std::string_view> lines;
  {
    std::string_view all(text);
    std::size_t start = 0;
    while (start < all.size()) {
      std::size_t nl = all.find('\n', start);
      if (nl == std::string_view::npos) nl = all.size();
      lines.push_back(all.substr(start, nl - start));
      start = nl + 1;
    }
  }
  if (lines.empty()) fail(1, "empty file: expected a header line");

  const std::vector<std::string> want = columns_for(dims);
  std::vector<std::string_view> header = split(lines[0]);
  std::vector<int> col_of(want.size() + 1, -1);  // last slot: optional "kind"
  for (std::size_t h = 0; h < header.size(); ++h) {
    const std::string_view name = trim(header[h]);
    bool known = false;
    for (std::size_t w = 0; w <= want.size(); ++w) {
      const std::string wn = w < want.size() ? want[w] : "kind";
      if (name == wn) {
        if (col_of[w] >= 0) fail(1, "column " + wn + ": appears twice in the header");
        col_of[w] = int(h);
        known = true;
      }
    }
    if (!known) {
      fail(1, "column " + escape_control(name) + ": unknown column for a " + std::to_string(dims) +
                  "D state (expected " + (dims == 2 ? "id,x,y,vx,vy" : "id,x,y,z,vx,vy,vz") + ")");
    }
  }
  for (std::size_t w = 0; w < want.size(); ++w) {
    if (col_of[w] < 0) fail(1, "column " + want[w] + ": missing from the header");
  }

  State st;
  std::vector<double>* target[7] = {nullptr, &st.x, &st.y, &st.z, &st.vx, &st.vy, &st.vz};
  std::vector<double>* by_col[7];
  for (std::size_t w = 0; w < want.size(); ++w) {
    static const char* all_names[] = {"id", "x", "y", "z", "vx", "vy", "vz"};
    for (int a = 0; a < 7; ++a) {
      if (want[w] == all_names[a]) by_col[w] = target[a];
    }
  }
  std::size_t rows = 0;
  for (std::size_t ln = 1; ln < lines.size(); ++ln) {
    const std::string_view line = trim(lines[ln]);
    if (line.empty()) continue;
    const std::size_t line_no = ln + 1;
    std::vector<std::string_view> cells = split(line);
    if (cells.size() != header.size()) {
      fail(line_no, "expected " + std::to_string(header.size()) + " fields, got " +
                        std::to_string(cells.size()) + " (truncated or malformed line)");
    }
    for (std::size_t w = 0; w <= want.size(); ++w) {
      if (col_of[w] < 0) continue;
      const std::string name = w < want.size() ? want[w] : "kind";
      const std::string_view cell = trim(cells[std::size_t(col_of[w])]);
      if (w == 0 || w == want.size()) {
        std::uint64_t v = 0;
        auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
        if (ec != std::errc() || ptr != cell.data() + cell.size() || cell.empty())
          fail(line_no, "column " + name + ": expected a non-negative integer, got \"" +
                            escape_control(cell) + "\"");
        if (w == 0) {
          if (v > 0xFFFFFFFFull) fail(line_no, "column id: out of range");
          if (!st.id.empty() && v <= st.id.back())
            fail(line_no, "column id: rows must be in increasing id order");
          st.id.push_back(std::uint32_t(v));
        } else {
          if (v >= std::uint64_t(kKindCount)) fail(line_no, "column kind: must be 0, 1 or 2");
          st.kind.push_back(std::uint8_t(v));
        }
        continue;
      }
      double v = 0;
      auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
      if (ec != std::errc() || ptr != cell.data() + cell.size() || cell.empty())
        fail(line_no,
             "column " + name + ": expected a number, got \"" + escape_control(cell) + "\"");
      if (!std::isfinite(v)) fail(line_no, "column " + name + ": NaN and Inf are not allowed");
      by_col[w]->push_back(v);
    }
    ++rows;
  }
  if (rows != count) {
    fail(lines.size(), "has " + std::to_string(rows) + " boids but the scenario has " +
                           std::to_string(count) + " (boids.count)");
  }
  return st;
}

namespace {

// The rows of a state CSV, written through a buffered AtomicFile a chunk at a time: the file's
// text never exists in memory as a whole. `fill(first, rows, chunk)` puts the rows with id
// ranks [first, first + rows) into the chunk's columns (as Real, the world's precision).
template <class Real>
struct CsvChunk {
  std::uint32_t id[IdRows::kChunk];
  std::uint8_t kind[IdRows::kChunk];
  Real c[6][IdRows::kChunk];  // x, y, z, vx, vy, vz
};

template <class Real, class Fill>
void stream_state_csv(const std::string& path, std::size_t n, int dims, bool kinds, Fill&& fill) {
  AtomicFile f(path, std::size_t(1) << 20);
  f.write(dims == 2 ? "id,x,y,vx,vy" : "id,x,y,z,vx,vy,vz");
  f.write(kinds ? ",kind\n" : "\n");
  auto chunk = std::make_unique<CsvChunk<Real>>();
  std::string out;
  out.reserve(IdRows::kChunk * 96);
  char buf[64];
  const int comps[6] = {0, 1, dims == 3 ? 2 : -1, 3, 4, dims == 3 ? 5 : -1};
  for (std::size_t first = 0; first < n; first += IdRows::kChunk) {
    const std::size_t rows = std::min(IdRows::kChunk, n - first);
    fill(first, rows, *chunk);
    out.clear();
    for (std::size_t i = 0; i < rows; ++i) {
      auto r = std::to_chars(buf, buf + sizeof buf, chunk->id[i]);
      out.append(buf, r.ptr);
      for (int c : comps) {
        if (c < 0) continue;
        r = std::to_chars(buf, buf + sizeof buf, chunk->c[c][i]);
        out += ',';
        out.append(buf, r.ptr);
      }
      if (kinds) {
        out += ',';
        out += char('0' + chunk->kind[i]);
      }
      out += '\n';
    }
    f.write(out);
  }
  f.commit();
}

template <class Real>
void write_state_typed(const std::string& path, const State& s, int dims) {
  bool kinds = false;
  for (std::uint8_t k : s.kind) kinds = kinds || k != 0;
  const std::vector<double>* col[6] = {&s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz};
  stream_state_csv<Real>(path, s.id.size(), dims, kinds,
                         [&](std::size_t first, std::size_t rows, CsvChunk<Real>& ch) {
                           for (std::size_t i = 0; i < rows; ++i) {
                             ch.id[i] = s.id[first + i];
                             ch.kind[i] = kinds ? s.kind[first + i] : 0;
                             for (int c = 0; c < 6; ++c) {
                               if (dims == 3 || (c != 2 && c != 5))
                                 ch.c[c][i] = static_cast<Real>((*col[c])[first + i]);
                             }
                           }
                         });
}

template <class Real>
void write_world_typed(const std::string& path, const IdRows& rows) {
  const bool kinds = rows.any_kind();
  const int dims = rows.dims();
  stream_state_csv<Real>(path, rows.count(), dims, kinds,
                         [&](std::size_t first, std::size_t n, CsvChunk<Real>& ch) {
                           rows.gather(IdRows::id, first, n, ch.id);
                           if (kinds) rows.gather(IdRows::kind, first, n, ch.kind);
                           for (int c = 0; c < 6; ++c) {
                             if (dims == 3 || (c != 2 && c != 5)) rows.gather(c, first, n, ch.c[c]);
                           }
                         });
}

}  // namespace

void write_state_csv(const std::string& path, const State& s, int dims, Precision precision) {
  // Float values print as floats: the shortest text that reads back to the same float.
  if (precision == Precision::f32)
    write_state_typed<float>(path, s, dims);
  else
    write_state_typed<double>(path, s, dims);
}

bool state_is_finite(const World& w) { return IdRows(w).all_finite(); }

void write_state_csv(const std::string& path, const World& w) {
  const IdRows rows(w);
  if (rows.precision() == Precision::f32)
    write_world_typed<float>(path, rows);
  else
    write_world_typed<double>(path, rows);
}

}  // namespace boids
