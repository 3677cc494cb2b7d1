/*
** pg_bench.c — the PostgreSQL backend against the SQLite backend
** (scripts/bench/kql --backend postgresql runs it; docs/performance.md,
** docs/postgresql.md; issue 40).
**
** Generates one deterministic memory graph (default 100k concepts in 5
** types, 500k propositions in 5 predicates, hub topics, a topic tree,
** JSON attributes), loads it through KIP UPSERT commands of 1 000 elements
** into an SQLite nexus file and into a PostgreSQL nexus, loads it again
** into a nexus of each by kip import's path (commands of 20 000 with
** defer_index, then kip_sync_index; the rate and the client's CPU time
** printed, the nexus left aside), then times each
** query shape on both through kip_call_json — the path MCP, HTTP and the
** CLI use — alternating the backends run by run. Prints medians, means and
** the slowest run (p100 of R) per backend, and the ratio PostgreSQL /
** SQLite of the medians; load rates in elements per second. Beside the
** point lookup, the floor of any read on the server: one round trip of a
** prepared SELECT 1 (round_trip_floor), with its ratio to SQLite's lookup.
**
** The queries are timed once the server's autovacuum is idle after the
** loads (wait_for_autovacuum).
**
**   pg_bench --url postgresql://USER@HOST:PORT/DB [--concepts N] [--links M] [--runs R] [--dir TMPDIR]
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "bench_common.h"
#include "kip.h"
#include "kipint.h" /* kip_buf */

/* the five types, their shares of the concepts (per mille) */
static const char *TYPES[] = {"Person", "Topic", "Document", "Project", "Place"};
static const int SHARE[] = {300, 100, 450, 100, 50};
#define NT 5
static int64_t first[NT], count[NT];

static const char *WORDS[] = {"alpha", "beta", "gamma", "delta", "ledger", "orbit", "harbor", "maple",
                              "quartz", "signal", "tundra", "velvet", "willow", "zephyr", "cobalt", "ember"};

/* a bulk load's commands (kip import, restore, migrate) go with these */
static const kip_call_options *call_options;

static char *call(kip_nexus *nx, const char *command, const char *params_json, double *ms) {
  kip_buf b;
  kip_buf_init(&b);
  kip_buf_adds(&b, "{\"command\":");
  kip_buf_json_str(&b, command, strlen(command));
  if (params_json) kip_buf_printf(&b, ",\"parameters\":%s", params_json);
  kip_buf_addc(&b, '}');
  kip_buf_addc(&b, 0);
  double t0 = now_ms();
  char *res = kip_call_json(nx, b.p, strlen(b.p), call_options);
  if (ms) *ms = now_ms() - t0;
  kip_buf_free(&b);
  return res;
}

static int ok(char *res, const char *what) {
  int good = res && !strstr(res, "\"error\":{");
  if (!good) fprintf(stderr, "pg_bench: %s failed: %.400s\n", what, res ? res : "(null)");
  free(res);
  return good;
}

static void concept_name(char *out, size_t n, int t, int64_t i) { snprintf(out, n, "%s-%lld", TYPES[t], (long long)i); }

/* an SQLite nexus file and its companions */
static void remove_sqlite_file(const char *path) {
  static const char *const SIDES[] = {"", "-wal", "-shm", "-kipindex"};
  char side[600];
  for (int k = 0; k < 4; k++) {
    snprintf(side, sizeof side, "%s%s", path, SIDES[k]);
    unlink(side);
  }
}

/* ---------------------------------------------------------------- load */
/* elements per UPSERT command: the command load, and the bulk load that
** sends what kip import sends (commands of ~4 MiB with defer_index, then
** kip_sync_index) */
#define BATCH 1000
#define BULK_BATCH 20000
static int64_t batch = BATCH;

/* send the UPSERT being built in b, closed, and start the next one */
static int flush(kip_nexus *nx, kip_buf *b, const char *what) {
  kip_buf_adds(b, " } WITH METADATA { source: \"bench\", author: \"$system\" }");
  kip_buf_addc(b, 0);
  int good = ok(call(nx, b->p, NULL, NULL), what);
  b->len = 0;
  kip_buf_adds(b, "UPSERT {");
  return good;
}

static double load(kip_nexus *nx, int64_t nlinks) {
  double t0 = now_ms();
  char name[64];
  kip_buf b;
  kip_buf_init(&b);
  kip_buf_adds(&b, "UPSERT {");
  for (int t = 0; t < NT; t++)
    kip_buf_printf(&b, " CONCEPT ?t%d { {type: \"$ConceptType\", name: \"%s\"} SET ATTRIBUTES { description: \"bench\" } }", t,
                   TYPES[t]);
  const char *preds[] = {"knows", "about", "authored", "works_on", "subtopic_of"};
  for (int p = 0; p < 5; p++)
    kip_buf_printf(&b, " CONCEPT ?p%d { {type: \"$PropositionType\", name: \"%s\"} SET ATTRIBUTES { description: \"bench\", "
                   "subject_types: [\"*\"], object_types: [\"*\"] } }", p, preds[p]);
  if (!flush(nx, &b, "defining the schema")) return -1;
  int64_t in_batch = 0;
  for (int t = 0; t < NT; t++)
    for (int64_t i = 0; i < count[t]; i++) {
      concept_name(name, sizeof name, t, i);
      kip_buf_printf(&b, " CONCEPT ?c%lld { {type: \"%s\", name: \"%s\"} SET ATTRIBUTES { rank: %lld, status: \"%s\", "
                     "note: \"%s %s\" } }",
                     (long long)in_batch, TYPES[t], name, (long long)(i % 100), i % 3 ? "active" : "archived",
                     WORDS[i % 16], WORDS[(i / 16) % 16]);
      if (++in_batch == batch) {
        if (!flush(nx, &b, "loading concepts")) return -1;
        in_batch = 0;
      }
    }
  /* links: Person knows Person; Document about Topic (hubs: the first 10
  ** topics take half); Person authored Document; Person works_on Project;
  ** Topic subtopic_of Topic (a tree) */
  char s[64], o[64];
  for (int64_t k = 0; k < nlinks; k++) {
    int p = k % 10 < 3 ? 0 : k % 10 < 6 ? 1 : k % 10 < 8 ? 2 : 3;
    int st = p == 1 ? 2 : 0, ot = p == 0 ? 0 : p == 1 ? 1 : p == 2 ? 2 : 3;
    if (k < count[1] - 1) { /* the topic tree first */
      p = 4, st = 1, ot = 1;
      concept_name(s, sizeof s, 1, k + 1);
      concept_name(o, sizeof o, 1, k / 4);
    } else {
      int64_t oi = p == 1 && rand_below(2) ? rand_below(10) : rand_below(count[ot]);
      concept_name(s, sizeof s, st, rand_below(count[st]));
      concept_name(o, sizeof o, ot, oi);
    }
    kip_buf_printf(&b, " PROPOSITION ?l%lld { ({type: \"%s\", name: \"%s\"}, \"%s\", {type: \"%s\", name: \"%s\"}) }",
                   (long long)in_batch, TYPES[st], s, preds[p], TYPES[ot], o);
    if (++in_batch == batch || k == nlinks - 1) {
      if (!flush(nx, &b, "loading propositions")) return -1;
      in_batch = 0;
    }
  }
  kip_buf_free(&b);
  kip_error err;
  if (call_options && kip_sync_index(nx, 0, NULL, NULL, &err)) {
    fprintf(stderr, "pg_bench: indexing the bulk load: %s\n", err.message);
    return -1;
  }
  return now_ms() - t0;
}

/* the same data loaded by the bulk path into a nexus of its own, closed
** after; its time in ms, -1 on failure */
static double bulk_load(const char *path, int64_t nlinks) {
  kip_nexus *nx;
  kip_error err;
  if (kip_open(path, NULL, &nx, &err)) {
    fprintf(stderr, "pg_bench: cannot open %s: %s\n", path, err.message);
    return -1;
  }
  kip_call_options opt = {0};
  opt.defer_index = 1;
  opt.max_command_bytes = 64 << 20;
  call_options = &opt;
  batch = BULK_BATCH;
  rng = BENCH_SEED;
  clock_t cpu0 = clock();
  double ms = load(nx, nlinks);
  fprintf(stderr, "  (the client's own CPU time: %.1f s)\n", (double)(clock() - cpu0) / CLOCKS_PER_SEC);
  call_options = NULL;
  batch = BATCH;
  kip_close(nx);
  return ms;
}

/* The server's autovacuum visits a freshly loaded table (its first vacuum
** writes every page's hints and visibility map) and, on a small machine,
** takes the CPU the queries would be timed on: a run that began during it
** read point lookups at 5x their time. The queries wait until no
** autovacuum worker runs (at most two minutes), as they would on a server
** after a load settles; the wait is printed. */
static void wait_for_autovacuum(const char *url) {
  PGconn *c = PQconnectdb(url);
  double t0 = now_ms();
  while (PQstatus(c) == CONNECTION_OK && now_ms() - t0 < 120000) {
    PGresult *r = PQexec(c, "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'");
    int busy = PQresultStatus(r) == PGRES_TUPLES_OK && atoi(PQgetvalue(r, 0, 0)) > 0;
    PQclear(r);
    if (!busy) break;
    nanosleep(&(struct timespec){0, 200000000}, NULL);
  }
  fprintf(stderr, "waited %.1f s for the server's autovacuum\n", (now_ms() - t0) / 1e3);
  PQfinish(c);
}

/* The floor under every read on the server: one round trip of a prepared
** statement that reads nothing (SELECT 1) on a connection of its own, 500
** times after 50 untimed; median, mean and slowest in ms. A KIP read on
** PostgreSQL is at least this, whatever the SQL. */
static void round_trip_floor(const char *url, double *med, double *mean, double *max);

/* ------------------------------------------------------------- queries */
typedef struct shape {
  const char *label;
  const char *command;
  int params; /* 0 none; 1 a person; 2 a hub topic; 3 a leaf topic; 4 a fresh person (write) */
} shape;

static const shape SHAPES[] = {
    {"point lookup", "FIND(?c) WHERE { ?c {type: \"Person\", name: :n} }", 1},
    {"1-hop into a hub, type clause first",
     "FIND(?d.name) WHERE { ?d {type: \"Document\"} (?d, \"about\", {type: \"Topic\", name: :n}) }", 2},
    {"ego graph (out-links of one concept)", "FIND(?l) WHERE { ?l ({type: \"Person\", name: :n}, ?p, ?o) }", 1},
    {"1..5-hop ancestry", "FIND(?a.name) WHERE { ({type: \"Topic\", name: :n}, \"subtopic_of\"{1,5}, ?a) }", 3},
    {"grouped count (documents per hub topic)",
     "FIND(?t.name, COUNT(?d)) WHERE { ?t {type: \"Topic\"} FILTER(?t.attributes.rank < 10) (?d, \"about\", ?t) }", 0},
    {"orphans (NOT-exists)", "FIND(COUNT(?p)) WHERE { ?p {type: \"Person\"} NOT { (?p, \"works_on\", ?x) } }", 0},
    {"keyword SEARCH top 10", "SEARCH CONCEPT \"ledger orbit\" WITH TYPE \"Document\" LIMIT 10", 0},
    {"single-item UPSERT (own transaction)",
     "UPSERT { CONCEPT ?c { {type: \"Person\", name: :n} SET ATTRIBUTES { rank: 1, status: \"active\" } } } "
     "WITH METADATA { source: \"bench\", author: \"$system\" }", 4},
};
#define NSHAPES (int)(sizeof SHAPES / sizeof *SHAPES)

static void params_for(int kind, int run, char *out, size_t n) {
  char name[64];
  switch (kind) {
    case 1: concept_name(name, sizeof name, 0, (run * 7919) % count[0]); break;
    case 2: concept_name(name, sizeof name, 1, run % 10); break;
    case 3: concept_name(name, sizeof name, 1, count[1] - 1 - run % 50); break;
    case 4: snprintf(name, sizeof name, "Fresh-%d", run); break;
    default: out[0] = 0; return;
  }
  snprintf(out, n, "{\"n\":\"%s\"}", name);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void stats(double *v, int n, double *med, double *mean, double *max) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  *med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  double s = 0;
  for (int i = 0; i < n; i++) s += v[i];
  *mean = s / n;
  *max = v[n - 1];
}

static void round_trip_floor(const char *url, double *med, double *mean, double *max) {
  enum { WARM = 50, N = 500 };
  static double t[N];
  *med = *mean = *max = 0;
  PGconn *c = PQconnectdb(url);
  PGresult *r = PQstatus(c) == CONNECTION_OK ? PQprepare(c, "floor", "SELECT 1", 0, NULL) : NULL;
  int ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
  PQclear(r);
  for (int i = 0; ok && i < WARM + N; i++) {
    double t0 = now_ms();
    r = PQexecPrepared(c, "floor", 0, NULL, NULL, NULL, 0);
    ok = PQresultStatus(r) == PGRES_TUPLES_OK;
    PQclear(r);
    if (i >= WARM) t[i - WARM] = now_ms() - t0;
  }
  if (ok) stats(t, N, med, mean, max);
  PQfinish(c);
}

int main(int argc, char **argv) {
  const char *url = NULL, *dir = "/tmp";
  int64_t nconcepts = 100000, nlinks = 500000;
  int runs = 11;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--url") && i + 1 < argc) url = argv[++i];
    else if (!strcmp(argv[i], "--concepts") && i + 1 < argc) nconcepts = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--links") && i + 1 < argc) nlinks = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
    else {
      fprintf(stderr, "usage: pg_bench --url postgresql://USER@HOST:PORT/DB [--concepts N] [--links M] [--runs R] [--dir D]\n");
      return 2;
    }
  }
  if (!url || runs < 1 || runs > 1000 || nconcepts < 1000 || nlinks < nconcepts) {
    fprintf(stderr, "pg_bench: give --url of a PostgreSQL server (scripts/bench/kql --backend postgresql starts one), "
                    "--concepts >= 1000, --links >= concepts, --runs 1..1000\n");
    return 2;
  }
  int64_t acc = 0;
  for (int t = 0; t < NT; t++) {
    first[t] = acc;
    count[t] = nconcepts * SHARE[t] / 1000;
    acc += count[t];
  }
  char path[512], pgurl[1024];
  snprintf(path, sizeof path, "%s/pg_bench_%d.db", dir, (int)getpid());
  snprintf(pgurl, sizeof pgurl, "%s?nexus=bench_%d", url, (int)getpid());
  kip_nexus *nx[2];
  kip_error err;
  const char *names[2] = {"SQLite", "PostgreSQL"};
  const char *paths[2] = {path, pgurl};
  double load_ms[2];
  for (int b = 0; b < 2; b++) {
    if (kip_open(paths[b], NULL, &nx[b], &err)) {
      fprintf(stderr, "pg_bench: cannot open %s: %s\n", names[b], err.message);
      return 1;
    }
    rng = BENCH_SEED; /* the same data on both */
    load_ms[b] = load(nx[b], nlinks);
    if (load_ms[b] < 0) return 1;
    fprintf(stderr, "loaded %s: %.1f s\n", names[b], load_ms[b] / 1e3);
  }
  /* the bulk path, each backend into a nexus of its own */
  char bulk_path[512], bulk_url[1024];
  snprintf(bulk_path, sizeof bulk_path, "%s/pg_bench_bulk_%d.db", dir, (int)getpid());
  snprintf(bulk_url, sizeof bulk_url, "%s?nexus=bench_bulk_%d", url, (int)getpid());
  const char *bulk_paths[2] = {bulk_path, bulk_url};
  double bulk_ms[2];
  for (int b = 0; b < 2; b++) {
    bulk_ms[b] = bulk_load(bulk_paths[b], nlinks);
    if (bulk_ms[b] < 0) return 1;
    fprintf(stderr, "bulk-loaded %s: %.1f s\n", names[b], bulk_ms[b] / 1e3);
  }
  remove_sqlite_file(bulk_path);
  wait_for_autovacuum(url);
  int64_t elements = acc + nlinks;
  printf("pg_bench: %lld concepts, %lld propositions; %d runs per shape, backends alternated; kip_call_json\n\n",
         (long long)acc, (long long)nlinks, runs);
  printf("%-44s %11s %11s %11s %11s %11s %11s %7s\n", "shape", "SQLite med", "mean", "max", "PG med", "mean", "max",
         "PG/SQL");
  printf("%-44s %11.0f %11s %11s %11.0f %11s %11s %6.2fx\n", "bulk load, UPSERT commands of 1000 (elements/s)",
         elements / (load_ms[0] / 1e3), "", "", elements / (load_ms[1] / 1e3), "", "", load_ms[1] / load_ms[0]);
  printf("%-44s %11.0f %11s %11s %11.0f %11s %11s %6.2fx\n", "bulk load, kip import's path (elements/s)",
         elements / (bulk_ms[0] / 1e3), "", "", elements / (bulk_ms[1] / 1e3), "", "", bulk_ms[1] / bulk_ms[0]);
  double *t[2];
  t[0] = calloc((size_t)runs, sizeof(double));
  t[1] = calloc((size_t)runs, sizeof(double));
  for (int s = 0; s < NSHAPES; s++) {
    char params[160];
    for (int b = 0; b < 2; b++) { /* one untimed run each: its statements prepared, its pages read */
      params_for(SHAPES[s].params, 100000 + s, params, sizeof params);
      if (!ok(call(nx[b], SHAPES[s].command, params[0] ? params : NULL, NULL), SHAPES[s].label)) return 1;
    }
    for (int r = 0; r < runs; r++)
      for (int k = 0; k < 2; k++) {
        int b = (r + k) % 2; /* alternate which backend goes first */
        params_for(SHAPES[s].params, r, params, sizeof params);
        if (!ok(call(nx[b], SHAPES[s].command, params[0] ? params : NULL, &t[b][r]), SHAPES[s].label)) return 1;
      }
    double m[2], mean[2], max[2];
    for (int b = 0; b < 2; b++) stats(t[b], runs, &m[b], &mean[b], &max[b]);
    printf("%-44s %9.3fms %9.3fms %9.3fms %9.3fms %9.3fms %9.3fms %6.2fx\n", SHAPES[s].label, m[0], mean[0], max[0], m[1],
           mean[1], max[1], m[1] / m[0]);
    if (s == 0) { /* beside the point lookup: what no read on the server goes under */
      double fm, fmean, fmax;
      round_trip_floor(url, &fm, &fmean, &fmax);
      printf("%-44s %11s %11s %11s %9.3fms %9.3fms %9.3fms %6.2fx\n", "  floor: one round trip (prepared SELECT 1)", "", "",
             "", fm, fmean, fmax, fm / m[0]);
    }
  }
  free(t[0]);
  free(t[1]);
  kip_close(nx[0]);
  kip_close(nx[1]);
  remove_sqlite_file(path);
  return 0;
}
