#include "parallel/grid_engine.hpp"

namespace boids {

std::unique_ptr<EngineBase> make_grid_engine(const WorldDef&) {
  throw Error("engine.kind: the grid engine is not built yet; use --engine naive");
}

}  // namespace boids
