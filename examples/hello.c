/* The smallest boids program in C: a flock of 2000 boids, 100 steps, copy the positions. */
#include <boids/boids.h>
#include <stdio.h>
#include <stdlib.h>

static int check(boids_status status, const char* what) {
  if (status != BOIDS_OK) fprintf(stderr, "%s: %s\n", what, boids_last_error());
  return status == BOIDS_OK;
}

int main(void) {
  boids_world_def def = boids_default_world_def();
  boids_world* world = NULL;
  double* positions = NULL;
  size_t count = 0;
  int ok = 0;
  def.count = 2000;
  def.threads = 2;

  if (check(boids_world_create(&def, &world), "create") &&
      check(boids_world_step(world, 100), "step") &&
      check(boids_world_count(world, &count), "count")) {
    positions = malloc(count * 3 * sizeof(double)); /* x y z per boid, in id order */
    if (positions && check(boids_world_get_positions(world, positions, count * 3), "positions")) {
      printf("boids %s (C): %zu boids, boid 0 at (%.2f, %.2f, %.2f)\n", boids_version(), count,
             positions[0], positions[1], positions[2]);
      ok = 1;
    }
  }
  /* Bad arguments come back as status codes, never as crashes. */
  if (boids_world_step(NULL, 1) != BOIDS_ERROR_INVALID_ARGUMENT) ok = 0;
  free(positions);
  boids_world_destroy(world);
  return ok ? 0 : 1;
}
