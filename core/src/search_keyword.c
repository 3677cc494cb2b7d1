/*
** search_keyword.c — keyword candidates for SEARCH (RC11 §5.2.1 "keyword").
**
** The query text is analysed into terms: words (split on anything that is
** not a letter or digit; bytes of non-ASCII characters count as letters),
** "quoted phrases" kept whole, and English stopwords dropped unless nothing
** else is left. The terms are OR-ed against the word index (FTS5 `porter`
** over `unicode61`, diacritics folded: "invoices" finds "invoice") and
** ranked by kip_rank() — BM25F with the name column above the heading
** column (aliases, title, keywords, tags) above the body, normalised to
** [0,1], and without index-wide statistics under a governance scope
** (store_search_rank.c). A query of one word also matches as a prefix. The whole
** text is also looked up as a substring in the trigram index (partial words,
** scripts without spaces) and, when it is shorter than a trigram, by a
** bounded scan. Exact name matches score 1.0 and exact aliases 0.95, so a
** lookup by name always ranks the named element first. Of equal scores the
** longer text comes first — the length prior: a text that holds the
** question's words and says more is more likely the one that answers
** (kip_size on SQLite, the tsvector's lexemes on PostgreSQL; the row's own
** length, no statistic of the index) — then by id.
** A question that names nobody takes a second hop: its hits' boost taken
** again with the people of the best hit (search_episodic.c). docs/search.md.
*/
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "search.h"

#define MAX_TERMS 64
#define W_NAME "3.0"
#define W_HEADING "2.0"
#define W_BODY "1.0"
#define EXACT_NAME 1.0
#define EXACT_ALIAS 0.95
#define SUBSTRING_CEILING 0.5 /* a substring-only match ranks below word matches of the same strength */

/* English stopwords (the common function words of the SMART and Snowball
** lists), sorted for bsearch */
static const char *const STOPWORDS[] = {
    "a",     "about", "above", "after", "again",  "against", "all",     "am",      "an",    "and",   "any",
    "are",   "as",    "at",    "be",    "because", "been",   "before",  "being",   "below", "between", "both",
    "but",   "by",    "can",   "could", "did",    "do",      "does",    "doing",   "down",  "during", "each",
    "few",   "for",   "from",  "further", "had",  "has",     "have",    "having",  "he",    "her",   "here",
    "hers",  "herself", "him", "himself", "his",  "how",     "i",       "if",      "in",    "into",  "is",
    "it",    "its",   "itself", "just", "me",     "might",   "more",    "most",    "must",  "my",    "myself",
    "no",    "nor",   "not",   "now",   "of",     "off",     "on",      "once",    "only",  "or",    "other",
    "our",   "ours",  "ourselves", "out", "over", "own",     "same",    "shall",   "she",   "should", "so",
    "some",  "such",  "than",  "that",  "the",    "their",   "theirs",  "them",    "themselves", "then", "there",
    "these", "they",  "this",  "those", "through", "to",     "too",     "under",   "until", "up",    "very",
    "was",   "we",    "were",  "what",  "when",   "where",   "which",   "while",   "who",   "whom",  "why",
    "will",  "with",  "would", "you",   "your",   "yours",   "yourself", "yourselves",
};

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static int is_stopword(const char *w) {
  return bsearch(&w, STOPWORDS, sizeof STOPWORDS / sizeof *STOPWORDS, sizeof *STOPWORDS, cmp_str) != NULL;
}

static int word_byte(unsigned char ch) { return isalnum(ch) || ch >= 0x80; }

typedef struct term {
  char *text;  /* lowercased word(s) */
  int phrase;  /* from a quoted phrase */
  int stop;    /* a stopword */
} term;

typedef struct query {
  char *lower; /* the whole text, ASCII-lowercased and trimmed */
  term t[MAX_TERMS];
  int n;
} query;

static char *dup_lower(const char *s, size_t n) {
  char *r = malloc(n + 1);
  if (!r) abort();
  for (size_t i = 0; i < n; i++) r[i] = (char)tolower((unsigned char)s[i]);
  r[n] = 0;
  return r;
}

/* a right single quotation mark (U+2019), written for an apostrophe */
static int curly_apostrophe(const char *s, size_t i, size_t n) {
  return i + 2 < n && (unsigned char)s[i] == 0xE2 && (unsigned char)s[i + 1] == 0x80 && (unsigned char)s[i + 2] == 0x99;
}

/* an English clitic after an apostrophe: Maya's, don't, I'd, I'm, we'll, they're, I've */
static int clitic(const char *w, size_t n) {
  static const char *const C[] = {"s", "t", "d", "m", "ll", "re", "ve"};
  for (size_t i = 0; i < sizeof C / sizeof *C; i++)
    if (strlen(C[i]) == n && !strncasecmp(w, C[i], n)) return 1;
  return 0;
}

/* words of s[0..n) joined by single spaces, or NULL when there are none;
** an apostrophe's clitic is not a word ("Maya's" is "maya": a lone "s"
** would match every "it's") */
static char *words_of(const char *s, size_t n) {
  kip_buf b;
  kip_buf_init(&b);
  size_t i = 0;
  while (i < n) {
    int after_apostrophe = 0;
    while (i < n && (!word_byte((unsigned char)s[i]) || curly_apostrophe(s, i, n))) {
      after_apostrophe = s[i] == '\'' || curly_apostrophe(s, i, n);
      i += curly_apostrophe(s, i, n) ? 3 : 1;
    }
    size_t j = i;
    while (j < n && word_byte((unsigned char)s[j]) && !curly_apostrophe(s, j, n)) j++;
    if (j > i && !(after_apostrophe && i >= 2 && word_byte((unsigned char)s[i - (s[i - 1] == '\'' ? 2 : 4)]) && clitic(s + i, j - i))) {
      if (b.len) kip_buf_addc(&b, ' ');
      for (size_t k = i; k < j; k++) kip_buf_addc(&b, (char)tolower((unsigned char)s[k]));
    }
    i = j;
  }
  if (!b.len) {
    kip_buf_free(&b);
    return NULL;
  }
  kip_buf_addc(&b, 0);
  return b.p;
}

static void add_term(query *q, char *text, int phrase) {
  if (!text) return;
  if (q->n == MAX_TERMS) {
    free(text);
    return;
  }
  q->t[q->n].text = text;
  q->t[q->n].phrase = phrase && strchr(text, ' ');
  q->t[q->n].stop = !q->t[q->n].phrase && is_stopword(text);
  q->n++;
}

static void query_init(query *q, const char *text) {
  memset(q, 0, sizeof *q);
  while (*text && isspace((unsigned char)*text)) text++;
  size_t len = strlen(text);
  while (len && isspace((unsigned char)text[len - 1])) len--;
  q->lower = dup_lower(text, len);
  const char *p = text, *end = text + len;
  while (p < end) {
    if (*p == '"') { /* a quoted phrase, up to the closing quote or the end */
      const char *close = memchr(p + 1, '"', (size_t)(end - p - 1));
      const char *stop = close ? close : end;
      add_term(q, words_of(p + 1, (size_t)(stop - p - 1)), 1);
      p = close ? close + 1 : end;
      continue;
    }
    const char *w = p;
    while (p < end && *p != '"' && !isspace((unsigned char)*p)) p++;
    /* one whitespace-separated chunk may hold several words ("rate-limit") */
    char *words = words_of(w, (size_t)(p - w));
    if (words) {
      char *save = NULL;
      for (char *tok = strtok_r(words, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *one = strdup(tok);
        if (!one) abort();
        add_term(q, one, 0);
      }
      free(words);
    }
    while (p < end && isspace((unsigned char)*p)) p++;
  }
}

static void query_free(query *q) {
  for (int i = 0; i < q->n; i++) free(q->t[i].text);
  free(q->lower);
}

static void quote_fts(kip_buf *b, const char *s) {
  kip_buf_addc(b, '"');
  for (; *s; s++) {
    if (*s == '"') kip_buf_addc(b, '"');
    kip_buf_addc(b, *s);
  }
  kip_buf_addc(b, '"');
}

/* "t1" OR "t2" OR "a phrase" — stopwords only when nothing else is left;
** a lone word also as a prefix. On PostgreSQL the same as a tsquery's text:
** 't1' | 't2' | 'a' <-> 'phrase', a lone word 'w':* (the words hold no
** quote: words_of splits on every byte that is not a letter or digit) */
static void word_query(const query *q, kip_buf *b, int pg) {
  int content = 0;
  for (int i = 0; i < q->n; i++) content += !q->t[i].stop;
  for (int i = 0; i < q->n; i++) {
    if (content && q->t[i].stop) continue;
    if (b->len) kip_buf_adds(b, pg ? " | " : " OR ");
    int prefix = q->n == 1 && !q->t[i].phrase;
    if (!pg) quote_fts(b, q->t[i].text);
    else {
      kip_buf_adds(b, prefix ? "" : "(");
      for (const char *w = q->t[i].text; *w; w++) {
        if (w == q->t[i].text || w[-1] == ' ') kip_buf_addc(b, '\'');
        if (*w == ' ') kip_buf_adds(b, "' <-> ");
        else kip_buf_addc(b, *w);
      }
      kip_buf_adds(b, prefix ? "'" : "')");
    }
    if (prefix) kip_buf_adds(b, pg ? ":*" : "*");
  }
}

static size_t utf8_chars(const char *s) {
  size_t n = 0;
  for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

/* --------------------------------------------------------------- scoring */
int search_same_text(const char *a, const char *b) {
  if (!a || !b) return 0;
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
  return *a == *b;
}

/* exact name 1.0, exact alias 0.95, else 0; row: id, name, attributes-or-NULL */
static double exact_score(kip_stmt *st, const query *q) {
  if (search_same_text(kip_col_text(st, 1), q->lower)) return EXACT_NAME;
  const char *attrs = kip_col_text(st, 2);
  if (!attrs || !strstr(attrs, "aliases")) return 0;
  json_t *a = json_loads(attrs, 0, NULL);
  json_t *al = json_object_get(a, "aliases");
  double r = 0;
  size_t i;
  json_t *v;
  if (json_is_array(al)) json_array_foreach(al, i, v) if (json_is_string(v) && search_same_text(json_string_value(v), q->lower)) r = EXACT_ALIAS;
  json_decref(a);
  return r;
}

/* substring matches (trigram index, short-term scan): how much of the best
** field the text covers, on word boundaries or not, below SUBSTRING_CEILING */
static double substring_score(const char *field, const char *needle) {
  if (!field || !*needle) return 0;
  char *s = dup_lower(field, strlen(field));
  const char *p = strstr(s, needle);
  double r = 0;
  if (p) {
    size_t n = strlen(needle);
    int bounded = (p == s || !word_byte((unsigned char)p[-1])) && !word_byte((unsigned char)p[n]);
    r = SUBSTRING_CEILING * (bounded ? 1.0 : 0.5) * (0.5 + 0.5 * (double)n / (double)strlen(s));
  }
  free(s);
  return r;
}

static double substring_row(kip_stmt *st, const query *q) {
  double best = substring_score(kip_col_text(st, 1), q->lower);
  const char *attrs = kip_col_text(st, 2);
  if (attrs) {
    json_t *a = json_loads(attrs, JSON_DECODE_ANY, NULL);
    const char *k;
    json_t *v;
    if (json_is_object(a)) json_object_foreach(a, k, v) {
        double f = 0;
        if (json_is_string(v)) f = substring_score(json_string_value(v), q->lower);
        else if (json_is_array(v)) {
          size_t i;
          json_t *x;
          json_array_foreach(v, i, x) if (json_is_string(x)) {
            double y = substring_score(json_string_value(x), q->lower);
            if (y > f) f = y;
          }
        }
        if (f > best) best = f;
      }
    else if (json_is_string(a)) {
      double f = substring_score(json_string_value(a), q->lower);
      if (f > best) best = f;
    }
    json_decref(a);
  }
  return best;
}

/* ------------------------------------------------------------- candidates */
/* concept rows: id, name, attributes; proposition rows: id, predicate,
** the predicate's description (a JSON string) */
#define CONCEPT_COLS "SELECT e.id, e.name, e.attributes"
#define PROP_COLS "SELECT e.id, e.predicate, kip_attrj(p.attributes, 'description')"
#define PROP_JOINS                                                                             \
  " LEFT JOIN element p ON p.type = '$PropositionType' AND p.name = e.predicate"               \
  " LEFT JOIN element s ON s.id = e.subject LEFT JOIN element o ON o.id = e.object"

enum { ROW_RANKED, ROW_SUBSTRING };

/* one candidate query: `cols` [, rank] FROM `from` WHERE `match` (?9001) AND
** the filter, then `tail` (?9003 = cap) */
static int collect(kip_ctx *c, const ast_search *q, search_scope *sc, const char *rank, const char *from,
                   const char *match, const char *tail, const char *arg, const query *qq, int64_t cap, int how,
                   search_hits *h) {
  kip_buf sql;
  kip_buf_init(&sql);
  kip_buf_printf(&sql, "%s%s%s FROM %s%s WHERE %s AND ", q->propositions ? PROP_COLS : CONCEPT_COLS,
                 rank ? ", " : "", rank ? rank : "", from, q->propositions ? PROP_JOINS : "", match);
  search_add_filter(&sql, sc, q);
  kip_buf_adds(&sql, tail);
  kip_stmt *st;
  int rc = kip_prepare(c->nx, sql.p, (int)sql.len, &st);
  kip_buf_free(&sql);
  if (rc != KIP_STORE_OK) return kip_store_error(c->nx, rc, c->err, "searching");
  search_bind_filter(sc, q, st);
  int length_prior = !search_cue_off("length");
  if (arg) kip_bind_text(st, 9001, arg, -1, 0);
  kip_bind_int64(st, 9003, cap);
  while ((rc = kip_step(st)) == KIP_ROW) {
    double exact = exact_score(st, qq), score;
    double words = 0;
    if (how == ROW_RANKED) {
      score = words = kip_col_double(st, 3);
      score += (1 - score) * kip_col_double(st, 4);
    }
    else score = substring_row(st, qq);
    if (exact > score) score = exact;
    if (score <= 0 || (q->has_threshold && score < q->threshold)) continue;
    search_hits_push(h, kip_col_int64(st, 0), score > 1 ? 1 : score, score);
    if (how == ROW_RANKED) {
      h->v[h->n - 1].words = words;
      h->v[h->n - 1].size = length_prior ? kip_col_int64(st, 5) : 0;
    }
  }
  kip_finish(c->nx, st);
  return rc == KIP_DONE ? 0 : kip_store_error(c->nx, rc, c->err, "searching");
}

static int by_hit_id(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = ((const search_hit *)b)->id;
  return (x > y) - (x < y);
}

/* the second hop (search_episodic.c): the cues' boost of the hits the words
** found, taken again with the people of the best hit — one statement over
** their ids, not a second search; a hit's score only rises */
static int second_hop(kip_ctx *c, search_scope *sc, const search_cues *cu, search_hits *h) {
  /* (the ids a parameter, ?9004 — the scope's binds are ?1…: the text
  ** changes only with the boost's people and dates, and its plan is kept) */
  kip_buf sql;
  kip_buf_init(&sql);
  kip_buf_printf(&sql, "SELECT e.id, %s FROM %s j JOIN element e ON e.id = j.id", cu->boost.p, kip_store_ids_sql_high(c->nx));
  kip_stmt *st;
  int rc = kip_prepare(c->nx, sql.p, (int)sql.len, &st);
  kip_buf_free(&sql);
  if (rc != KIP_STORE_OK) return kip_store_error(c->nx, rc, c->err, "searching");
  if (sc->cond) kql_bind_all(&sc->C, st);
  search_hits_bind_ids(st, 9004, h, h->n);
  search_hits_sort_by_id(h);
  while ((rc = kip_step(st)) == KIP_ROW) {
    int64_t id = kip_col_int64(st, 0);
    search_hit *x = bsearch(&id, h->v, h->n, sizeof *h->v, by_hit_id);
    if (!x) continue;
    double b = kip_col_double(st, 1), s = x->words + (1 - x->words) * b;
    if (s > x->raw) x->raw = s, x->score = s > 1 ? 1 : s;
  }
  kip_finish(c->nx, st);
  return rc == KIP_DONE ? 0 : kip_store_error(c->nx, rc, c->err, "searching");
}

int search_keyword(kip_ctx *c, const ast_search *q, search_scope *sc, const char *text, int64_t cap, search_hits *h) {
  search_cues cu;
  int rc = search_cues_init(c, sc, q, text, &cu);
  query qq;
  query_init(&qq, text);
  int pg = c->nx->sql_dialect == KIP_SQL_POSTGRESQL;
  kip_buf word;
  kip_buf_init(&word);
  word_query(&qq, &word, pg);
  if (!rc && word.len) {
    kip_buf_addc(&word, 0);
    kip_buf rank, from;
    kip_buf_init(&rank);
    kip_buf_init(&from);
    if (pg) { /* ts_rank_cd with the fields' weights (D unused, C body, B heading, A name), rank / (rank + 1);
               ** the order by the cues' score o (PostgreSQL orders by an output column only by its bare name),
               ** the rank and the boost computed once per row in a fenced LATERAL (OFFSET 0: not inlined) */
      char r[96];
      snprintf(r, sizeof r, "ts_rank_cd('{0.1, %g, %g, 1.0}', f.doc, tq, 32)", 1.0 / 3, 2.0 / 3);
      kip_buf_adds(&from, "search_doc f JOIN element e ON e.id = f.id CROSS JOIN to_tsquery('english', ?9001) AS tq");
      if (cu.boost.len) {
        kip_buf_printf(&from, " CROSS JOIN LATERAL (SELECT %s AS r, %s AS b OFFSET 0) k", r, cu.boost.p);
        kip_buf_adds(&rank, "k.r AS r, k.b AS b, length(f.doc) AS z, k.r + (1 - k.r) * k.b AS o");
      } else {
        kip_buf_printf(&rank, "%s AS r, 0.0 AS b, length(f.doc) AS z", r);
      }
    } else {
      kip_buf_adds(&from, "search_word f JOIN element e ON e.id = f.rowid");
      kip_buf_printf(&rank, "kip_rank(search_word, " W_NAME ", " W_HEADING ", " W_BODY ", %d) AS r, %s AS b, kip_size(search_word) AS z",
                     sc->cond ? 1 : 0, cu.boost.len ? cu.boost.p : "0.0");
    }
    kip_buf_addc(&rank, 0);
    kip_buf_addc(&from, 0);
    rc = collect(c, q, sc, rank.p, from.p, pg ? "f.doc @@ tq" : "search_word MATCH ?9001",
                 !pg ? " ORDER BY r + (1 - r) * b DESC, z DESC LIMIT ?9003"
                 : cu.boost.len ? " ORDER BY o DESC, z DESC LIMIT ?9003" : " ORDER BY r DESC, z DESC LIMIT ?9003", word.p, &qq,
                 cap, ROW_RANKED, h);
    kip_buf_free(&rank);
    kip_buf_free(&from);
    if (!rc && h->n && !q->propositions) { /* the second hop: the people of the best hit */
      size_t top = 0;
      for (size_t i = 1; i < h->n; i++)
        if (h->v[i].score > h->v[top].score) top = i;
      rc = search_cues_bridge(c, sc, &cu, h->v[top].id);
      if (!rc && cu.bridged) rc = second_hop(c, sc, &cu, h);
    }
  }
  search_cues_free(&cu);
  kip_buf_free(&word);
  size_t chars = utf8_chars(qq.lower);
  if (!rc && chars >= 3 && pg && kip_store_pg_trigrams(c->nx)) { /* substrings of the name and heading, by pg_trgm */
    /* the pattern '%text%' (its own % _ \ escaped, quotes doubled) is a
    ** literal of the statement, not a parameter: the plans the server keeps
    ** for a statement (generic: plan_cache_mode) cannot use a trigram index
    ** for LIKE $1, and scanned every concept (94 ms at 120 000 elements,
    ** against 0.5 ms by the index) */
    kip_buf match;
    kip_buf_init(&match);
    for (int field = 0; field < 2; field++) {
      kip_buf_adds(&match, field ? " OR lower(f.heading) LIKE '%" : "(lower(f.name) LIKE '%");
      for (const char *p = qq.lower; *p; p++) {
        if (*p == '%' || *p == '_' || *p == '\\') kip_buf_addc(&match, '\\');
        if (*p == '\'') kip_buf_addc(&match, '\'');
        kip_buf_addc(&match, *p);
      }
      kip_buf_adds(&match, "%'");
    }
    kip_buf_addc(&match, ')');
    kip_buf_addc(&match, 0);
    rc = collect(c, q, sc, NULL, "search_doc f JOIN element e ON e.id = f.id", match.p, " LIMIT ?9003", NULL, &qq, cap,
                 ROW_SUBSTRING, h);
    kip_buf_free(&match);
  } else if (!rc && chars >= 3 && pg) { /* the same without the extension: a scan */
    rc = collect(c, q, sc, NULL, "search_doc f JOIN element e ON e.id = f.id",
                 "(strpos(lower(f.name), ?9001) > 0 OR strpos(lower(f.heading), ?9001) > 0)", " LIMIT ?9003", qq.lower,
                 &qq, cap, ROW_SUBSTRING, h);
  } else if (!rc && chars >= 3) {
    kip_buf tri;
    kip_buf_init(&tri);
    quote_fts(&tri, qq.lower);
    kip_buf_addc(&tri, 0);
    rc = collect(c, q, sc, NULL, "search_trigram f JOIN element e ON e.id = f.rowid", "search_trigram MATCH ?9001",
                 " LIMIT ?9003", tri.p, &qq, cap, ROW_SUBSTRING, h);
    kip_buf_free(&tri);
  } else if (!rc && chars > 0 && h->n == 0) { /* too short for trigrams: a bounded scan */
    rc = collect(c, q, sc, NULL, "element e",
                 q->propositions ? "instr(lower(e.predicate), ?9001) > 0"
                                 : "(instr(lower(e.name), ?9001) > 0 OR instr(lower(e.attributes), ?9001) > 0)",
                 " LIMIT ?9003", qq.lower, &qq, cap, ROW_SUBSTRING, h);
  }
  query_free(&qq);
  if (!rc) search_hits_dedup(h);
  return rc;
}
