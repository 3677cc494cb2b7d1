/*
** search_bench.c — SEARCH latency and load cost of vectors (scripts/bench/
** search runs it; docs/performance.md "SEARCH").
**
** For each size N: generates N concepts whose text is a sentence of 8–20
** real English words (drawn from the local embedder's vocabulary, ranks
** 200–6200, so texts look like text to both indexes), loads them twice in
** the same run — into a nexus without an embedder and into one with the
** local embedder (vectors written in the loading transactions) — and
** prints both load rates and their ratio; then times SEARCH top-10 in the
** three modes on the nexus with vectors (the same 60 sentence queries),
** printing medians (means and 95th percentiles beneath) and the ratio of
** each mode to keyword.
**
** With --pg URL (scripts/bench/search --backend postgresql): the nexus with
** vectors is loaded a second time, on that PostgreSQL server (a nexus of
** its own per size), and the same queries are timed there; a second line
** per size gives its figures and each mode's ratio to the SQLite backend's.
**
** Usage: search_bench --vectors FILE.kvec [--sizes 100000,300000] [--dir D] [--pg URL]
*/
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BENCH_SEED 0x2545F4914F6CDD1DULL
#include "bench_common.h"
#include "kip.h"
#include "kvec.h"

static const char **vocab;
static int nvocab;

static void load_vocab(const char *path) {
  int fd = open(path, O_RDONLY);
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb)) {
    fprintf(stderr, "search_bench: cannot open %s\n", path);
    exit(1);
  }
  const unsigned char *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  kvec_header h;
  memcpy(&h, m, sizeof h);
  size_t off = KVEC_ALIGN(sizeof h);
  off = KVEC_ALIGN(off + (size_t)h.dim * 4);
  off = KVEC_ALIGN(off + (size_t)h.nslots * 4);
  const uint32_t *str_off = (const uint32_t *)(m + off);
  off = KVEC_ALIGN(off + (size_t)h.nwords * 4);
  off = KVEC_ALIGN(off + (size_t)h.nwords * 4);
  off = KVEC_ALIGN(off + (size_t)h.nwords * 4);
  off = KVEC_ALIGN(off + (size_t)h.nwords * h.dim);
  const char *strings = (const char *)(m + off);
  vocab = malloc(6000 * sizeof *vocab);
  for (uint32_t i = 200; i < h.nwords && nvocab < 6000; i++) {
    const char *w = strings + str_off[i];
    int alpha = 1;
    for (const char *p = w; *p; p++) alpha &= *p >= 'a' && *p <= 'z';
    if (alpha && strlen(w) > 2) vocab[nvocab++] = w;
  }
}

static void sentence(char *out, size_t cap, int words) {
  size_t n = 0;
  out[0] = 0;
  for (int i = 0; i < words; i++) {
    const char *w = vocab[next_rand() % (uint64_t)nvocab];
    n += (size_t)snprintf(out + n, cap - n, "%s%s", i ? " " : "", w);
    if (n >= cap) break;
  }
}

static void must_ok(char *res, const char *what) {
  if (strstr(res, "\"error\"") && !strstr(res, "\"result\"")) {
    fprintf(stderr, "search_bench: %s failed: %.400s\n", what, res);
    exit(1);
  }
  kip_free(res);
}

/* loads n concepts; returns elements per second */
static double load(kip_nexus *nx, int64_t n, uint64_t seed) {
  rng = seed;
  kip_call_options o;
  memset(&o, 0, sizeof o);
  o.defer_index = 1;
  o.max_command_bytes = 64 << 20;
  o.deadline_ms = 600000;
  const char *def = "{\"command\":\"UPSERT { CONCEPT ?t { {type: \\\"$ConceptType\\\", name: \\\"Note\\\"} } }\"}";
  must_ok(kip_call_json(nx, def, strlen(def), NULL), "defining Note");
  char *req = malloc(4 << 20), text[512];
  double t0 = now_ms();
  for (int64_t i = 0; i < n;) {
    size_t len = (size_t)snprintf(req, 64, "{\"command\":\"UPSERT {");
    for (int k = 0; k < 500 && i < n; k++, i++) {
      sentence(text, sizeof text, 8 + (int)(next_rand() % 13));
      len += (size_t)snprintf(req + len, 1024, " CONCEPT ?c%d { {type: \\\"Note\\\", name: \\\"note-%lld\\\"} SET ATTRIBUTES { body: \\\"%s\\\" } }",
                              k, (long long)i, text);
    }
    len += (size_t)snprintf(req + len, 64, " } WITH METADATA { source: \\\"bench\\\", author: \\\"bench\\\" }\"}");
    must_ok(kip_call_json(nx, req, len, &o), "loading");
  }
  kip_error err;
  if (kip_sync_index(nx, 50000, NULL, NULL, &err)) {
    fprintf(stderr, "search_bench: indexing failed: %s\n", err.message);
    exit(1);
  }
  double ms = now_ms() - t0;
  free(req);
  return (double)n / (ms / 1000.0);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#define QUERIES 60

/* a mode's latencies: median, mean, 95th percentile */
typedef struct timing {
  double median, mean, p95;
} timing;

static timing time_search(kip_nexus *nx, const char *mode, char queries[][256]) {
  double t[QUERIES];
  char req[1024];
  for (int q = 0; q < QUERIES; q++) {
    int len = snprintf(req, sizeof req,
                       "{\"command\":\"SEARCH CONCEPT :q WITH TYPE \\\"Note\\\" MODE \\\"%s\\\" LIMIT 10\",\"parameters\":{\"q\":\"%s\"}}",
                       mode, queries[q]);
    double t0 = now_ms();
    char *res = kip_call_json(nx, req, (size_t)len, NULL);
    t[q] = now_ms() - t0;
    if (strstr(res, "\"warnings\"") || !strstr(res, "\"result\":[{")) {
      fprintf(stderr, "search_bench: %s answered %.300s\n", mode, res);
      exit(1);
    }
    kip_free(res);
  }
  qsort(t, QUERIES, sizeof *t, cmp_double);
  timing r = {t[QUERIES / 2], 0, t[QUERIES * 95 / 100]};
  for (int q = 0; q < QUERIES; q++) r.mean += t[q] / QUERIES;
  return r;
}

/* the means and 95th percentiles under a row of medians */
static void print_tails(const char *label, timing kw, timing sem, timing hyb) {
  printf("%48s%8.2fms %8.2fms %8.2fms   %smeans\n", "", kw.mean, sem.mean, hyb.mean, label);
  printf("%48s%8.2fms %8.2fms %8.2fms   %sp95\n", "", kw.p95, sem.p95, hyb.p95, label);
  fflush(stdout);
}

static void remove_db(const char *p) {
  static const char *const sfx[] = {"", "-wal", "-shm"};
  char f[600];
  for (int i = 0; i < 3; i++) {
    snprintf(f, sizeof f, "%s%s", p, sfx[i]);
    unlink(f);
  }
}

int main(int argc, char **argv) {
  const char *vectors = NULL, *dir = "/tmp", *sizes = "100000,300000", *pg = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--vectors") && i + 1 < argc) vectors = argv[++i];
    else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) sizes = argv[++i];
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
    else if (!strcmp(argv[i], "--pg") && i + 1 < argc) pg = argv[++i];
    else {
      fprintf(stderr, "usage: search_bench --vectors FILE.kvec [--sizes N1,N2] [--dir DIR] [--pg URL]\n");
      return 2;
    }
  }
  if (!vectors) {
    fprintf(stderr, "search_bench: --vectors FILE.kvec is required (the local embedder's word vectors)\n");
    return 2;
  }
  load_vocab(vectors);
  printf("SEARCH benchmark: concepts with 8-20 word sentences, SEARCH ... WITH TYPE LIMIT 10, %d queries, medians\n\n",
         QUERIES);
  printf("%10s %14s %14s %7s %10s %10s %10s %9s %9s\n", "elements", "load plain/s", "load vec/s", "ratio", "keyword",
         "semantic", "hybrid", "sem/kw", "hyb/kw");
  char *list = strdup(sizes);
  for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
    int64_t n = atoll(tok);
    char p1[512], p2[512];
    snprintf(p1, sizeof p1, "%s/search_bench_plain_%lld.db", dir, (long long)n);
    snprintf(p2, sizeof p2, "%s/search_bench_vec_%lld.db", dir, (long long)n);
    remove_db(p1);
    remove_db(p2);
    kip_nexus *plain, *vec;
    kip_error err;
    kip_embedder e;
    if (kip_open(p1, NULL, &plain, &err) || kip_open(p2, NULL, &vec, &err) ||
        kip_embedder_open_local(vectors, &e, &err) || kip_set_embedder(vec, &e, &err)) {
      fprintf(stderr, "search_bench: %s\n", err.message);
      return 1;
    }
    double r_plain = load(plain, n, 42), r_vec = load(vec, n, 42);
    char queries[QUERIES][256];
    rng = 7;
    for (int q = 0; q < QUERIES; q++) sentence(queries[q], sizeof queries[q], 6);
    time_search(vec, "keyword", queries); /* warm the cache */
    timing kw = time_search(vec, "keyword", queries), sem = time_search(vec, "semantic", queries),
           hyb = time_search(vec, "hybrid", queries);
    printf("%10lld %14.0f %14.0f %7.2f %8.2fms %8.2fms %8.2fms %9.2f %9.2f\n", (long long)n, r_plain, r_vec,
           r_vec / r_plain, kw.median, sem.median, hyb.median, sem.median / kw.median, hyb.median / kw.median);
    print_tails("", kw, sem, hyb);
    if (pg) { /* the same load and queries on the PostgreSQL backend, in a nexus of this run's */
      char url[1024];
      snprintf(url, sizeof url, "%s?nexus=search_bench_%d_%lld", pg, (int)getpid(), (long long)n);
      kip_nexus *on_pg;
      if (kip_open(url, NULL, &on_pg, &err) || kip_embedder_open_local(vectors, &e, &err) ||
          kip_set_embedder(on_pg, &e, &err)) {
        fprintf(stderr, "search_bench: %s\n", err.message);
        return 1;
      }
      double r_pg = load(on_pg, n, 42);
      time_search(on_pg, "keyword", queries);
      timing pkw = time_search(on_pg, "keyword", queries), psem = time_search(on_pg, "semantic", queries),
             phyb = time_search(on_pg, "hybrid", queries);
      printf("%10s %14s %14.0f %7s %8.2fms %8.2fms %8.2fms %9.2f %9.2f   PostgreSQL; / SQLite: load %.2fx the time, "
             "keyword %.2fx, semantic %.2fx, hybrid %.2fx\n",
             "", "", r_pg, "", pkw.median, psem.median, phyb.median, psem.median / pkw.median, phyb.median / pkw.median,
             r_vec / r_pg, pkw.median / kw.median, psem.median / sem.median, phyb.median / hyb.median);
      print_tails("PostgreSQL ", pkw, psem, phyb);
      kip_close(on_pg);
    }
    kip_close(plain);
    kip_close(vec);
    remove_db(p1);
    remove_db(p2);
  }
  free(list);
  return 0;
}
