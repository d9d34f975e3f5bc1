// The grid engine's look-up of the kind-0 slots near a point (NearSlots, core/model.hpp): the
// predators' view of the prey walks the engine's own cell list instead of a grid of its own.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "parallel/cell_list.hpp"

namespace boids {

/// Appends to `out` the slot ranges [begin, end) of the cells of plan `g` (cell starts `cs`,
/// world size `size`) that hold every kind-0 boid within `reach` of p: the rows of cells whose
/// extent comes within reach of p (a margin wider, for rounding) and in each the x-cells within
/// the rest of it; cyclically when wrapping (the whole axis once when the reach spans it),
/// clamped into the grid otherwise, whose edge cells then reach outwards without end (the cell
/// list clamps boids beyond them into them). Disjoint ranges, not in slot order.
template <class Real>
void grid_near_slots(const GridPlan& g, const std::uint32_t* cs, double size, const Real* p,
                     double reach, std::vector<std::pair<std::uint32_t, std::uint32_t>>& out);

}  // namespace boids
