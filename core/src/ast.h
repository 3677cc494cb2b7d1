/*
** ast.h — the syntax layer's product: the abstract syntax tree of a KIP
** command (RC11 §3 KQL, §4 KML, §5 META), one node type per construct and
** one statement struct per kind of statements.h, with the parser's entry
** points and the AST's JSON writer. Built by parser.c into an arena; read
** by the compiler, the executors and the describer.
*/
#ifndef KIP_AST_H
#define KIP_AST_H

#include "kipint.h"
#include "statements.h"

/* ---- AST ---- */
typedef struct ast_concept {
  kip_pos pos;
  const char *var; /* binding variable or NULL */
  json_t *id;      /* string values or NULL when absent */
  json_t *type;
  json_t *name;
} ast_concept;

enum { PRED_LITERAL, PRED_ALT, PRED_HOPS, PRED_VAR };
typedef struct ast_pred {
  int kind;
  kip_pos pos;
  const char **names; /* literal / alternatives / hop predicate */
  int nnames;
  int min, max;       /* hops; max < 0 = unbounded */
  const char *var;    /* predicate variable */
} ast_pred;

enum { EP_VAR = 1, EP_CONCEPT, EP_PROP };
struct ast_prop;
typedef struct ast_endpoint {
  int kind;
  kip_pos pos;
  const char *var;          /* EP_VAR: query variable or UPSERT handle */
  ast_concept *concept;     /* EP_CONCEPT */
  struct ast_prop *prop;    /* EP_PROP */
} ast_endpoint;

typedef struct ast_prop {
  kip_pos pos;
  const char *var; /* binding variable or NULL */
  json_t *id;      /* (id: "...") form when non-NULL */
  ast_endpoint subject, object;
  ast_pred pred;
} ast_prop;

/* path fields */
enum { F_NONE, F_ID, F_TYPE, F_NAME, F_SUBJECT, F_PREDICATE, F_OBJECT, F_ATTRS, F_META };
/* expression kinds */
enum { E_LIT = 1, E_VAR, E_PATH, E_BIN, E_NOT, E_FUNC, E_AGG, E_LIST };
/* binary operators */
enum { OP_OR = 1, OP_AND, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };
/* functions: filter functions and update expressions */
enum {
  FN_IN = 1, FN_IS_NULL, FN_IS_NOT_NULL, FN_CONTAINS, FN_STARTS_WITH, FN_ENDS_WITH, FN_REGEX,
  FN_ADD, FN_MUL, FN_CLAMP, FN_COALESCE
};
/* aggregates */
enum { AGG_COUNT = 1, AGG_SUM, AGG_AVG, AGG_MIN, AGG_MAX };

typedef struct ast_expr {
  int kind;
  kip_pos pos;
  json_t *lit;          /* E_LIT */
  const char *var;      /* E_VAR, E_PATH */
  int field;            /* E_PATH */
  const char *key;      /* E_PATH on attributes/metadata; NULL = whole object */
  int op;               /* E_BIN operator, E_FUNC function, E_AGG aggregate */
  int distinct;         /* COUNT(DISTINCT ...) */
  struct ast_expr **args;
  int nargs;
} ast_expr;

enum { W_CONCEPT = 1, W_PROP, W_FILTER, W_OPTIONAL, W_NOT, W_UNION };
struct ast_group;
typedef struct ast_where {
  int kind;
  kip_pos pos;
  ast_concept *concept;
  ast_prop *prop;
  ast_expr *filter;
  struct ast_group *group;
} ast_where;

typedef struct ast_group {
  kip_pos pos;
  ast_where **items;
  int n;
} ast_group;

typedef struct ast_order {
  ast_expr *expr;
  int desc;
} ast_order;

typedef struct ast_find {
  ast_expr **proj;
  int nproj;
  ast_group *where;
  ast_order *order;
  int norder;
  int64_t limit;   /* -1 = none */
  json_t *cursor;  /* string or NULL */
  kip_pos limit_pos, cursor_pos;
} ast_find;

typedef struct ast_setprop {
  kip_pos pos;
  json_t *pred; /* string */
  ast_endpoint target;
  json_t *meta; /* object or NULL */
} ast_setprop;

enum { B_CONCEPT = 1, B_PROP };
typedef struct ast_block {
  int kind;
  kip_pos pos;
  const char *handle;
  ast_concept *concept;
  ast_prop *prop;
  int has_expect;
  int64_t expect;
  kip_pos expect_pos;
  json_t *attrs; /* object or NULL */
  ast_setprop *props;
  int nprops;
  json_t *meta; /* object or NULL */
} ast_block;

typedef struct ast_upsert {
  ast_block **blocks;
  int n;
  json_t *meta; /* statement-level default metadata or NULL */
} ast_upsert;

typedef struct ast_assign {
  kip_pos pos;
  const char *key;
  ast_expr *expr;
} ast_assign;

typedef struct ast_update {
  const char *target;
  kip_pos target_pos;
  ast_assign *attrs;
  int nattrs, has_attrs;
  ast_assign *meta;
  int nmeta, has_meta;
  ast_group *where;
  int64_t limit;
} ast_update;

typedef struct ast_merge {
  const char *source, *target;
  kip_pos source_pos, target_pos;
  ast_group *where;
} ast_merge;

enum { DEL_ATTRIBUTES = 1, DEL_METADATA, DEL_PROPOSITIONS, DEL_CONCEPT };
typedef struct ast_delete {
  int what;
  const char **keys;
  int nkeys;
  const char *target;
  kip_pos target_pos;
  ast_group *where;
} ast_delete;

enum { D_PRIMER = 1, D_DOMAINS, D_CONCEPT_TYPES, D_CONCEPT_TYPE, D_PROP_TYPES, D_PROP_TYPE };
typedef struct ast_describe {
  int what;
  json_t *name;
  int64_t limit;
  json_t *cursor;
} ast_describe;

typedef struct ast_search {
  int propositions;
  json_t *term, *type, *mode;
  int has_threshold;
  double threshold;
  int64_t limit;
} ast_search;

typedef struct ast_export {
  const char *target;
  kip_pos target_pos;
  ast_group *where;
  int64_t limit;
  json_t *cursor;
} ast_export;

typedef struct ast_stmt {
  int kind;
  kip_pos pos;
  union {
    ast_find find;
    ast_upsert upsert;
    ast_update update;
    ast_merge merge;
    ast_delete del;
    ast_describe describe;
    ast_search search;
    ast_export exp;
    void *ext; /* a kind added from outside the tree (statement_ext.h): its own node */
  } u;
} ast_stmt;

typedef struct ast_command {
  ast_stmt **stmts;
  int n;
  int is_kml;     /* UPSERT / UPDATE / MERGE / DELETE */
  const char *text;
  size_t len;
  int placeholders; /* parameter placeholders the text used whose value is not true, false or null
                    ** (jansson's shared values: the same object wherever they occur, so
                    ** exec_plans.c cannot tell a parameter's from a literal's, and needs not:
                    ** the parameter's type is its value) */
} ast_command;

const char *kip_stmt_kind_name(int kind);

/* parser.c: parse text with parameters (JSON object or NULL). Returns NULL on
** error (err filled: KIP_1001/1002 with position, or KIP_3001 for a missing
** parameter). */
ast_command *kip_parse(kip_arena *a, const char *text, size_t len, const json_t *params,
                       kip_error *err);
/* parser.c: a standalone FILTER-style boolean expression over ?<var> only
** (the eligibility scope). NULL on error. */
ast_expr *kip_parse_scope_expr(kip_arena *a, const char *text, size_t len, const json_t *params, const char *var,
                               kip_error *err);
/* ast_json.c: parse a command and render {"result": render(cmd)} or {"error"} */
char *kip_parsed_json(const char *command, size_t len, const char *params_json,
                      void (*render)(kip_buf *b, const ast_command *cmd, const json_t *params));
/* request_describe.c: the description policies see (kip_describe_json's
** result object) of a parsed command */
void kip_render_description(kip_buf *b, const ast_command *cmd, const json_t *params);
/* ast_json.c */
void kip_ast_write(kip_buf *b, const ast_command *cmd);

#endif
