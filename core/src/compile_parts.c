/*
** compile_parts.c — the parts of a WHERE pattern (KIP RC11 §4 "KQL", the
** engine's right to refuse a pattern it cannot bound: KIP_4002): the
** top-level clauses joined by the variables they share (or a FILTER that
** compares them), and whether each part is anchored by a name or an id.
** Two parts that nothing anchors make every pairing of their matches a
** solution: 6 915 links paired with themselves are 48 M rows, which held
** 5 GB of memory for 31 s until the deadline stopped the query
** (docs/decisions.md "Unconnected parts"). The compiler refuses such a
** pattern before it runs, naming the two parts.
**
** The same parts order the clauses for the plan (kql_plan_order): anchors
** first, then along the edges from them, whatever order they were written
** in; a type-only clause on a variable an anchor's part holds is a filter.
*/
#include <stdlib.h>
#include <string.h>

#include "compile.h"

#define MAX_VARS 256

typedef struct parts {
  const char *names[MAX_VARS];
  int parent[MAX_VARS];
  int nvars;
  int overflow; /* more variables than tracked: no verdict */
} parts;

static int find(parts *P, int i) {
  while (P->parent[i] != i) i = P->parent[i] = P->parent[P->parent[i]];
  return i;
}

static void join(parts *P, int a, int b) {
  if (a < 0 || b < 0) return;
  a = find(P, a), b = find(P, b);
  if (a != b) P->parent[a] = b;
}

/* variable v joins the clause whose first variable is *first */
static void attach(parts *P, int *first, int v) {
  if (v < 0) return;
  if (*first < 0) *first = v;
  else join(P, *first, v);
}

/* the index of variable `name` (added when new), or -1 */
static int var_index(parts *P, const char *name) {
  if (!name) return -1;
  for (int i = 0; i < P->nvars; i++)
    if (!strcmp(P->names[i], name)) return i;
  if (P->nvars == MAX_VARS) {
    P->overflow = 1;
    return -1;
  }
  P->names[P->nvars] = name;
  P->parent[P->nvars] = P->nvars;
  return P->nvars++;
}

static int concept_anchored(const ast_concept *c) {
  return c && ((c->name && !json_is_null(c->name)) || (c->id && !json_is_null(c->id)));
}

/* the variables of a clause, joined to `first` (the clause's first one,
** -1 until there is one); returns whether the clause is anchored */
static int prop_vars(parts *P, const ast_prop *pr, int *first);

static int endpoint_vars(parts *P, const ast_endpoint *ep, int *first) {
  int v = -1, anchored = 0;
  if (ep->kind == EP_VAR) v = var_index(P, ep->var);
  else if (ep->kind == EP_CONCEPT) {
    v = var_index(P, ep->concept->var);
    anchored = concept_anchored(ep->concept);
  } else if (ep->kind == EP_PROP) {
    anchored = prop_vars(P, ep->prop, first);
  }
  attach(P, first, v);
  return anchored;
}

static int prop_vars(parts *P, const ast_prop *pr, int *first) {
  int anchored = pr->id && !json_is_null(pr->id);
  attach(P, first, var_index(P, pr->var));
  if (pr->pred.kind == PRED_VAR) attach(P, first, var_index(P, pr->pred.var));
  anchored |= endpoint_vars(P, &pr->subject, first);
  anchored |= endpoint_vars(P, &pr->object, first);
  return anchored;
}

/* the variables an expression mentions, joined to `first` */
static void expr_vars(parts *P, const ast_expr *e, int *first) {
  if (!e) return;
  if (e->kind == E_VAR || e->kind == E_PATH) attach(P, first, var_index(P, e->var));
  for (int i = 0; i < e->nargs; i++) expr_vars(P, e->args[i], first);
}

/* every variable of a nested group (OPTIONAL, UNION branches), joined */
static void group_vars(parts *P, const ast_group *g, int *first) {
  for (int i = 0; g && i < g->n; i++) {
    const ast_where *w = g->items[i];
    if (w->kind == W_CONCEPT) attach(P, first, var_index(P, w->concept->var));
    else if (w->kind == W_PROP) prop_vars(P, w->prop, first);
    else if (w->kind == W_FILTER) expr_vars(P, w->filter, first);
    else group_vars(P, w->group, first);
  }
}

int kql_unanchored_parts(const ast_group *g, kip_pos *a, kip_pos *b) {
  if (!g || g->n < 2) return 0;
  parts P = {{0}, {0}, 0, 0};
  int *item_var = calloc((size_t)g->n * 2, sizeof *item_var), *item_anchored = item_var + g->n;
  if (!item_var) return 0;
  for (int i = 0; i < g->n; i++) {
    const ast_where *w = g->items[i];
    int first = -1, anchored = 0;
    if (w->kind == W_CONCEPT) {
      first = var_index(&P, w->concept->var);
      anchored = concept_anchored(w->concept);
    } else if (w->kind == W_PROP) {
      anchored = prop_vars(&P, w->prop, &first);
    } else if (w->kind == W_FILTER) {
      expr_vars(&P, w->filter, &first); /* a comparison joins what it compares */
      first = -1;
    } else if (w->kind == W_OPTIONAL || w->kind == W_UNION) {
      group_vars(&P, w->group, &first); /* bounded like an anchor: never refused for it */
      anchored = 1;
    } /* NOT filters the solutions: it joins nothing */
    item_var[i] = w->kind == W_CONCEPT || w->kind == W_PROP || anchored ? first : -2;
    item_anchored[i] = anchored || (w->kind != W_CONCEPT && w->kind != W_PROP);
  }
  if (P.overflow) {
    free(item_var);
    return 0;
  }
  /* a part is anchored when one of its clauses is; a clause without any
  ** variable is a part of its own */
  int root_anchored[MAX_VARS] = {0};
  for (int i = 0; i < g->n; i++)
    if (item_var[i] >= 0 && item_anchored[i]) root_anchored[find(&P, item_var[i])] = 1;
  int seen[MAX_VARS] = {0}, n = 0;
  for (int i = 0; i < g->n; i++) {
    const ast_where *w = g->items[i];
    if (w->kind != W_CONCEPT && w->kind != W_PROP) continue;
    int unanchored = item_var[i] >= 0 ? !root_anchored[find(&P, item_var[i])] : !item_anchored[i];
    if (!unanchored) continue;
    if (item_var[i] >= 0) {
      int r = find(&P, item_var[i]);
      if (seen[r]) continue;
      seen[r] = 1;
    }
    if (n == 0) *a = w->pos;
    else if (n == 1) *b = w->pos;
    n++;
  }
  free(item_var);
  return n;
}

/* is variable `name` bound before the group (an outer frame, an earlier
** segment): an anchor for the group's parts */
static int bound_before(frame *F, const char *name) { return name && F && kql_lookup(F, name) != NULL; }

/* the variables a clause mentions (its own, its endpoints', a nested
** link's), at most `cap`; how many */
static int clause_names(const ast_where *w, const char **out, int cap);
static int prop_names(const ast_prop *pr, const char **out, int n, int cap) {
  const char *own[3] = {pr->var, pr->pred.kind == PRED_VAR ? pr->pred.var : NULL, NULL};
  for (int i = 0; i < 2; i++)
    if (own[i] && n < cap) out[n++] = own[i];
  const ast_endpoint *ends[2] = {&pr->subject, &pr->object};
  for (int i = 0; i < 2; i++) {
    const ast_endpoint *ep = ends[i];
    if (ep->kind == EP_VAR && ep->var && n < cap) out[n++] = ep->var;
    else if (ep->kind == EP_CONCEPT && ep->concept->var && n < cap) out[n++] = ep->concept->var;
    else if (ep->kind == EP_PROP) n = prop_names(ep->prop, out, n, cap);
  }
  return n;
}
static int clause_names(const ast_where *w, const char **out, int cap) {
  if (w->kind == W_CONCEPT) return w->concept->var && cap > 0 ? (out[0] = w->concept->var, 1) : 0;
  return w->kind == W_PROP ? prop_names(w->prop, out, 0, cap) : 0;
}

#define CLAUSE_VARS 16

void kql_plan_order(const ast_group *g, frame *F, int *order, const char ***reached) {
  *reached = NULL;
  for (int i = 0; g && i < g->n; i++) order[i] = i;
  if (!g || g->n < 2) return;
  parts P = {{0}, {0}, 0, 0};
  int root_anchored[MAX_VARS] = {0}, bound[MAX_VARS] = {0};
  int *picked = calloc((size_t)g->n * 2, sizeof *picked);
  if (!picked) return;
  int *anchored = picked + g->n; /* each clause anchored by itself: a name or an id in it */
  /* the parts, joined by the clauses only (a FILTER comparing two variables
  ** gives no index path from one to the other); a part is anchored by a
  ** name, an id or a variable bound before the group */
  for (int i = 0; i < g->n; i++) {
    const ast_where *w = g->items[i];
    int first = -1;
    if (w->kind == W_CONCEPT) {
      first = var_index(&P, w->concept->var);
      anchored[i] = concept_anchored(w->concept);
    } else if (w->kind == W_PROP) {
      anchored[i] = prop_vars(&P, w->prop, &first);
    }
    if (anchored[i] && first >= 0) root_anchored[first] = 1; /* resolved to its root below */
  }
  if (P.overflow) {
    free(picked);
    return;
  }
  for (int v = 0; v < P.nvars; v++) {
    if (root_anchored[v]) root_anchored[find(&P, v)] = 1;
    if ((bound[v] = bound_before(F, P.names[v]))) root_anchored[find(&P, v)] = 1;
  }
  for (int v = 0; v < P.nvars; v++) root_anchored[v] = root_anchored[find(&P, v)];
  /* the order: within each run of clauses between OPTIONAL, NOT and UNION
  ** (which see what the clauses before them bound), anchored clauses first,
  ** then each clause that touches a variable bound so far, in the order
  ** written among equals; a clause nothing reaches yet comes last */
  int out = 0;
  for (int start = 0; start < g->n;) {
    int end = start;
    while (end < g->n && (g->items[end]->kind == W_CONCEPT || g->items[end]->kind == W_PROP ||
                          g->items[end]->kind == W_FILTER))
      end++;
    for (int left = end - start; left > 0; left--) {
      int best = -1, best_rank = 3;
      for (int i = start; i < end; i++) {
        if (picked[i]) continue;
        const ast_where *w = g->items[i];
        const char *names[CLAUSE_VARS];
        int n = clause_names(w, names, CLAUSE_VARS), touches = 0;
        for (int k = 0; k < n; k++) touches |= bound[var_index(&P, names[k])];
        int rank = w->kind == W_FILTER || anchored[i] ? 0 : touches ? 1 : 2;
        if (rank < best_rank) best = i, best_rank = rank;
      }
      picked[best] = 1;
      order[out++] = best;
      const char *names[CLAUSE_VARS];
      int n = clause_names(g->items[best], names, CLAUSE_VARS);
      for (int k = 0; k < n; k++) bound[var_index(&P, names[k])] = 1;
    }
    if (end < g->n) order[out++] = end; /* the OPTIONAL, NOT or UNION stays where it was written */
    start = end + 1;
  }
  *reached = calloc((size_t)P.nvars + 1, sizeof **reached);
  for (int v = 0, n = 0; *reached && v < P.nvars; v++)
    if (root_anchored[v]) (*reached)[n++] = P.names[v];
  free(picked);
}
