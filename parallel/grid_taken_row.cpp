// The flock metrics' hooks into the grid engine (parallel/grid_engine.hpp): they reach it
// through GridRowSource (parallel/grid_taken_row.hpp), which only the grid engine implements.
#include "parallel/grid_taken_row.hpp"

#include "core/engine.hpp"

namespace boids {

template <class Real>
bool grid_shared_cells(const World& w, SharedCells<Real>& out, bool build) {
  // The cell list is a cache of the state: building it changes nothing a caller can observe.
  auto* g = dynamic_cast<const GridRowSource<Real>*>(&engine_of(w));
  return g && const_cast<GridRowSource<Real>*>(g)->shared_cells(out, build);
}
template bool grid_shared_cells<float>(const World&, SharedCells<float>&, bool);
template bool grid_shared_cells<double>(const World&, SharedCells<double>&, bool);

bool grid_request_row(World& w) {
  if (auto* g = dynamic_cast<GridRowSource<float>*>(&engine_of(w))) return g->request_row();
  if (auto* g = dynamic_cast<GridRowSource<double>*>(&engine_of(w))) return g->request_row();
  return false;
}

template <class Real>
bool grid_taken_row(const World& w, TakenRow<Real>& out) {
  auto* g = dynamic_cast<const GridRowSource<Real>*>(&engine_of(w));
  return g && g->taken_row(out);
}
template bool grid_taken_row<float>(const World&, TakenRow<float>&);
template bool grid_taken_row<double>(const World&, TakenRow<double>&);

}  // namespace boids
