/*
** store_ids.c — the allocator of public element ids (C:<n> / P:<n>).
**
** Ids are never reused (RC11) and must not tell a scoped caller how many
** elements others created (docs/security.md): with sequential ids, two
** writes of one caller bracket the count of everything written between
** them, hidden elements included. So ids are handed out in runs that belong
** to one transaction only, and the runs are placed by a keyed permutation:
**
**   the id space above 2^k0 is cut into blocks [2^j, 2^(j+1)); blocks
**   j = k0, k0+2, k0+4, ... hold *units* of 16 ids, blocks k0+1, k0+3, ...
**   hold *extents* of 1024 ids. A transaction takes a unit for its first 16
**   new elements and extents after that (bulk writes stay in few B-tree
**   pages). A command that names more elements than a unit holds starts
**   with an extent, so units are left to small writes: the rows of a unit
**   block stay in few pages however large bulk writes made the nexus. Each
**   family has a counter (kip_id_alloc.counter / .extents, bumped in the
**   writer's transaction) that walks its blocks in order; in
**   block j the run number is P(offset), P a 4-round Feistel permutation of
**   the block's run numbers keyed by the nexus's secret (cycle-walking).
**
** P is a bijection and the families use disjoint blocks, so runs never
** collide and, with the counters only ever growing, ids are never reused. A
** caller learns nothing from two of its ids but their blocks (the order of
** magnitude of the nexus); the elements of one command get consecutive ids.
** Unused ids of a run are never used. k0 is chosen above every id a nexus
** had before this allocator (schema v3), so old ids are never reused either;
** ids stay below 2^53.
*/
#include <string.h>

#include "store_sqlite.h"

#define UNIT_BITS 4     /* 16 ids: a transaction's first run */
#define EXTENT_BITS 10  /* 1024 ids: the runs of a transaction that writes more */
#define MIN_BASE_BITS 10 /* the first block: ids 1024..2047 */
#define MAX_ID_BITS 52   /* ids stay below 2^53 (exact in every JSON reader) */

static uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* a keyed permutation of [0, 2^bits) */
static uint64_t permute(uint64_t x, int bits, uint64_t key) {
  int half = (bits + 1) / 2;
  uint64_t mask = (1ull << half) - 1, domain = 1ull << bits;
  do { /* cycle-walk: the Feistel domain is 2^(2*half) >= 2^bits */
    uint64_t l = x >> half, r = x & mask;
    for (uint64_t round = 0; round < 4; round++) {
      uint64_t f = splitmix64(key ^ (round << 56) ^ ((uint64_t)bits << 48) ^ r) & mask;
      uint64_t t = l ^ f;
      l = r;
      r = t;
    }
    x = (l << half) | r;
  } while (x >= domain);
  return x;
}

/* the first id of run number c of a family (runs of 2^run_bits ids in the
** blocks j = first, first+2, ...) */
static int64_t run_start(uint64_t c, int first, int run_bits, uint64_t key) {
  int j = first;
  while (j + 2 <= MAX_ID_BITS && c >= (1ull << (j - run_bits))) {
    c -= 1ull << (j - run_bits);
    j += 2;
  }
  int bits = j - run_bits;
  return (int64_t)((1ull << j) + (permute(c, bits, key ^ (uint64_t)run_bits) << run_bits));
}

/* first use on this nexus: pick k0 above every id it ever had, and a secret */
static int init_alloc(kip_nexus *nx, kip_error *err) {
  /* (an SQLite file of schema v1–v2 numbered its elements by AUTOINCREMENT) */
  int64_t max = kip_store_count(nx, nx->pg ? "SELECT coalesce(max(id), 0) FROM element"
                                           : "SELECT max(coalesce((SELECT max(id) FROM element), 0),"
                                             " coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'element'), 0))");
  if (max < 0) return kip_store_error(nx, kip_store_errcode(nx), err, "initialising the id allocator");
  int k0 = MIN_BASE_BITS;
  while (k0 < MAX_ID_BITS - 2 && (1ll << k0) <= max) k0++;
  int64_t secret;
  sqlite3_randomness(sizeof secret, &secret);
  kip_stmt *st;
  int rc = kip_prepare(nx, "UPDATE kip_id_alloc SET base_bits = ?1, secret = ?2", -1, &st);
  if (rc != KIP_STORE_OK) return kip_store_error(nx, rc, err, "initialising the id allocator");
  kip_bind_int64(st, 1, k0);
  kip_bind_int64(st, 2, secret);
  rc = kip_step(st);
  kip_finish(nx, st);
  return rc == KIP_DONE ? 0 : kip_store_error(nx, rc, err, "initialising the id allocator");
}

/* 1 when no element has an id in [start, start + n) (rows another tool
** inserted, e.g. with a plain sqlite3 shell, may sit anywhere) */
static int run_is_free(kip_nexus *nx, int64_t start, int64_t n, kip_error *err) {
  kip_stmt *st = nx->stmts[ST_ID_RANGE_USED];
  kip_bind_int64(st, 1, start);
  kip_bind_int64(st, 2, start + n - 1);
  int rc = kip_step(st);
  kip_reset(st);
  if (rc == KIP_ROW) return 0;
  if (rc == KIP_DONE) return 1;
  kip_store_error(nx, rc, err, "allocating an id");
  return -1;
}

/* a fresh run of ids for the running transaction: a unit first, then
** extents; runs that are not free are skipped (never reused either) */
static int next_run(kip_nexus *nx, kip_error *err) {
  int extent = nx->id_taken >= (1 << UNIT_BITS) || nx->id_expect > (1 << UNIT_BITS);
  kip_stmt *st = nx->stmts[extent ? ST_NEXT_EXTENT : ST_NEXT_ID];
  for (int attempt = 0; attempt < 64; attempt++) {
    int rc = kip_step(st);
    if (rc != KIP_ROW) {
      kip_reset(st);
      return kip_store_error(nx, rc, err, "allocating an id");
    }
    int null_base = kip_col_type(st, 1) == KIP_COL_NULL;
    uint64_t c = (uint64_t)kip_col_int64(st, 0);
    int k0 = (int)kip_col_int64(st, 1);
    uint64_t key = (uint64_t)kip_col_int64(st, 2);
    kip_step(st); /* RETURNING: run to completion */
    kip_reset(st);
    if (!null_base) {
      int bits = extent ? EXTENT_BITS : UNIT_BITS;
      int first = k0 + extent; /* units in blocks k0, k0+2, ...; extents in k0+1, k0+3, ... */
      int64_t start = run_start(c, first, bits, key);
      int free_run = run_is_free(nx, start, 1 << bits, err);
      if (free_run < 0) return err->code;
      if (!free_run) continue;
      nx->id_next = start;
      nx->id_left = 1 << bits;
      return 0;
    }
    int irc = init_alloc(nx, err); /* inside the writer's transaction: no race */
    if (irc) return irc;
  }
  return kip_err(err, KIP_E_INTERNAL, NULL, "no free run of ids found (the id allocator's table may be damaged)");
}

int kip_store_next_id(kip_nexus *nx, int64_t *id, kip_error *err) {
  if (nx->id_left == 0) {
    int rc = next_run(nx, err);
    if (rc) return rc;
  }
  *id = nx->id_next++;
  nx->id_left--;
  nx->id_taken++;
  return 0;
}

void kip_store_unuse_id(kip_nexus *nx, int64_t id) {
  if (id != nx->id_next - 1) return;
  nx->id_next--;
  nx->id_left++;
  nx->id_taken--;
}

void kip_store_expect_ids(kip_nexus *nx, int64_t n) { nx->id_expect = n; }

void kip_store_end_run(kip_nexus *nx) {
  nx->id_left = 0;
  nx->id_taken = 0;
}
