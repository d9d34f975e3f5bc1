// The grid engine's pass for kind 0's neighbour-list rules (topological neighbours, the
// couzin profile; core/neighbour_list.hpp): every cell's boids gather their visible
// candidates from the cell's stencil (the x-row's copy of it, or the cell's runs where the
// stencil crosses a wrap seam; parallel/list_gather.hpp), then select, sort by id and sum
// (for topological k <= 15 on packs of at most 4 lanes, the lane kernel does all of it for
// a cell's boids at once, parallel/list_lanes_impl.hpp, and hands ties back to that path);
// the topological FlockSums rows then finish in SIMD batches where finish_boid is the plain
// one. Parallel over x-rows of cells; each boid's result depends on the state alone, so any
// thread count gives the same bits, and the naive stepper's.
#pragma once

#include <cstdint>

#include "core/kernels.hpp"
#include "core/model.hpp"
#include "core/store.hpp"
#include "parallel/threading.hpp"

namespace boids {

/// Steps every kind-0 boid of `in` (slots [0, cell_start[ncells]), cell order, as `g` views
/// it) into the same slots of `out`.
template <class Real>
void list_step(const ModelParams<Real>& m, const StepContext<Real>& ctx, const GridView<Real>& g,
               const BoidStore<Real>& in, BoidStore<Real>& out, Executor& ex);

/// Steps of list_step that ran the topological pass on its own grid (parallel/list_fine_grid.hpp),
/// and the wider blocks scanned where the first block did not settle a boid, since the program
/// started: for
/// the tests, which must see that path run.
std::uint64_t list_own_grid_steps() noexcept;
std::uint64_t list_own_grid_fallbacks() noexcept;
/// Boids the lane kernel settled on the pass's own grid (parallel/list_fine_step.hpp), since
/// the program started: for the tests.
std::uint64_t list_own_grid_lane_boids() noexcept;

/// Boids whose topological neighbours and sums the lane kernel settled (parallel/list_gather.hpp,
/// LaneFn), and those it handed back to the gather (ties at the k-th place), since the program
/// started: for the tests, which must see that path run.
std::uint64_t list_lane_boids() noexcept;
std::uint64_t list_lane_unsettled() noexcept;

/// Groups of `boids` (4, 2 or 1) boids the float lane kernel on AVX2 and AVX-512 ran (G boids x
/// W / G candidates per register, parallel/list_lanes_multi_impl.hpp), since the program
/// started: for the tests.
std::uint64_t list_lane_groups(int boids) noexcept;

/// Groups of that kernel whose insertion network ran on half its k + 1 places (no lane saw
/// more visible candidates), since the program started: for the tests.
std::uint64_t list_lane_short_inserts() noexcept;
/// Groups of up to 4 boids the double lane kernel scanned as 4 boids x 2 candidates per 8-lane
/// register and staged for the row finish (AVX-512 only; parallel/list_lanes_dz_impl.hpp).
std::uint64_t list_lane_double_pairs() noexcept;

/// x-rows of the row pass whose stencil copy reused the previous row's (RowCopy::slide,
/// parallel/list_row_copy.hpp), since the program started: for the tests.
std::uint64_t list_row_copy_slides() noexcept;
/// x-rows of the row pass whose float row finish read the ids through the slots, their copy
/// carrying none (LaneCell::slot_id; AVX2 and AVX-512), since the program started: for the tests.
std::uint64_t list_row_finish_slot_ids() noexcept;

extern template void list_step<float>(const ModelParams<float>&, const StepContext<float>&,
                                      const GridView<float>&, const BoidStore<float>&,
                                      BoidStore<float>&, Executor&);
extern template void list_step<double>(const ModelParams<double>&, const StepContext<double>&,
                                       const GridView<double>&, const BoidStore<double>&,
                                       BoidStore<double>&, Executor&);

}  // namespace boids
