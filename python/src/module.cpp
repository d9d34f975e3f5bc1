// The compiled half of the Python package: boids._boids, a pybind11 module over the public
// C++ API (include/boids/) only. The pure-Python layer (python/boids/__init__.py) adds the
// keyword overrides, file checks, view bookkeeping, recording cadence and the sweep's plan of
// Python values (its runs are boids::run_sweep's); everything here is thin on purpose.
//
// Views: positions/velocities are numpy arrays of shape (n, dims) that alias the world's
// id-ordered component block (ComponentsView::stride), read-only, with the World as their
// base object so the memory outlives neither. They are valid until the next step or change
// of the population; the Python layer refuses population changes while views are alive.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "boids/io.hpp"
#include "boids/metrics.hpp"
#include "boids/scenario.hpp"
#include "boids/sweep.hpp"
#include "boids/world.hpp"

namespace py = pybind11;

namespace {

template <class T>
py::array component_view(const boids::ComponentsView<T>& v, int dims, py::handle owner) {
  const std::size_t n = v.x.size();
  const auto item = static_cast<py::ssize_t>(sizeof(T));
  py::array a(py::dtype::of<T>(), {static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(dims)},
              {item, item * static_cast<py::ssize_t>(v.stride)}, v.x.data(), owner);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

py::array positions(const boids::World& w, py::handle self) {
  if (w.precision() == boids::Precision::f32)
    return component_view(w.positions<float>(), w.dims(), self);
  return component_view(w.positions<double>(), w.dims(), self);
}

py::array velocities(const boids::World& w, py::handle self) {
  if (w.precision() == boids::Precision::f32)
    return component_view(w.velocities<float>(), w.dims(), self);
  return component_view(w.velocities<double>(), w.dims(), self);
}

template <class T>
py::array readonly_span(std::span<const T> s, py::handle owner) {
  py::array a(py::dtype::of<T>(), {static_cast<py::ssize_t>(s.size())},
              {static_cast<py::ssize_t>(sizeof(T))}, s.data(), owner);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

using F64Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

// Checks an (n, dims) array argument and returns it as float64, C order.
F64Array vectors_arg(const py::array& a, const char* name, std::size_t n, int dims) {
  if (a.ndim() != 2 || a.shape(0) != static_cast<py::ssize_t>(n) || a.shape(1) != dims)
    throw py::value_error(std::string(name) + ": expected shape (" + std::to_string(n) + ", " +
                          std::to_string(dims) + "), got " +
                          std::string(py::str(py::tuple(py::cast(
                              std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim()))))));
  const char k = a.dtype().kind();
  if (k != 'f' && k != 'i' && k != 'u')
    throw py::type_error(std::string(name) + ": expected a float array, got dtype " +
                         std::string(py::str(a.dtype())));
  return F64Array::ensure(a);
}

// Fills rows of a State from (n, dims) position and velocity arrays.
void fill_rows(boids::State& s, const py::array& pos, const py::array& vel, std::size_t n,
               int dims) {
  const F64Array p = vectors_arg(pos, "positions", n, dims);
  const F64Array v = vectors_arg(vel, "velocities", n, dims);
  std::vector<double>* ps[3] = {&s.x, &s.y, &s.z};
  std::vector<double>* vs[3] = {&s.vx, &s.vy, &s.vz};
  const double* pd = p.data();
  const double* vd = v.data();
  for (int c = 0; c < dims; ++c) {
    ps[c]->resize(n);
    vs[c]->resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      (*ps[c])[i] = pd[i * dims + c];
      (*vs[c])[i] = vd[i * dims + c];
    }
  }
}

boids::World create(const std::string& text, const std::string& name,
                    const std::vector<std::string>& overrides, bool is_file) {
  const boids::WorldDef def = is_file ? boids::load_scenario(name, overrides)
                                      : boids::parse_scenario(text, name, overrides);
  return boids::World::create(def);
}

}  // namespace

PYBIND11_MODULE(_boids, m) {
  m.doc() = "boids: the compiled core of the Python package (use the boids package instead)";
  m.attr("__version__") = boids::version();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const boids::Error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  m.def("default_scenario_text", [] { return std::string(boids::default_scenario_text()); });
  m.def("scenario_keys", &boids::scenario_keys);

  // The seed of a scenario after its overrides (checked like create() checks them).
  m.def(
      "scenario_seed",
      [](const std::string& text, const std::string& name,
         const std::vector<std::string>& overrides, bool is_file) {
        const boids::WorldDef def = is_file ? boids::load_scenario(name, overrides)
                                            : boids::parse_scenario(text, name, overrides);
        return def.seed;
      },
      py::arg("text"), py::arg("name"), py::arg("overrides"), py::arg("is_file"));

  // boids::run_sweep (boids/sweep.hpp) over a plan the Python layer made from its own values
  // (any Python value as TOML text, so a list item may hold a comma, which a "KEY=a,b,c" spec
  // could not): keys, each key's values as TOML text, and the jobs (value index per key,
  // repeat, seed). Returns the rows' means and standard deviations, shape (jobs, 14):
  // mean and std of each metric in the CSV's order.
  m.def(
      "run_sweep",
      [](const std::string& text, const std::string& name, bool is_file,
         const std::vector<std::string>& sets, const std::vector<std::string>& keys,
         const std::vector<std::vector<std::string>>& values,
         const std::vector<std::tuple<std::vector<std::size_t>, int, std::uint64_t>>& jobs,
         long long steps, long long measure_from, long long measure_every, int kind, int threads) {
        boids::SweepDef def;
        if (is_file) {
          def.scenario_path = name;
        } else {
          def.scenario_text = text;
          def.scenario_name = name;
        }
        def.sets = sets;
        def.steps = steps;
        def.measure_from = measure_from;
        def.measure_every = measure_every;
        def.kind = kind;
        def.threads = threads;
        boids::SweepPlan plan;
        if (keys.size() != values.size()) throw py::value_error("run_sweep: keys and values");
        for (std::size_t k = 0; k < keys.size(); ++k) plan.vary.push_back({keys[k], values[k]});
        std::vector<std::size_t> all;
        for (const auto& [pick, repeat, seed] : jobs) {
          if (pick.size() != keys.size()) throw py::value_error("run_sweep: a job's values");
          for (std::size_t k = 0; k < pick.size(); ++k) {
            if (pick[k] >= values[k].size()) throw py::value_error("run_sweep: a value index");
          }
          all.push_back(plan.jobs.size());
          plan.jobs.push_back({pick, repeat, seed});
        }
        std::vector<boids::SweepRow> rows;
        {
          py::gil_scoped_release release;
          rows = boids::run_sweep(def, plan, all);
        }
        py::array_t<double> out({py::ssize_t(rows.size()), py::ssize_t(2 * boids::kSweepMetrics)});
        auto a = out.mutable_unchecked<2>();
        for (std::size_t i = 0; i < rows.size(); ++i) {
          for (std::size_t k = 0; k < boids::kSweepMetrics; ++k) {
            a(py::ssize_t(i), py::ssize_t(2 * k)) = rows[i].mean[k];
            a(py::ssize_t(i), py::ssize_t(2 * k + 1)) = rows[i].stddev[k];
          }
        }
        return out;
      },
      py::arg("text"), py::arg("name"), py::arg("is_file"), py::arg("sets"), py::arg("keys"),
      py::arg("values"), py::arg("jobs"), py::arg("steps"), py::arg("measure_from"),
      py::arg("measure_every"), py::arg("kind"), py::arg("threads"));

  // boids::Recorder (boids/io.hpp); the Python layer decides when frames are taken.
  py::class_<boids::Recorder>(m, "Recorder")
      .def(py::init<const std::string&, const boids::World&, std::uint64_t>(), py::arg("path"),
           py::arg("world"), py::arg("every"))
      .def(
          "frame",
          [](boids::Recorder& r, const boids::World& w) {
            py::gil_scoped_release release;
            r.frame(w);
          },
          py::arg("world"))
      .def("finish",
           [](boids::Recorder& r) {
             py::gil_scoped_release release;
             r.finish();
           })
      .def_property_readonly("frames", &boids::Recorder::frames)
      .def_property_readonly("every", &boids::Recorder::every)
      .def_property_readonly("finished", &boids::Recorder::finished);

  py::class_<boids::World>(m, "World")
      .def_static("create", &create, py::arg("text"), py::arg("name"), py::arg("overrides"),
                  py::arg("is_file"))
      .def_static(
          "load",
          [](const std::string& path, int threads) {
            boids::LoadOptions o;
            o.threads = threads;
            return boids::World::load(path, o);
          },
          py::arg("path"), py::arg("threads") = -1)
      .def(
          "step",
          [](boids::World& w, int n) {
            if (n < 0) throw py::value_error("step: n must be >= 0, got " + std::to_string(n));
            py::gil_scoped_release release;
            w.step(n);
          },
          py::arg("n") = 1)
      .def("save", [](const boids::World& w, const std::string& path) { w.save(path); })
      .def(
          "metrics",
          [](const boids::World& w, int kind) {
            boids::FlockMetrics f;
            {
              py::gil_scoped_release release;
              f = boids::compute_metrics(w, kind);
            }
            py::dict d;
            d["polarization"] = f.polarization;
            d["milling"] = f.milling;
            d["mean_speed"] = f.mean_speed;
            d["mean_nnd"] = f.mean_nnd;
            d["mean_neighbours"] = f.mean_neighbours;
            d["clusters"] = f.clusters;
            d["largest_cluster"] = f.largest_cluster;
            d["count"] = f.count;
            d["moving"] = f.moving;
            return d;
          },
          py::arg("kind") = 0)
      .def_property_readonly("count", &boids::World::count)
      .def_property_readonly("step_count", &boids::World::step_count)
      .def_property_readonly("dims", &boids::World::dims)
      .def_property_readonly("next_id", &boids::World::next_id)
      .def_property_readonly("state_hash", &boids::World::state_hash)
      .def_property_readonly("kernel", &boids::World::kernel_name)
      .def_property_readonly("dtype",
                             [](const boids::World& w) {
                               return w.precision() == boids::Precision::f32
                                          ? py::dtype::of<float>()
                                          : py::dtype::of<double>();
                             })
      .def_property_readonly("scenario_text",
                             [](const boids::World& w) { return boids::scenario_to_toml(w.def()); })
      .def_property_readonly(
          "time", [](const boids::World& w) { return double(w.step_count()) * w.def().dt; })
      // `owner` is the Python layer's view guard: the arrays' base object.
      .def("positions", [](const boids::World& w, py::object owner) { return positions(w, owner); })
      .def("velocities",
           [](const boids::World& w, py::object owner) { return velocities(w, owner); })
      .def("ids",
           [](const boids::World& w, py::object owner) { return readonly_span(w.ids(), owner); })
      .def("kinds",
           [](const boids::World& w, py::object owner) { return readonly_span(w.kinds(), owner); })
      .def(
          "set_state",
          [](boids::World& w, const py::array& pos, const py::array& vel) {
            boids::State s;
            const auto ids = w.ids();
            s.id.assign(ids.begin(), ids.end());
            fill_rows(s, pos, vel, w.count(), w.dims());
            w.set_state(s);
          },
          py::arg("positions"), py::arg("velocities"))
      .def(
          "add_seeded",
          [](boids::World& w, std::uint32_t count, int kind) {
            if (kind < 0 || kind > 2)
              throw py::value_error("kind: must be 0 (boid), 1 (predator) or 2 (leader)");
            return w.add_boids(count, static_cast<boids::Kind>(kind));
          },
          py::arg("count"), py::arg("kind") = 0)
      .def(
          "add_rows",
          [](boids::World& w, const py::array& pos, const py::array& vel, int kind) {
            if (kind < 0 || kind > 2)
              throw py::value_error("kind: must be 0 (boid), 1 (predator) or 2 (leader)");
            boids::State s;
            const std::size_t n = pos.ndim() >= 1 ? static_cast<std::size_t>(pos.shape(0)) : 0;
            fill_rows(s, pos, vel, n, w.dims());
            s.kind.assign(n, static_cast<std::uint8_t>(kind));
            return w.add_boids(s);
          },
          py::arg("positions"), py::arg("velocities"), py::arg("kind") = 0)
      .def(
          "remove",
          [](boids::World& w,
             const py::array_t<std::uint32_t, py::array::c_style | py::array::forcecast>& ids) {
            if (ids.ndim() != 1) throw py::value_error("ids: expected a 1-D array of ids");
            w.remove_boids({ids.data(), static_cast<std::size_t>(ids.size())});
          },
          py::arg("ids"));
}
