/*
** search.h — the SEARCH family (RC11 §5.2): candidate generation and scoring
** shared by exec_search.c (the executor: modes, fusion, rendering),
** search_hits.c (hit lists, the eligibility filter), search_keyword.c (FTS5
** word + trigram indexes, BM25 via store_search_rank.c),
** search_vector.c (the vector index and its maintenance) and embed_local.c
** (the built-in word-vector embedder). docs/search.md.
*/
#ifndef KIP_SEARCH_H
#define KIP_SEARCH_H

#include "compile.h"
#include "exec.h"

typedef struct search_hit {
  int64_t id;
  double score; /* on the scale every mode shares, [0,1] */
  double raw;   /* orders hits of equal score: the mode's own measure (BM25F, cosine) */
  double fused; /* hybrid: the position in the fused order */
  double words;  /* keyword: the words' rank, before the boost */
  int64_t size;  /* keyword: the text's length in tokens (lexemes on PostgreSQL), which orders equal scores */
} search_hit;

typedef struct search_hits {
  search_hit *v;
  size_t n, cap;
} search_hits;

void search_hits_push(search_hits *h, int64_t id, double score, double raw);
void search_hits_sort(search_hits *h); /* by score desc, raw desc, size desc, id */
void search_hits_sort_by_id(search_hits *h); /* by id (to merge lists) */
void search_hits_dedup(search_hits *h); /* one hit per id, keeping the best; sorted after */
/* the first n hits' ids bound to st's ?at as kip_store_ids_sql's list (at 1;
** kip_store_ids_sql_high's at 9004; store.h): a statement over them in one
** round trip */
void search_hits_bind_ids(kip_stmt *st, int at, const search_hits *h, size_t n);

/* the request's eligibility: kind (concept/proposition), WITH TYPE and the
** governance scope as SQL over the candidate alias `e` (and the endpoints
** `s`/`o` of propositions), with its bindings */
typedef struct search_scope {
  kip_arena a;
  kql C;
  char *cond; /* NULL: no governance scope */
} search_scope;

int search_scope_init(search_scope *sc, kip_ctx *c, const ast_search *q);
void search_scope_free(search_scope *sc);
/* appends the kind/type/scope filter over `e` (parameters ?9002 = type and
** the scope's; propositions need the joins `s` and `o` for their endpoints) */
void search_add_filter(kip_buf *sql, const search_scope *sc, const ast_search *q);
void search_bind_filter(search_scope *sc, const ast_search *q, kip_stmt *st);

/* ASCII case-insensitive equality of two texts (0 when either is NULL) */
int search_same_text(const char *a, const char *b);

/* search_episodic.c: the cues of a question besides its words — the
** Persons it names, the dates it names (year 0: any year; month 0: the
** whole year) — and the boost they give an element, as SQL over `e` */
typedef struct search_date {
  int year, month;
} search_date;

typedef struct search_cues {
  kip_buf boost;  /* SQL over `e`, in [0, 1]; empty: no cue */
  char *people[8];
  int npeople;
  int bridged; /* the people are the top hit's, not the question's */
  search_date dates[4];
  int ndates;
} search_cues;

int search_cues_init(kip_ctx *c, search_scope *sc, const ast_search *q, const char *text, search_cues *cu);
void search_cues_free(search_cues *cu);
/* the second hop: when the question names nobody, the Persons the best hit
** `top` involves become its people (cu->bridged set, the boost rebuilt) */
int search_cues_bridge(kip_ctx *c, search_scope *sc, search_cues *cu, int64_t top);
/* KIP_SEARCH_WITHOUT names `what` (a comma-separated list): a mechanism off, for measuring */
int search_cue_off(const char *what);

/* keyword candidates, best first, at most cap (search_keyword.c) */
int search_keyword(kip_ctx *c, const ast_search *q, search_scope *sc, const char *text, int64_t cap, search_hits *h);

/* search_vector.c: the query's vector (malloc'd, unit length) in *out, or
** *out = NULL after a warning when vectors cannot answer (no embedder, it
** failed, no vectors yet); nonzero only for an error (model mismatch) */
int kip_vector_query(kip_ctx *c, const char *text, float **out, int *dim);
/* the cosine of each hit's vector with the query's (0 without a vector) in cos[i] */
/* the cap nearest eligible elements by cosine, best first, scored by the
** cosine's excess over the query's chance level (0 at or below it) */
int kip_vector_nearest(kip_ctx *c, const ast_search *q, search_scope *sc, const float *qv, int dim, int64_t cap,
                       search_hits *h);

#endif
