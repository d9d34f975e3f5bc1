// Boid state as CSV: header "id,x,y,vx,vy" (2D) or "id,x,y,z,vx,vy,vz" (3D), an optional
// "kind" column, rows in id order, numbers written so they read back to the same value.
#pragma once

// The functions are public: read_state_csv, parse_state_csv and write_state_csv in boids/io.hpp.
#include "boids/io.hpp"
#include "core/files.hpp"  // write_file_atomically
