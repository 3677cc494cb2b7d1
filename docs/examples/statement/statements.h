/* The statement kinds this folder adds to KIP (docs/extending.md
** "Statement kinds"): built in with cmake -DKIP_STATEMENT_DIR=<this folder>.
** X(KIND, keyword, function name, writes) */
#define KIP_EXTENSION_STATEMENTS(X) X(PING, "PING", ping, 0)
