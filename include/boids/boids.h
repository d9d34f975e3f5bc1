/* boids: the C API. Plain structs, opaque handles, status codes.
 *
 * This is the stable binary interface that C programs and other languages (Python ctypes or
 * cffi, Rust, C#, ...) bind to. It wraps the C++ API in boids/world.hpp over the same engine.
 *
 * Error policy: every function that can fail returns a boids_status; BOIDS_OK (0) is success.
 * On failure nothing has changed, output arguments are untouched, and boids_last_error()
 * returns a one-line message (per thread) naming what is at fault. No C++ exception ever
 * crosses this interface. Null handles, null buffers, wrong sizes, NaN or out-of-box states
 * and unknown ids are errors, never crashes.
 *
 * Threads: one world must not be used from two threads at once; different worlds may be used
 * from different threads concurrently. Each world runs its parallel loops on its own worker
 * threads (def.threads) or through the host's parallel-for (def.host_parallel_for).
 *
 * Order: every array the API reads or writes lists boids in ascending id order. Ids are
 * stable: they never change and are never reused (boids created with the world have ids
 * 0..count-1, added ones get the next ids).
 *
 * Vectors are interleaved in the copy functions: x0 y0 [z0] x1 y1 [z1] ... (dims values per
 * boid), always as double. The zero-copy views give the engine's own arrays, one per
 * component, in the world's precision (float or double).
 */
#ifndef BOIDS_BOIDS_H
#define BOIDS_BOIDS_H

#include <stddef.h>
#include <stdint.h>

#include "boids/export.h"
#include "boids/version.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum boids_status {
  BOIDS_OK = 0,
  BOIDS_ERROR_INVALID_ARGUMENT = 1, /* null handle/buffer, wrong size, bad value, unknown id */
  BOIDS_ERROR_IO = 2,               /* file missing, unreadable, unwritable, corrupt */
  BOIDS_ERROR_OUT_OF_MEMORY = 3,
  BOIDS_ERROR_INTERNAL = 4 /* a bug: please report with boids_last_error() */
} boids_status;

typedef enum boids_boundary {
  BOIDS_BOUNDARY_WRAP = 0,    /* periodic box, minimum-image distances */
  BOIDS_BOUNDARY_REFLECT = 1, /* hard walls */
  BOIDS_BOUNDARY_OPEN = 2     /* unbounded */
} boids_boundary;

typedef enum boids_engine {
  BOIDS_ENGINE_NAIVE = 0,  /* O(n^2) scalar reference stepper */
  BOIDS_ENGINE_GRID = 1,   /* cell lists, SIMD kernels, threads */
  BOIDS_ENGINE_CLUSTER = 2 /* the grid engine with cluster-pair kernels (docs/engine.md) */
} boids_engine;

typedef enum boids_precision { BOIDS_F32 = 0, BOIDS_F64 = 1 } boids_precision;

enum { BOIDS_KIND_BOID = 0, BOIDS_KIND_PREDATOR = 1, BOIDS_KIND_LEADER = 2, BOIDS_KIND_COUNT = 3 };

/* The flocking rules of one kind (docs/model.md). Lengths in world units (u), time in s. */
typedef struct boids_rule_def {
  double radius;            /* perception radius (u) */
  double separation_radius; /* separation acts nearer than this (u), <= radius */
  double view_angle;        /* full field-of-view cone (deg), 360 = no blind spot */
  double separation;        /* weight of the separation term */
  double alignment;         /* weight of the alignment term */
  double cohesion;          /* weight of the cohesion term */
} boids_rule_def;

typedef struct boids_motion_def {
  double max_speed; /* speed ceiling (u/s) */
  double min_speed; /* speed floor (u/s), 0 disables it */
  double max_force; /* steering force clamp (u/s^2) */
} boids_motion_def;

typedef struct boids_kind_def {
  boids_rule_def rules;
  boids_motion_def motion;
} boids_kind_def;

/* A task of a parallel-for: process indices [begin, end). */
typedef void (*boids_task_fn)(size_t begin, size_t end, void* task_context);

/* The host's parallel-for: run task over disjoint ranges covering [0, count) exactly once
 * (about `grain` indices each is a good size), on any threads, in any order; return when all
 * are done. Results do not depend on how the host splits the range. */
typedef void (*boids_host_parallel_for_fn)(boids_task_fn task, void* task_context, size_t count,
                                           size_t grain, void* host_context);

/* Mirrors boids::WorldDef. Always start from boids_default_world_def(). Fields the C struct
 * does not have (behaviours added later) can be set through scenario TOML with
 * boids_world_create_from_scenario() / boids_world_set_scenario(). */
typedef struct boids_world_def {
  int32_t dims;       /* 2 or 3 */
  double size;        /* edge length of the world box (u) */
  int32_t boundary;   /* boids_boundary */
  uint32_t count;     /* boids created at start (kind 0) */
  uint32_t predators; /* of those, predators (kind 1): the ids after the boids */
  uint32_t leaders;   /* of those, leaders (kind 2): the highest ids */
  uint64_t seed;      /* seeds the counter-based generator */
  double dt;          /* time step (s) */
  boids_kind_def kinds[BOIDS_KIND_COUNT];       /* [0] boids, [1] predators, [2] leaders */
  int32_t engine;                               /* boids_engine */
  int32_t precision;                            /* boids_precision */
  int32_t threads;                              /* worker threads; 0 = all cores, 1 = none */
  int32_t simd;                                 /* 0 forces scalar kernels */
  int32_t cells_per_radius;                     /* grid engine: 1 or 2 */
  boids_host_parallel_for_fn host_parallel_for; /* optional host threading, or NULL */
  void* host_context;                           /* passed back to host_parallel_for */
  uint32_t internal_cookie;                     /* set by boids_default_world_def(); do not touch */
} boids_world_def;

/* Zero-copy view of one vector quantity: one array per component (z is NULL in 2D), each
 * `count` values of type float (BOIDS_F32) or double (BOIDS_F64), in id order. Valid until
 * the next call that changes the world (step, set_state, add, remove, set_def, destroy). */
typedef struct boids_view {
  const void* x;
  const void* y;
  const void* z;
  size_t count;
  int32_t precision; /* boids_precision */
} boids_view;

typedef struct boids_world boids_world; /* opaque */

/* ---- library ---- */

/* Version of the linked library, "MAJOR.MINOR.PATCH" (compare with BOIDS_VERSION_STRING). */
BOIDS_API const char* boids_version(void);
/* The message of the last failed call on this thread ("" if none). Valid until the next
 * failing call on this thread. */
BOIDS_API const char* boids_last_error(void);
/* A short name for a status code ("ok", "invalid argument", ...). */
BOIDS_API const char* boids_status_name(boids_status status);

/* ---- lifetime ---- */

BOIDS_API boids_world_def boids_default_world_def(void);
BOIDS_API boids_status boids_world_create(const boids_world_def* def, boids_world** out_world);
/* Creates a world from scenario TOML text (the format of `boids run --scenario`). */
BOIDS_API boids_status boids_world_create_from_scenario(const char* toml_text,
                                                        boids_world** out_world);
/* Destroys a world; NULL is allowed and does nothing. */
BOIDS_API void boids_world_destroy(boids_world* world);

/* ---- stepping and queries ---- */

BOIDS_API boids_status boids_world_step(boids_world* world, int32_t steps);
BOIDS_API boids_status boids_world_count(const boids_world* world, size_t* out_count);
BOIDS_API boids_status boids_world_step_count(const boids_world* world, uint64_t* out_steps);
BOIDS_API boids_status boids_world_dims(const boids_world* world, int32_t* out_dims);
BOIDS_API boids_status boids_world_precision(const boids_world* world, int32_t* out_precision);
BOIDS_API boids_status boids_world_next_id(const boids_world* world, uint32_t* out_id);
/* Index of `id` in the id-ordered arrays; BOIDS_ERROR_INVALID_ARGUMENT if no such boid. */
BOIDS_API boids_status boids_world_index_of(const boids_world* world, uint32_t id,
                                            size_t* out_index);
/* FNV-1a 64 hash of the exact state bytes, for determinism checks. */
BOIDS_API boids_status boids_world_state_hash(const boids_world* world, uint64_t* out_hash);

/* ---- reading the state ---- */

/* Copies into caller buffers; `capacity` is the number of elements the buffer holds and must
 * be at least count*dims (vectors) or count (ids, kinds). */
BOIDS_API boids_status boids_world_get_positions(const boids_world* world, double* out,
                                                 size_t capacity);
BOIDS_API boids_status boids_world_get_velocities(const boids_world* world, double* out,
                                                  size_t capacity);
BOIDS_API boids_status boids_world_get_kinds(const boids_world* world, uint8_t* out,
                                             size_t capacity);
BOIDS_API boids_status boids_world_get_ids(const boids_world* world, uint32_t* out,
                                           size_t capacity);
/* Zero-copy views (see boids_view). The naive engine's are free; the grid engine's are one
 * gather into a cached buffer the first time after a change. */
BOIDS_API boids_status boids_world_view_positions(const boids_world* world, boids_view* out);
BOIDS_API boids_status boids_world_view_velocities(const boids_world* world, boids_view* out);
BOIDS_API boids_status boids_world_view_kinds(const boids_world* world, const uint8_t** out,
                                              size_t* out_count);
BOIDS_API boids_status boids_world_view_ids(const boids_world* world, const uint32_t** out,
                                            size_t* out_count);

/* ---- changing the world between steps ---- */

/* Replaces every boid's position and velocity (count*dims doubles each, interleaved, id
 * order) and optionally kind (NULL keeps the kinds). `count` must equal the world's count;
 * values must be finite and inside [0, size) unless the boundary is open. */
BOIDS_API boids_status boids_world_set_state(boids_world* world, const double* positions,
                                             const double* velocities, const uint8_t* kinds,
                                             size_t count);
/* Adds `count` boids of `kind` with the seeded initial state; *out_first_id (may be NULL)
 * receives the first new id, the others follow consecutively. */
BOIDS_API boids_status boids_world_add(boids_world* world, uint32_t count, int32_t kind,
                                       uint32_t* out_first_id);
/* Adds `count` boids with the given state (as in set_state; kinds NULL means boids). */
BOIDS_API boids_status boids_world_add_with_state(boids_world* world, const double* positions,
                                                  const double* velocities, const uint8_t* kinds,
                                                  size_t count, uint32_t* out_first_id);
/* Removes the boids with these ids (all must exist, no duplicates; else nothing changes). */
BOIDS_API boids_status boids_world_remove(boids_world* world, const uint32_t* ids, size_t count);
/* The current def (host threading included). */
BOIDS_API boids_status boids_world_get_def(const boids_world* world, boids_world_def* out_def);
/* Changes the def between steps: dt, rules and motion of every kind may change (behaviours,
 * vehicles, goals, obstacles and the rest the struct does not hold keep their values); dims, size,
 * boundary, count, predators, leaders, seed, engine, precision, threads, simd, cells_per_radius and
 * the host threading may not (error naming the field). */
BOIDS_API boids_status boids_world_set_def(boids_world* world, const boids_world_def* def);
/* Same with scenario TOML text: keys not given keep their defaults (not the current values),
 * so pass a complete scenario, e.g. one from boids_world_get_scenario(). */
BOIDS_API boids_status boids_world_set_scenario(boids_world* world, const char* toml_text);
/* Writes the current def as scenario TOML into `buffer` (NUL-terminated). *out_length
 * (may be NULL) receives the length without the NUL; if capacity is too small (or buffer is
 * NULL) nothing is written, *out_length still gets the length and the call fails. */
BOIDS_API boids_status boids_world_get_scenario(const boids_world* world, char* buffer,
                                                size_t capacity, size_t* out_length);

/* ---- snapshots ---- */

/* Saves the whole world to a versioned binary file with a checksum, atomically. */
BOIDS_API boids_status boids_world_save(const boids_world* world, const char* path);
/* Loads a snapshot; stepping it continues the saved run bit-identically. host_parallel_for
 * and host_context (both may be NULL) give the new world host threading. */
BOIDS_API boids_status boids_world_load(const char* path,
                                        boids_host_parallel_for_fn host_parallel_for,
                                        void* host_context, boids_world** out_world);

/* ---- state files and recordings (docs/formats.md; as boids/io.hpp) ---- */

/* Writes the state as CSV "id,x,y[,z],vx,vy[,vz],kind", rows in id order, numbers that read
 * back to the same values; streamed from the store and written atomically (an existing file is
 * replaced only when the new one is complete). What `boids run --out` writes. */
BOIDS_API boids_status boids_world_write_state_csv(const boids_world* world, const char* path);
/* Reads such a file (it must hold exactly the world's count of boids, the world's dims) and
 * sets the world's state from it, as boids_world_set_state. BOIDS_ERROR_IO names the file,
 * line and column of the first problem; the world is unchanged then. */
BOIDS_API boids_status boids_world_read_state_csv(boids_world* world, const char* path);

typedef struct boids_recorder boids_recorder; /* opaque */

/* Opens a trajectory recording of worlds shaped like `world` (dims, precision): the binary
 * BOIDSREC format, or CSV "step,id,x,y[,z],vx,vy[,vz],kind" when `path` ends in ".csv" (the
 * files of `boids run --record PATH --every K`). `every` (>= 1) is stored in the header; the
 * caller decides when to write a frame. Nothing appears at `path` before
 * boids_recorder_finish(). One recorder must not be used from two threads at once. */
BOIDS_API boids_status boids_recorder_open(const boids_world* world, const char* path,
                                           uint64_t every, boids_recorder** out_recorder);
/* Appends the world's current state (step count, ids, kinds, positions, velocities). */
BOIDS_API boids_status boids_recorder_frame(boids_recorder* recorder, const boids_world* world);
/* Flushes, closes and renames the file into place; *out_frames (may be NULL) receives the
 * frames written. A second call does nothing. */
BOIDS_API boids_status boids_recorder_finish(boids_recorder* recorder, uint64_t* out_frames);
/* Frees the recorder; an unfinished recording is abandoned and leaves no file. NULL is a
 * no-op. */
BOIDS_API void boids_recorder_destroy(boids_recorder* recorder);

/* ---- flock metrics (docs/metrics.md) ---- */

/* Order parameters of the boids of one kind, as boids::FlockMetrics. Every field is finite;
 * with no boid of the kind all are 0. */
typedef struct boids_flock_metrics {
  uint64_t count;         /* boids of the kind (n) */
  uint64_t moving;        /* of those, boids with |v| > 0 (m) */
  double polarization;    /* |sum v_i/|v_i|| / m, 0..1 */
  double milling;         /* |sum r_i/|r_i| x v_i/|v_i|| / m about the group centre, 0..1 */
  double mean_speed;      /* mean |v_i| */
  double mean_nnd;        /* mean distance to the nearest other boid of the kind */
  double mean_neighbours; /* mean neighbour count (radius, view cone, same kind) */
  uint64_t clusters;      /* connected groups, linked when closer than rules.radius */
  double largest_cluster; /* boids in the largest group / n, 0..1 */
} boids_flock_metrics;

/* Computes the metrics of the boids of `kind` (BOIDS_KIND_*) in O(n) on the world's threads;
 * bit-identical for any thread count. */
BOIDS_API boids_status boids_world_compute_metrics(const boids_world* world, int32_t kind,
                                                   boids_flock_metrics* out_metrics);

/* ---- sweeps (docs/metrics.md "Sweeps"; as boids/sweep.hpp and `boids sweep`) ---- */

/* A parameter sweep: every combination of the varied keys' values, each run `repeats` times
 * with seeds seed, seed+1, ...; each run reports the mean and standard deviation of the flock
 * metrics over its steps measure_from, measure_from+every, ..., steps. The results are a
 * table with the columns of `boids sweep --out`, bit-identical for any thread count. One sweep
 * must not be used from two threads at once. */
typedef struct boids_sweep boids_sweep; /* opaque */

/* Called after each finished run, one call at a time, from the sweep's worker threads. */
typedef void (*boids_sweep_progress_fn)(size_t done, size_t total, void* context);

/* A sweep of scenario TOML text (NULL: the built-in default scenario of `boids run`), with
 * the defaults of `boids sweep`: 1 repeat, 1000 steps, measured from step 0 every step, kind
 * 0, all cores. */
BOIDS_API boids_status boids_sweep_create(const char* toml_text, boids_sweep** out_sweep);
/* Same for a scenario file, read by every run as `boids sweep --scenario PATH`;
 * BOIDS_ERROR_IO when it cannot be opened. */
BOIDS_API boids_status boids_sweep_create_from_file(const char* path, boids_sweep** out_sweep);
/* Destroys a sweep and its results; NULL is allowed and does nothing. */
BOIDS_API void boids_sweep_destroy(boids_sweep* sweep);

/* Adds a varied key: "KEY=FROM:TO:COUNT" (COUNT values evenly spaced, ends included) or
 * "KEY=a,b,c" (values in TOML syntax). The spec is checked now; the message names it as
 * `boids sweep --vary` does ("--vary SPEC: unknown scenario key KEY", ...). */
BOIDS_API boids_status boids_sweep_vary(boids_sweep* sweep, const char* spec);
/* Adds a fixed override "section.key=value" (as --set), checked when the sweep runs. */
BOIDS_API boids_status boids_sweep_set(boids_sweep* sweep, const char* assignment);
/* The settings of `boids sweep` of the same names; checked when the sweep runs. Changing
 * anything (these, boids_sweep_vary, boids_sweep_set) clears the results. */
BOIDS_API boids_status boids_sweep_set_repeats(boids_sweep* sweep, int32_t repeats);
BOIDS_API boids_status boids_sweep_set_steps(boids_sweep* sweep, int64_t steps);
BOIDS_API boids_status boids_sweep_set_measure_from(boids_sweep* sweep, int64_t measure_from);
BOIDS_API boids_status boids_sweep_set_measure_every(boids_sweep* sweep, int64_t measure_every);
BOIDS_API boids_status boids_sweep_set_kind(boids_sweep* sweep, int32_t kind);
/* Worker threads, 0 = all cores; the results do not depend on it. */
BOIDS_API boids_status boids_sweep_set_threads(boids_sweep* sweep, int32_t threads);
/* An optional progress callback (NULL removes it). */
BOIDS_API boids_status boids_sweep_set_progress(boids_sweep* sweep, boids_sweep_progress_fn fn,
                                                void* context);

/* Checks every combination, then runs them all. On failure (a bad value, named as
 * `boids sweep` names it) the sweep has no results. */
BOIDS_API boids_status boids_sweep_run(boids_sweep* sweep);

/* The results: one row per run in the canonical order (first varied key slowest, repeat
 * fastest; 0 rows before a run), and the columns of the CSV: each varied key, "repeat",
 * "seed", then "<metric>_mean" and "<metric>_std" for polarization, milling, mean_speed,
 * mean_nnd, mean_neighbours, clusters and largest_cluster. */
BOIDS_API boids_status boids_sweep_row_count(const boids_sweep* sweep, size_t* out_rows);
BOIDS_API boids_status boids_sweep_column_count(const boids_sweep* sweep, size_t* out_columns);
/* The column's name; valid until the sweep is changed or destroyed. */
BOIDS_API boids_status boids_sweep_column_name(const boids_sweep* sweep, size_t column,
                                               const char** out_name);
/* A cell as text, exactly as in the CSV file but unquoted (numbers read back exactly); valid
 * until the sweep is changed, run again or destroyed. */
BOIDS_API boids_status boids_sweep_cell(const boids_sweep* sweep, size_t row, size_t column,
                                        const char** out_text);
/* A cell as a number (the metrics exactly; a varied value that is not a number is an error;
 * a seed above 2^53 is rounded). */
BOIDS_API boids_status boids_sweep_value(const boids_sweep* sweep, size_t row, size_t column,
                                         double* out_value);
/* Writes the results as `boids sweep --out` does (atomically); BOIDS_ERROR_IO when it cannot. */
BOIDS_API boids_status boids_sweep_write_csv(const boids_sweep* sweep, const char* path);

#ifdef __cplusplus
}
#endif

#endif /* BOIDS_BOIDS_H */
