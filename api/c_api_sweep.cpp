// The C API of sweeps (boids_sweep_* in include/boids/boids.h) over boids/sweep.hpp.
#include <fstream>

#include "api/c_api_internal.hpp"
#include "api/sweep_plan.hpp"
#include "boids/boids.h"
#include "boids/sweep.hpp"

struct boids_sweep {
  boids::SweepDef def;
  boids_sweep_progress_fn progress = nullptr;
  void* progress_context = nullptr;
  std::vector<std::string> columns;  // the CSV's, for the varied keys given so far
  boids::SweepPlan plan;             // of the last successful run
  std::vector<boids::SweepRow> rows;
  std::vector<std::vector<std::string>> cells;  // rows as text, made by the first cell call
};

namespace {

using boids::Error;
using boids::capi::guard;

boids_sweep& S(boids_sweep* s) {
  if (s == nullptr) throw Error("sweep is NULL");
  return *s;
}

const boids_sweep& S(const boids_sweep* s) {
  if (s == nullptr) throw Error("sweep is NULL");
  return *s;
}

// Any change makes the results stale: they go.
boids_sweep& changed(boids_sweep* s) {
  boids_sweep& w = S(s);
  w.plan = {};
  w.rows.clear();
  w.cells.clear();
  return w;
}

void refresh_columns(boids_sweep& s) {
  boids::SweepPlan keys;
  for (const std::string& spec : s.def.vary)
    keys.vary.push_back({spec.substr(0, spec.find('=')), {}});
  s.columns = boids::sweep_columns(keys);
}

boids_sweep* make(boids::SweepDef def) {
  auto* s = new boids_sweep{};
  s->def = std::move(def);
  refresh_columns(*s);
  return s;
}

void check_cell(const boids_sweep& s, std::size_t row, std::size_t column) {
  if (row >= s.rows.size()) {
    throw Error("row " + std::to_string(row) + " out of range (" + std::to_string(s.rows.size()) +
                " rows)");
  }
  if (column >= s.columns.size()) {
    throw Error("column " + std::to_string(column) + " out of range (" +
                std::to_string(s.columns.size()) + " columns)");
  }
}

}  // namespace

extern "C" {

boids_status boids_sweep_create(const char* toml_text, boids_sweep** out_sweep) {
  return guard("boids_sweep_create", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    if (out_sweep == nullptr) throw Error("out_sweep is NULL");
    boids::SweepDef def;
    if (toml_text != nullptr) def.scenario_text = toml_text;
    if (toml_text != nullptr && def.scenario_text.empty()) throw Error("toml_text is empty");
    *out_sweep = make(std::move(def));
  });
}

boids_status boids_sweep_create_from_file(const char* path, boids_sweep** out_sweep) {
  if (path == nullptr || out_sweep == nullptr) {
    return boids::capi::fail(
        BOIDS_ERROR_INVALID_ARGUMENT,
        std::string("boids_sweep_create_from_file: ") + (path ? "out_sweep" : "path") + " is NULL");
  }
  if (!std::ifstream(path)) {
    return boids::capi::fail(BOIDS_ERROR_IO, std::string("boids_sweep_create_from_file: ") + path +
                                                 ": cannot open the scenario file");
  }
  return guard("boids_sweep_create_from_file", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    boids::SweepDef def;
    def.scenario_path = path;
    if (def.scenario_path.empty()) throw Error("path is empty");
    *out_sweep = make(std::move(def));
  });
}

void boids_sweep_destroy(boids_sweep* sweep) { delete sweep; }

boids_status boids_sweep_vary(boids_sweep* sweep, const char* spec) {
  return guard("boids_sweep_vary", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    if (spec == nullptr) throw Error("spec is NULL");
    S(sweep);
    const boids::SweepVary v = boids::parse_sweep_vary(spec);
    for (const std::string& old : sweep->def.vary) {
      if (old.substr(0, old.find('=')) == v.key) {
        throw Error(std::string("--vary ") + spec + ": key varied twice");
      }
    }
    boids_sweep& s = changed(sweep);
    s.def.vary.push_back(spec);
    refresh_columns(s);
  });
}

boids_status boids_sweep_set(boids_sweep* sweep, const char* assignment) {
  return guard("boids_sweep_set", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    if (assignment == nullptr) throw Error("assignment is NULL");
    changed(sweep).def.sets.push_back(assignment);
  });
}

boids_status boids_sweep_set_repeats(boids_sweep* sweep, int32_t repeats) {
  return guard("boids_sweep_set_repeats", BOIDS_ERROR_INVALID_ARGUMENT,
               [&] { changed(sweep).def.repeats = repeats; });
}

boids_status boids_sweep_set_steps(boids_sweep* sweep, int64_t steps) {
  return guard("boids_sweep_set_steps", BOIDS_ERROR_INVALID_ARGUMENT,
               [&] { changed(sweep).def.steps = steps; });
}

boids_status boids_sweep_set_measure_from(boids_sweep* sweep, int64_t measure_from) {
  return guard("boids_sweep_set_measure_from", BOIDS_ERROR_INVALID_ARGUMENT,
               [&] { changed(sweep).def.measure_from = measure_from; });
}

boids_status boids_sweep_set_measure_every(boids_sweep* sweep, int64_t measure_every) {
  return guard("boids_sweep_set_measure_every", BOIDS_ERROR_INVALID_ARGUMENT,
               [&] { changed(sweep).def.measure_every = measure_every; });
}

boids_status boids_sweep_set_kind(boids_sweep* sweep, int32_t kind) {
  return guard("boids_sweep_set_kind", BOIDS_ERROR_INVALID_ARGUMENT,
               [&] { changed(sweep).def.kind = kind; });
}

boids_status boids_sweep_set_threads(boids_sweep* sweep, int32_t threads) {
  return guard("boids_sweep_set_threads", BOIDS_ERROR_INVALID_ARGUMENT,
               [&] { changed(sweep).def.threads = threads; });
}

boids_status boids_sweep_set_progress(boids_sweep* sweep, boids_sweep_progress_fn fn,
                                      void* context) {
  return guard("boids_sweep_set_progress", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    boids_sweep& s = S(sweep);
    s.progress = fn;
    s.progress_context = context;
  });
}

boids_status boids_sweep_run(boids_sweep* sweep) {
  return guard("boids_sweep_run", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    boids_sweep& s = changed(sweep);
    boids::SweepDef def = s.def;
    if (s.progress != nullptr) {
      const boids_sweep_progress_fn fn = s.progress;
      void* const ctx = s.progress_context;
      def.on_progress = [fn, ctx](std::size_t done, std::size_t total) { fn(done, total, ctx); };
    }
    boids::SweepPlan plan = boids::plan_sweep(def);
    std::vector<std::size_t> all(plan.jobs.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    std::vector<boids::SweepRow> rows = boids::run_sweep(def, plan, all);
    s.plan = std::move(plan);
    s.rows = std::move(rows);
  });
}

boids_status boids_sweep_row_count(const boids_sweep* sweep, size_t* out_rows) {
  return guard("boids_sweep_row_count", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    if (out_rows == nullptr) throw Error("out_rows is NULL");
    *out_rows = S(sweep).rows.size();
  });
}

boids_status boids_sweep_column_count(const boids_sweep* sweep, size_t* out_columns) {
  return guard("boids_sweep_column_count", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    if (out_columns == nullptr) throw Error("out_columns is NULL");
    *out_columns = S(sweep).columns.size();
  });
}

boids_status boids_sweep_column_name(const boids_sweep* sweep, size_t column,
                                     const char** out_name) {
  return guard("boids_sweep_column_name", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    if (out_name == nullptr) throw Error("out_name is NULL");
    const boids_sweep& s = S(sweep);
    if (column >= s.columns.size()) {
      throw Error("column " + std::to_string(column) + " out of range (" +
                  std::to_string(s.columns.size()) + " columns)");
    }
    *out_name = s.columns[column].c_str();
  });
}

boids_status boids_sweep_cell(const boids_sweep* sweep, size_t row, size_t column,
                              const char** out_text) {
  return guard("boids_sweep_cell", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    if (out_text == nullptr) throw Error("out_text is NULL");
    const boids_sweep& s = S(sweep);
    check_cell(s, row, column);
    if (s.cells.empty()) {
      // The text of every row once, cached (const handle, mutable cache: not thread-safe, as
      // documented for every sweep call).
      auto& cells = const_cast<boids_sweep&>(s).cells;
      for (const boids::SweepRow& r : s.rows) {
        cells.push_back(boids::sweep_detail::split_csv(boids::sweep_csv_line(r)));
      }
    }
    *out_text = s.cells[row][column].c_str();
  });
}

boids_status boids_sweep_value(const boids_sweep* sweep, size_t row, size_t column,
                               double* out_value) {
  return guard("boids_sweep_value", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    if (out_value == nullptr) throw Error("out_value is NULL");
    const boids_sweep& s = S(sweep);
    check_cell(s, row, column);
    const boids::SweepRow& r = s.rows[row];
    const std::size_t nv = r.values.size();
    double v = 0;
    if (column < nv) {
      if (!boids::sweep_detail::parse_double(r.values[column], v)) {
        throw Error("column " + s.columns[column] + ": value " + r.values[column] +
                    " is not a number");
      }
    } else if (column == nv) {
      v = double(r.repeat);
    } else if (column == nv + 1) {
      v = double(r.seed);
    } else {
      const std::size_t k = (column - nv - 2) / 2;
      v = (column - nv - 2) % 2 == 0 ? r.mean[k] : r.stddev[k];
    }
    *out_value = v;
  });
}

boids_status boids_sweep_write_csv(const boids_sweep* sweep, const char* path) {
  if (sweep == nullptr || path == nullptr) {
    return boids::capi::fail(
        BOIDS_ERROR_INVALID_ARGUMENT,
        std::string("boids_sweep_write_csv: ") + (path ? "sweep" : "path") + " is NULL");
  }
  if (sweep->rows.empty()) {
    return boids::capi::fail(BOIDS_ERROR_INVALID_ARGUMENT,
                             "boids_sweep_write_csv: no results: run the sweep first");
  }
  return guard("boids_sweep_write_csv", BOIDS_ERROR_IO,
               [&] { boids::write_sweep_csv(path, sweep->plan, sweep->rows); });
}

}  // extern "C"
