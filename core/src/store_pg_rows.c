/*
** store_pg_rows.c — the row API of the storage seam (store.h) over libpq
** prepared statements (docs/postgresql.md). Parameters and results travel
** in text format. A KIP value ("kv": what kip_attr returns in SQLite — NULL,
** a number, a string, or JSON for true/false/arrays/objects) is a `json` in
** the PostgreSQL dialect, so:
**
**   - a parameter the server typed json/jsonb receives a JSON text: a bound
**     string is JSON-quoted, a number written as a JSON number, JSON as is;
**     any other parameter receives the value's plain text;
**   - a json/jsonb result column reads as the kv it holds (a string as TEXT
**     without quotes, a number as INT or REAL, the rest as BLOB of JSON).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_pg.h"

/* type Oids of pg_type.h (stable across PostgreSQL versions) */
enum { OID_BOOL = 16, OID_BYTEA = 17, OID_INT8 = 20, OID_INT2 = 21, OID_INT4 = 23, OID_OID = 26, OID_JSON = 114,
       OID_FLOAT4 = 700, OID_FLOAT8 = 701, OID_NUMERIC = 1700, OID_JSONB = 3802 };

/* the index of SQLite parameter number i among the statement's, or -1 */
static int slot(const kip_pg_stmt *st, int i) {
  int lo = 0, hi = st->npmap - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (st->pmap[mid] == (unsigned)i) return mid < st->nparams ? mid : -1;
    if (st->pmap[mid] < (unsigned)i) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

static int is_kv_param(const kip_pg_stmt *st, int i) {
  int k = slot(st, i);
  unsigned t = k >= 0 && st->ptypes ? st->ptypes[k] : 0;
  return t == OID_JSON || t == OID_JSONB;
}

/* a number the statement does not use is accepted and ignored, as SQLite
** accepts any number up to its largest */
static int set_value(kip_pg_stmt *st, int i, char *v) {
  int k = slot(st, i);
  if (k < 0) {
    free(v);
    return 0;
  }
  free(st->values[k]);
  st->values[k] = v;
  return 0;
}

static char *dup_n(const char *s, size_t n) {
  char *p = malloc(n + 1);
  if (!p) abort();
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

int kip_pg_bind_int64(kip_pg_stmt *st, int i, int64_t v) {
  char b[32];
  snprintf(b, sizeof b, "%lld", (long long)v);
  return set_value(st, i, dup_n(b, strlen(b)));
}

int kip_pg_bind_double(kip_pg_stmt *st, int i, double v) {
  if (!isfinite(v)) return set_value(st, i, is_kv_param(st, i) ? dup_n("null", 4) : NULL);
  char b[40];
  snprintf(b, sizeof b, "%.17g", v);
  if (is_kv_param(st, i) && !strpbrk(b, ".eE")) strcat(b, ".0"); /* stays a real */
  return set_value(st, i, dup_n(b, strlen(b)));
}

int kip_pg_bind_null(kip_pg_stmt *st, int i) { return set_value(st, i, NULL); }

int kip_pg_bind_text(kip_pg_stmt *st, int i, const char *s, int n) {
  size_t len = n < 0 ? strlen(s) : (size_t)n;
  if (!is_kv_param(st, i)) return set_value(st, i, dup_n(s, len));
  kip_buf b;
  kip_buf_init(&b);
  kip_buf_json_str(&b, s, len);
  return set_value(st, i, kip_buf_detach(&b));
}

int kip_pg_bind_json(kip_pg_stmt *st, int i, const char *s, int n) {
  return set_value(st, i, dup_n(s, n < 0 ? strlen(s) : (size_t)n));
}

/* bytea in its hex text form (\\x…), which the server reads whatever the parameter's inferred type */
int kip_pg_bind_bytea(kip_pg_stmt *st, int i, const void *p, int n) {
  kip_buf b;
  kip_buf_init(&b);
  kip_buf_adds(&b, "\\x");
  kip_buf_hex(&b, p, (size_t)n);
  return set_value(st, i, kip_buf_detach(&b));
}

void kip_pg_clear_bindings(kip_pg_stmt *st) {
  for (int k = 0; k < st->nparams; k++) {
    free(st->values[k]);
    st->values[k] = NULL;
  }
}

static void cells_clear(kip_pg_stmt *st) {
  for (int k = 0; k < st->ncells; k++) {
    free(st->cells[k]);
    st->cells[k] = NULL;
  }
}

void kip_pg_reset(kip_pg_stmt *st) {
  cells_clear(st);
  PQclear(st->res);
  st->res = NULL;
  st->executed = 0;
  st->row = -1;
  st->nrows = 0;
}

void kip_pg_stmt_free(kip_pg_stmt *st) {
  if (!st) return;
  kip_pg_reset(st);
  kip_pg_clear_bindings(st);
  free(st->values);
  free(st->pmap);
  free(st->ptypes);
  free(st->cells);
  free(st->cell_lens);
  free(st->sql);
  free(st);
}

int kip_pg_step(kip_pg_stmt *st) {
  struct kip_pg *pg = st->nx->pg;
  if (!st->executed) {
    if (kip_interrupted(st->nx)) return KIP_PG_INTERRUPT;
    st->res = kip_pg_run(st->nx, st->name, st->nparams, (const char *const *)st->values, st->binary, st->beside_batch);
    st->executed = 1;
    st->row = -1;
    ExecStatusType s = PQresultStatus(st->res);
    if (pg->stale) { /* the read assumed a generation that had moved: void */
      snprintf(pg->sqlstate, sizeof pg->sqlstate, "KIPGN");
      snprintf(pg->message, sizeof pg->message, "the write generation moved; the read is repeated");
      PQclear(st->res);
      st->res = NULL;
      return KIP_PG_ERROR;
    }
    if (s != PGRES_TUPLES_OK && s != PGRES_COMMAND_OK) {
      kip_pg_keep_error(pg, st->res);
      PQclear(st->res);
      st->res = NULL;
      return !strcmp(pg->sqlstate, "57014") ? KIP_PG_INTERRUPT : KIP_PG_ERROR;
    }
    pg->changes = kip_pg_rows_written(st->res);
    pg->total_changes += pg->changes;
    st->nrows = s == PGRES_TUPLES_OK ? PQntuples(st->res) : 0;
    int nf = PQnfields(st->res);
    if (nf > st->ncells) {
      char **c = realloc(st->cells, (size_t)nf * sizeof *c);
      size_t *l = realloc(st->cell_lens, (size_t)nf * sizeof *l);
      if (!c || !l) abort();
      for (int k = st->ncells; k < nf; k++) c[k] = NULL;
      st->cells = c;
      st->cell_lens = l;
      st->ncells = nf;
    }
  }
  if (!st->res) return KIP_DONE;
  cells_clear(st);
  if (st->row + 1 < st->nrows) {
    st->row++;
    return KIP_ROW;
  }
  st->row = st->nrows;
  return KIP_DONE;
}

/* ------------------------------------------------------------ columns */
static int in_row(const kip_pg_stmt *st, int i) {
  return st->res && st->row >= 0 && st->row < st->nrows && i >= 0 && i < PQnfields(st->res);
}

static const char *raw(const kip_pg_stmt *st, int i) {
  return in_row(st, i) && !PQgetisnull(st->res, st->row, i) ? PQgetvalue(st->res, st->row, i) : NULL;
}

static int numeric_kind(const char *v) { return strpbrk(v, ".eE") || !strcmp(v, "NaN") ? KIP_COL_REAL : KIP_COL_INT; }

/* binary results (kip_stmt_binary_results): integers in network order, bytea
** and text as their bytes; other types read as text are not decoded */
static int64_t binary_int(const kip_pg_stmt *st, int i) {
  const unsigned char *b = (const unsigned char *)raw(st, i);
  int n = PQgetlength(st->res, st->row, i);
  if (!b || n < 1 || n > 8) return 0;
  uint64_t u = b[0] & 0x80 ? ~(uint64_t)0 : 0; /* sign-extended */
  for (int k = 0; k < n; k++) u = (u << 8) | b[k];
  return (int64_t)u;
}

int kip_pg_col_type(kip_pg_stmt *st, int i) {
  const char *v = raw(st, i);
  if (!v) return KIP_COL_NULL;
  if (st->binary) {
    unsigned t = PQftype(st->res, i);
    return t == OID_BOOL || t == OID_INT2 || t == OID_INT4 || t == OID_INT8 ? KIP_COL_INT
           : t == OID_BYTEA                                                ? KIP_COL_BLOB
                                                                           : KIP_COL_TEXT;
  }
  switch (PQftype(st->res, i)) {
    case OID_BOOL: case OID_INT2: case OID_INT4: case OID_INT8: case OID_OID: return KIP_COL_INT;
    case OID_FLOAT4: case OID_FLOAT8: return KIP_COL_REAL;
    case OID_NUMERIC: return numeric_kind(v);
    case OID_BYTEA: return KIP_COL_BLOB;
    case OID_JSON: case OID_JSONB:
      while (*v == ' ' || *v == '\n' || *v == '\t' || *v == '\r') v++;
      switch (*v) {
        case '"': return KIP_COL_TEXT;
        case 'n': return KIP_COL_NULL;
        case 't': case 'f': case '[': case '{': return KIP_COL_BLOB;
        default: return numeric_kind(v);
      }
    default: return KIP_COL_TEXT;
  }
}

int64_t kip_pg_col_int64(kip_pg_stmt *st, int i) {
  const char *v = raw(st, i);
  if (!v) return 0;
  if (st->binary) return kip_pg_col_type(st, i) == KIP_COL_INT ? binary_int(st, i) : 0;
  if (PQftype(st->res, i) == OID_BOOL) return *v == 't';
  if (kip_pg_col_type(st, i) == KIP_COL_REAL) return (int64_t)strtod(v, NULL);
  return strtoll(v, NULL, 10);
}

double kip_pg_col_double(kip_pg_stmt *st, int i) {
  const char *v = raw(st, i);
  if (!v) return 0;
  if (st->binary) return kip_pg_col_type(st, i) == KIP_COL_INT ? (double)binary_int(st, i) : 0;
  if (PQftype(st->res, i) == OID_BOOL) return *v == 't';
  return strtod(v, NULL);
}

/* the cell of column i as the row API gives it: a JSON string decoded, a
** jsonb value compacted, a boolean as 1/0, bytea unescaped */
static const char *cell(kip_pg_stmt *st, int i, size_t *len) {
  const char *v = raw(st, i);
  *len = 0;
  if (!v) return NULL;
  if (st->cells[i]) {
    *len = st->cell_lens[i];
    return st->cells[i];
  }
  if (st->binary) {
    *len = (size_t)PQgetlength(st->res, st->row, i);
    return v;
  }
  unsigned t = PQftype(st->res, i);
  int kind = kip_pg_col_type(st, i);
  if (t == OID_BOOL) {
    st->cells[i] = dup_n(*v == 't' ? "1" : "0", 1);
  } else if (t == OID_BYTEA) {
    size_t n = 0;
    unsigned char *b = PQunescapeBytea((const unsigned char *)v, &n);
    if (!b) return NULL;
    st->cells[i] = dup_n((const char *)b, n);
    PQfreemem(b);
    *len = st->cell_lens[i] = n;
    return st->cells[i];
  } else if ((t == OID_JSON || t == OID_JSONB) && kind == KIP_COL_TEXT) {
    json_t *s = json_loads(v, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    if (!json_is_string(s)) {
      json_decref(s);
      return NULL;
    }
    st->cells[i] = dup_n(json_string_value(s), json_string_length(s));
    *len = st->cell_lens[i] = json_string_length(s);
    json_decref(s);
    return st->cells[i];
  } else if (t == OID_JSONB && kind == KIP_COL_BLOB) {
    json_t *j = json_loads(v, JSON_DECODE_ANY, NULL);
    char *c = j ? kip_json_dump(j) : NULL;
    json_decref(j);
    if (!c) return NULL;
    st->cells[i] = c;
  } else {
    *len = (size_t)PQgetlength(st->res, st->row, i);
    return v;
  }
  *len = st->cell_lens[i] = strlen(st->cells[i]);
  return st->cells[i];
}

const char *kip_pg_col_text(kip_pg_stmt *st, int i) {
  size_t n;
  return cell(st, i, &n);
}

const void *kip_pg_col_blob(kip_pg_stmt *st, int i) {
  size_t n;
  return cell(st, i, &n);
}

int kip_pg_col_bytes(kip_pg_stmt *st, int i) {
  size_t n;
  cell(st, i, &n);
  return (int)n;
}

void kip_pg_runs_beside_batch(kip_stmt *st) {
  if (st && PG_IS(st)) PG_ST(st)->beside_batch = 1;
}
