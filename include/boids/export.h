/* boids: the export macro of the public API (C and C++).
 *
 * The library is compiled with -fvisibility=hidden: only what a public header marks BOIDS_API
 * is visible in the shared library (libboids.so), so the engine's internals are not part of
 * its ABI and cannot clash with a host's symbols. In a static library the mark changes nothing.
 */
#ifndef BOIDS_EXPORT_H
#define BOIDS_EXPORT_H

#if defined(__GNUC__)
#define BOIDS_API __attribute__((visibility("default")))
#else
#define BOIDS_API
#endif

#endif
