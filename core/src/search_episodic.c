/*
** search_episodic.c — what a question about episodes says besides its words
** (RC11 §5.2.1 "keyword"; the Event type of RC11 appendix A3.1; seed 001:
** episodic memory). Agents ask a memory of conversations and events in
** questions — "what did Maya say about the move?", "where did he travel in
** May?" — whose names and dates are cues, not just words:
**
**  - people: a word of the question that is (part of) the name of a
**    `Person` of the nexus (looked up in the word index's name column,
**    within the request's scope) names someone; an element whose people —
**    the Event's `participants`, the Persons it `involves` — include them
**    holds evidence about them, wherever the name appears in its text;
**  - dates: a month ("in January", "May 2025" — "May" only capitalised
**    after a preposition or beside a number, it is also a verb), a year,
**    an ISO date ("2025-03", "2025-03-14"); an element whose `start_time`
**    falls in it is about that time. The date's words stay in the word
**    query (a text may name its month; dropping them measured no gain).
**
**  - a second hop: a question that names nobody ("the pet of the person
**    who is moving to Tallinn") takes the Persons its best hit `involves`
**    as its people, with a weaker boost (BRIDGE_BOOST: inferred, not
**    named), and the hits its words found take the boost again
**    (search_keyword.c) — the mover's turns that hold the question's
**    other words climb over other people's.
**
** All are boosts, never filters: with p the share of the question's
** people among the element's people and d = 1 when its date matches, the
** boost is b = 1 − (1 − PEOPLE_BOOST·p)(1 − DATE_BOOST·d) and the keyword
** score s becomes s + (1 − s)·b (below 1: the words still order the hits
** that hold the same cues) —
** an element that holds the cues climbs over one that only shares words,
** but one that shares none of the question's words is not found (the
** candidates are the word index's). KIP_SEARCH_WITHOUT=people,dates,bridge
** turns them off, for measuring (scripts/bench/search). docs/search.md
** "Conversational memory". Both backends: the word index and the JSON of
** the attributes are read in each's SQL (SQLite: FTS5 and JSON1;
** PostgreSQL: the tsvector's weight A and json operators).
*/
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "search.h"

#define PEOPLE_BOOST 0.4
#define DATE_BOOST 0.4
#define BRIDGE_BOOST 0.2
#define MAX_PEOPLE 8
#define MAX_DATES 4

static const char *const MONTHS[] = {"january", "february", "march",     "april",   "may",      "june",
                                     "july",    "august",   "september", "october", "november", "december"};
/* words after which a capitalised "May" is the month */
static const char *const BEFORE_MONTH[] = {"in",   "of",    "since", "during", "until", "till", "before",
                                           "after", "early", "late",  "mid",    "last",  "this", "next", "by"};

int search_cue_off(const char *what) {
  const char *off = getenv("KIP_SEARCH_WITHOUT");
  if (!off) return 0;
  size_t n = strlen(what);
  for (const char *p = strstr(off, what); p; p = strstr(p + 1, what))
    if ((p == off || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return 1;
  return 0;
}

typedef struct word {
  const char *p;
  size_t n;
} word;

static int word_is(word w, const char *s) { return strlen(s) == w.n && !strncasecmp(w.p, s, w.n); }

static int month_of(word w) {
  for (int m = 0; m < 12; m++)
    if (word_is(w, MONTHS[m]) || (w.n == 3 && m != 4 && !strncasecmp(w.p, MONTHS[m], 3) && isupper((unsigned char)w.p[0])))
      return m + 1;
  return 0;
}

/* the number the word starts with, and how many digits it has (0: none);
   the value of only the first four digits is kept — no date needs more,
   and a longer run must not overflow */
static int leading_number(word w, size_t *digits) {
  int v = 0;
  for (*digits = 0; *digits < w.n && isdigit((unsigned char)w.p[*digits]); (*digits)++)
    if (*digits < 4) v = v * 10 + (w.p[*digits] - '0');
  return v;
}

/* 1900–2199 written with four digits: the year, else 0 */
static int is_year(word w) {
  size_t digits;
  int y = leading_number(w, &digits);
  return digits == 4 && w.n == 4 && y >= 1900 && y <= 2199 ? y : 0;
}

/* 1–31, optionally with a suffix of up to two letters (12th, 1st) */
static int is_day(word w) {
  size_t digits;
  int d = leading_number(w, &digits);
  return digits >= 1 && digits <= 2 && w.n - digits <= 2 && d >= 1 && d <= 31;
}

static int before_month(word w) {
  for (size_t k = 0; k < sizeof BEFORE_MONTH / sizeof *BEFORE_MONTH; k++)
    if (word_is(w, BEFORE_MONTH[k])) return 1;
  return 0;
}

static void add_date(search_cues *cu, int year, int month) {
  for (int i = 0; i < cu->ndates; i++)
    if (cu->dates[i].year == year && cu->dates[i].month == month) return;
  if (cu->ndates < MAX_DATES) cu->dates[cu->ndates++] = (search_date){year, month};
}

/* the dates a question names */
static void find_dates(search_cues *cu, const char *base) {
  word w[128];
  int n = 0;
  for (const char *p = base; *p && n < 128;) {
    while (*p && !isalnum((unsigned char)*p) && (unsigned char)*p < 0x80) p++;
    const char *s = p;
    while (*p && (isalnum((unsigned char)*p) || (unsigned char)*p >= 0x80 || (*p == '-' && isdigit((unsigned char)p[1]))))
      p++;
    if (p > s) w[n++] = (word){s, (size_t)(p - s)};
  }
  for (int i = 0; i < n; i++) {
    int y, mo, d;
    if (w[i].n == 7 || w[i].n == 10) { /* 2025-03, 2025-03-14 */
      char buf[11];
      memcpy(buf, w[i].p, w[i].n);
      buf[w[i].n] = 0;
      if ((w[i].n == 7 && sscanf(buf, "%4d-%2d", &y, &mo) == 2) || (w[i].n == 10 && sscanf(buf, "%4d-%2d-%2d", &y, &mo, &d) == 3)) {
        if (y >= 1900 && y <= 2199 && mo >= 1 && mo <= 12) {
          add_date(cu, y, mo);
        }
        continue;
      }
    }
    int m = month_of(w[i]);
    /* "May": the month only capitalised, after a preposition or beside a number */
    if (m == 5 && !(w[i].p[0] == 'M' && ((i > 0 && (is_day(w[i - 1]) || before_month(w[i - 1]))) ||
                                         (i + 1 < n && (is_day(w[i + 1]) || is_year(w[i + 1]))))))
      m = 0;
    if (m) {
      int year = 0;
      if (i + 1 < n && is_day(w[i + 1]) && !is_year(w[i + 1])) i++;
      if (i + 1 < n && is_year(w[i + 1])) year = is_year(w[++i]);
      add_date(cu, year, m);
    } else if ((y = is_year(w[i]))) {
      add_date(cu, y, 0);
    }
  }
}

static void build_boost(kip_ctx *c, search_scope *sc, search_cues *cu);

/* under a governance scope, an `involves` link `l` and the Person it names
** count only when the caller may see both: a hidden link must not move a
** visible episode's score */
static void add_link_scope(kip_buf *b, search_scope *sc, const char *person) {
  if (!sc->cond) return;
  const char *alias[] = {"l", person};
  for (int i = 0; i < 2; i++) {
    const char *cond = kql_scope_cond(&sc->C, alias[i]);
    if (cond) kip_buf_printf(b, " AND %s", cond);
  }
}

/* the Persons of the nexus (within the scope) that words of the text name:
** the word in the name field of the word index (SQLite's FTS5 column,
** PostgreSQL's weight A) */
static int find_people(kip_ctx *c, search_scope *sc, search_cues *cu, const char *text) {
  int pg = c->nx->sql_dialect == KIP_SQL_POSTGRESQL;
  kip_buf sql;
  kip_buf_init(&sql);
  kip_buf_adds(&sql, pg ? "SELECT e.name FROM search_doc f JOIN element e ON e.id = f.id "
                          "WHERE f.doc @@ to_tsquery('english', ?9001) AND e.type = 'Person'"
                        : "SELECT e.name FROM search_word f JOIN element e ON e.id = f.rowid "
                          "WHERE search_word MATCH ?9001 AND e.type = 'Person'");
  if (sc->cond) kip_buf_printf(&sql, " AND %s", sc->cond);
  kip_buf_adds(&sql, " LIMIT 4");
  kip_stmt *st;
  int rc = kip_prepare(c->nx, sql.p, (int)sql.len, &st);
  kip_buf_free(&sql);
  if (rc != KIP_STORE_OK) return kip_store_error(c->nx, rc, c->err, "searching");
  kip_buf m;
  kip_buf_init(&m);
  rc = KIP_DONE;
  for (const char *p = text; *p && cu->npeople < MAX_PEOPLE;) {
    while (*p && !isalnum((unsigned char)*p) && (unsigned char)*p < 0x80) p++;
    const char *s = p;
    while (*p && (isalnum((unsigned char)*p) || (unsigned char)*p >= 0x80)) p++;
    /* a name is a capitalised word of two letters or more (or a non-ASCII one) */
    if (p - s < 2 || (!isupper((unsigned char)*s) && (unsigned char)*s < 0x80)) continue;
    m.len = 0;
    if (pg) { /* (letters and digits only: nothing of tsquery's syntax) */
      for (const char *k = s; k < p; k++) kip_buf_addc(&m, (char)tolower((unsigned char)*k));
      kip_buf_adds(&m, ":A");
    } else {
      kip_buf_printf(&m, "name : \"%.*s\"", (int)(p - s), s);
    }
    kip_buf_addc(&m, 0);
    if (sc->cond) kql_bind_all(&sc->C, st);
    kip_bind_text(st, 9001, m.p, -1, 0);
    while ((rc = kip_step(st)) == KIP_ROW && cu->npeople < MAX_PEOPLE) {
      const char *name = kip_col_text(st, 0);
      int seen = 0;
      for (int i = 0; i < cu->npeople; i++) seen |= !strcmp(cu->people[i], name);
      if (!seen) {
        cu->people[cu->npeople] = strdup(name);
        if (!cu->people[cu->npeople]) abort();
        cu->npeople++;
      }
    }
    kip_reset(st);
    if (rc != KIP_ROW && rc != KIP_DONE) break;
    rc = KIP_DONE;
  }
  kip_buf_free(&m);
  kip_finish(c->nx, st);
  return rc == KIP_DONE || rc == KIP_ROW ? 0 : kip_store_error(c->nx, rc, c->err, "searching");
}

int search_cues_init(kip_ctx *c, search_scope *sc, const ast_search *q, const char *text, search_cues *cu) {
  memset(cu, 0, sizeof *cu);
  kip_buf_init(&cu->boost);
  if (q->propositions) return 0;
  if (!search_cue_off("dates")) find_dates(cu, text);
  if (!search_cue_off("people")) {
    int rc = find_people(c, sc, cu, text);
    if (rc) return rc;
  }
  build_boost(c, sc, cu);
  return 0;
}

static void build_boost(kip_ctx *c, search_scope *sc, search_cues *cu) {
  cu->boost.len = 0;
  if (!cu->npeople && !cu->ndates) return;
  int pg = c->nx->sql_dialect == KIP_SQL_POSTGRESQL;
  /* an attribute's value (SQLite's JSON functions; PostgreSQL's json) */
  const char *participants = pg ? "json_array_elements_text(CASE json_typeof(e.attributes::json -> 'participants') "
                                  "WHEN 'array' THEN e.attributes::json -> 'participants' "
                                  "ELSE json_build_array(e.attributes::json -> 'participants') END) j(value)"
                                : "json_each(e.attributes, '$.participants') j";
  const char *start = pg ? "(e.attributes::json ->> 'start_time')" : "json_extract(e.attributes, '$.start_time')";
  kip_buf *b = &cu->boost;
  kip_buf_adds(b, "1.0 - (1.0");
  if (cu->npeople) {
    kip_buf_printf(b, " - %g * (0", (cu->bridged ? BRIDGE_BOOST : PEOPLE_BOOST) / cu->npeople);
    for (int i = 0; i < cu->npeople; i++) {
      /* (truth values as numbers: PostgreSQL does not add booleans) */
      kip_buf_printf(b, " + CAST(EXISTS (SELECT 1 FROM %s WHERE j.value = ", participants);
      kip_buf_adds(b, kql_quote(&sc->C, cu->people[i]));
      kip_buf_adds(b, ") OR EXISTS (SELECT 1 FROM element l JOIN element pp ON pp.id = l.object WHERE l.subject = e.id "
                      "AND l.predicate = 'involves' AND pp.type = 'Person' AND pp.name = ");
      kip_buf_adds(b, kql_quote(&sc->C, cu->people[i]));
      add_link_scope(b, sc, "pp");
      kip_buf_adds(b, ") AS INTEGER)");
    }
    kip_buf_adds(b, ")");
  }
  kip_buf_adds(b, ") * (1.0");
  if (cu->ndates) {
    /* (an element without a start_time matches no date: 0, not NULL —
    ** a NULL took its people's boost with it) */
    kip_buf_printf(b, " - %g * coalesce(CAST(", DATE_BOOST);
    for (int i = 0; i < cu->ndates; i++) {
      const search_date *d = &cu->dates[i];
      if (i) kip_buf_adds(b, " OR ");
      if (d->year && d->month) kip_buf_printf(b, "substr(%s, 1, 7) = '%04d-%02d'", start, d->year, d->month);
      else if (d->year) kip_buf_printf(b, "substr(%s, 1, 4) = '%04d'", start, d->year);
      else kip_buf_printf(b, "substr(%s, 6, 2) = '%02d'", start, d->month);
    }
    kip_buf_adds(b, " AS INTEGER), 0)");
  }
  kip_buf_adds(b, ")");
  kip_buf_addc(b, 0);
  b->len--;
}

int search_cues_bridge(kip_ctx *c, search_scope *sc, search_cues *cu, int64_t top) {
  if (cu->npeople || search_cue_off("bridge")) return 0;
  kip_buf sql;
  kip_buf_init(&sql);
  kip_buf_adds(&sql, "SELECT DISTINCT e.name FROM element l JOIN element e ON e.id = l.object "
                     "WHERE l.subject = ?9001 AND l.predicate = 'involves' AND e.type = 'Person'");
  add_link_scope(&sql, sc, "e");
  kip_buf_adds(&sql, " LIMIT 4");
  kip_stmt *st;
  int rc = kip_prepare(c->nx, sql.p, (int)sql.len, &st);
  kip_buf_free(&sql);
  if (rc != KIP_STORE_OK) return kip_store_error(c->nx, rc, c->err, "searching");
  if (sc->cond) kql_bind_all(&sc->C, st);
  kip_bind_int64(st, 9001, top);
  while ((rc = kip_step(st)) == KIP_ROW && cu->npeople < MAX_PEOPLE) {
    cu->people[cu->npeople] = strdup(kip_col_text(st, 0));
    if (!cu->people[cu->npeople]) abort();
    cu->npeople++;
  }
  kip_finish(c->nx, st);
  if (rc != KIP_ROW && rc != KIP_DONE) return kip_store_error(c->nx, rc, c->err, "searching");
  if (!cu->npeople) return 0;
  cu->bridged = 1;
  build_boost(c, sc, cu);
  return 0;
}

void search_cues_free(search_cues *cu) {
  for (int i = 0; i < cu->npeople; i++) free(cu->people[i]);
  kip_buf_free(&cu->boost);
}
