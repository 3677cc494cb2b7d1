/*
** statements.h — the table of KIP's statement kinds (RC11 §3 KQL, §4 KML,
** §5 META): one line per kind, the only place that lists them. Each layer
** expands it into its own table, so a new kind is one line here plus the
** functions it names, and the compiler or the linker says which is missing:
**
**   syntax   parse_<fn>          parser.c: the statement after its keyword
**            write_<fn>          ast_json.c: the AST as JSON (`kip parse`)
**   exec     kip_exec_<fn>       exec_<fn>.c (SEARCH: exec_search.c): runs it
**   api      describe_<fn>       request_describe.c: what policies see of it
**   (exec_explain.c lists the kinds that compile to SQL a plan can show)
**
** X(KIND, keyword, fn, mutates): KIND names S_<KIND>; keyword opens the
** statement; mutates: 1 for KML (a write), 0 for a read.
**
** A statement kind can also be added from outside the tree, at build time:
** cmake -DKIP_STATEMENT_DIR=DIR, where DIR/statements.h defines
** KIP_EXTENSION_STATEMENTS(X) the same way and DIR's .c files define
** kip_parse_<fn>, kip_write_<fn>, kip_describe_<fn> and kip_exec_<fn>
** (statement_ext.h; docs/extending.md "Statement kinds").
*/
#ifndef KIP_STATEMENTS_H
#define KIP_STATEMENTS_H

#define KIP_CORE_STATEMENTS(X)           \
  X(FIND, "FIND", find, 0)               \
  X(UPSERT, "UPSERT", upsert, 1)         \
  X(UPDATE, "UPDATE", update, 1)         \
  X(MERGE, "MERGE", merge, 1)            \
  X(DELETE, "DELETE", delete, 1)         \
  X(DESCRIBE, "DESCRIBE", describe, 0)   \
  X(SEARCH, "SEARCH", search, 0)         \
  X(EXPORT, "EXPORT", export, 0)

#ifdef KIP_STATEMENT_EXTENSION
#include KIP_STATEMENT_EXTENSION
#endif
#ifndef KIP_EXTENSION_STATEMENTS
#define KIP_EXTENSION_STATEMENTS(X)
#endif

/* every kind: the core's, then the ones added from outside */
#define KIP_STATEMENTS(X) KIP_CORE_STATEMENTS(X) KIP_EXTENSION_STATEMENTS(X)

#define KIP_STMT_ENUM(K, kw, fn, mutates) S_##K,
/* S_FIND = 1 …; S_KINDS is one past the last */
enum { S_NONE, KIP_STATEMENTS(KIP_STMT_ENUM) S_KINDS };
#undef KIP_STMT_ENUM

#endif
