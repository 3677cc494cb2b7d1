/*
** store_ids.c — the allocator of public element ids (C:<n> / P:<n>).
**
** Ids are never reused (RC11) and must not tell a scoped caller how many
** elements others created (docs/security.md): with sequential ids, two
** writes of one caller bracket the count of everything written between
** them, hidden elements included. So ids come in chunks of ID_CHUNK
** consecutive ids, a chunk belongs to one transaction only, and chunks are
** handed out by a keyed permutation of a chunk counter:
**
**   the counter c = 0, 1, 2, ... (kip_id_alloc.counter, bumped in the
**   writer's transaction) walks blocks of chunk numbers [2^k, 2^(k+1)) for
**   k = k0, k0+1, ... — block k holds 2^k counter values; within a block the
**   chunk number is 2^k + P_k(offset), P_k a 4-round Feistel permutation of
**   k bits keyed by the nexus's secret (cycle-walking for odd k); the ids of
**   chunk n are n*ID_CHUNK .. n*ID_CHUNK + ID_CHUNK-1.
**
** P_k is a bijection, so chunks never collide and, with the counter only
** ever growing, ids are never reused. A caller learns nothing from two of
** its ids but the block (the order of magnitude of the nexus); the elements
** of one command still get consecutive ids, which keeps bulk loads appending
** to the table's B-tree. Unused ids of a chunk are never used. k0 is chosen
** above every id a nexus had before this allocator (schema v3), so old ids
** are never reused either; ids stay below 2^53.
*/
#include <string.h>

#include "store.h"

#define ID_CHUNK_BITS 4   /* ids per chunk: 16 */
#define ID_CHUNK (1 << ID_CHUNK_BITS)
#define MIN_BLOCK_BITS 6   /* the first block: chunks 64..127, ids 1024..2047 */
#define MAX_BLOCK_BITS (52 - ID_CHUNK_BITS) /* ids stay below 2^53 (exact in every JSON reader) */

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

/* the chunk number for counter value c, blocks starting at 2^k0 */
static int64_t chunk_of(uint64_t c, int k0, uint64_t key) {
  int k = k0;
  while (k < MAX_BLOCK_BITS && c >= (1ull << k)) {
    c -= 1ull << k;
    k++;
  }
  return (int64_t)((1ull << k) + permute(c, k, key));
}

/* first use on this nexus: pick k0 above every id it ever had, and a secret */
static int init_alloc(kip_nexus *nx, kip_error *err) {
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(nx->db,
                              "SELECT max(coalesce((SELECT max(id) FROM element), 0),"
                              " coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'element'), 0))",
                              -1, &st, NULL);
  if (rc != SQLITE_OK) return kip_store_error(nx, rc, err, "initialising the id allocator");
  int64_t max = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  sqlite3_finalize(st);
  int k0 = MIN_BLOCK_BITS;
  while (k0 < MAX_BLOCK_BITS && (1ll << (k0 + ID_CHUNK_BITS)) <= max) k0++;
  int64_t secret;
  sqlite3_randomness(sizeof secret, &secret);
  rc = sqlite3_prepare_v2(nx->db, "UPDATE kip_id_alloc SET base_bits = ?1, secret = ?2", -1, &st, NULL);
  if (rc != SQLITE_OK) return kip_store_error(nx, rc, err, "initialising the id allocator");
  sqlite3_bind_int(st, 1, k0);
  sqlite3_bind_int64(st, 2, secret);
  rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : kip_store_error(nx, rc, err, "initialising the id allocator");
}

/* a fresh chunk for the running transaction */
static int next_chunk(kip_nexus *nx, kip_error *err) {
  sqlite3_stmt *st = nx->stmts[ST_NEXT_ID];
  for (int attempt = 0; attempt < 2; attempt++) {
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
      sqlite3_reset(st);
      return kip_store_error(nx, rc, err, "allocating an id");
    }
    int null_base = sqlite3_column_type(st, 1) == SQLITE_NULL;
    uint64_t c = (uint64_t)sqlite3_column_int64(st, 0);
    int k0 = sqlite3_column_int(st, 1);
    uint64_t key = (uint64_t)sqlite3_column_int64(st, 2);
    sqlite3_step(st); /* RETURNING: run to completion */
    sqlite3_reset(st);
    if (!null_base) {
      nx->id_next = chunk_of(c, k0, key) << ID_CHUNK_BITS;
      nx->id_left = ID_CHUNK;
      return 0;
    }
    int irc = init_alloc(nx, err); /* inside the writer's transaction: no race */
    if (irc) return irc;
  }
  return kip_err(err, KIP_E_INTERNAL, NULL, "the id allocator could not be initialised");
}

int kip_store_next_id(kip_nexus *nx, int64_t *id, kip_error *err) {
  if (nx->id_left == 0) {
    int rc = next_chunk(nx, err);
    if (rc) return rc;
  }
  *id = nx->id_next++;
  nx->id_left--;
  return 0;
}

void kip_store_end_chunk(kip_nexus *nx) { nx->id_left = 0; }
