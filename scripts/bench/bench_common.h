/*
** bench_common.h — what the C benches share (kql_bench.c, pg_bench.c, search_bench.c): a
** deterministic generator (xorshift64; a bench that wants its own
** sequence defines BENCH_SEED before including this) and a monotonic
** clock in milliseconds.
*/
#ifndef KIP_BENCH_COMMON_H
#define KIP_BENCH_COMMON_H
#include <stdint.h>
#include <time.h>

#ifndef BENCH_SEED
#define BENCH_SEED 0x9E3779B97F4A7C15ULL
#endif

static uint64_t rng = BENCH_SEED;

static inline uint64_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static inline int64_t rand_below(int64_t n) { return (int64_t)(next_rand() % (uint64_t)n); }

static inline double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

#endif
