/*
** request.c — the request envelope of execute_kip / execute_kip_readonly
** (RC11 §6): validates the request object (exactly one of command/commands,
** known fields only, limits), merges shared and per-command parameters,
** runs each command (KML in its own transaction), applies batch semantics
** (syntax, KQL and META errors inline; the first KML execution error stops
** the batch), dry_run (everything runs inside a transaction that is rolled
** back; UPSERT id arrays are empty) and readonly (KML refused, KIP_4004).
** kip_call_command runs one command the same way without the envelope.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

static void write_error_response(kip_buf *b, const kip_error *e) {
  kip_buf_adds(b, "{\"error\":");
  kip_json_write_error(b, e);
  kip_buf_addc(b, '}');
}

/* the executor of each statement kind (statements.h) */
#define KIP_STMT_EXEC(K, kw, fn, mutates) [S_##K] = kip_exec_##fn,
static int (*const executors[S_KINDS])(kip_ctx *, const ast_command *) = {KIP_STATEMENTS(KIP_STMT_EXEC)};
#undef KIP_STMT_EXEC

static int dispatch(kip_ctx *c, const ast_command *cmd) {
  int kind = cmd->stmts[0]->kind;
  if (kind <= S_NONE || kind >= S_KINDS) return kip_err(c->err, KIP_E_INTERNAL, NULL, "unknown statement");
  return executors[kind](c, cmd);
}

/* The command's text parsed into arena a, or NULL with err set (too large,
** or a syntax error). */
static ast_command *parse_command(kip_arena *a, const char *text, size_t len, const json_t *params,
                                  const kip_call_options *opt, kip_error *err) {
  int64_t max_bytes = opt && opt->max_command_bytes > 0 ? opt->max_command_bytes : KIP_MAX_COMMAND_BYTES;
  if ((int64_t)len > max_bytes) {
    kip_err(err, KIP_E_RESOURCE, "Split the command (e.g. a large capsule) into several commands.",
            "command is %zu bytes; the limit is %lld", len, (long long)max_bytes);
    return NULL;
  }
  return kip_parse(a, text, len, params, err);
}

/* a command runs again because an assumption of the store proved wrong
** (docs/postgresql.md "Round trips and plans"): what its first run put in
** the response, and its error, are dropped */
static void run_again(kip_ctx *c) {
  c->out->len = 0;
  free(c->next_cursor);
  c->next_cursor = NULL;
  kip_buf_free(&c->warnings);
  memset(&c->warnings, 0, sizeof c->warnings);
  kip_err_clear(c->err);
  c->nx->req->timed_out = c->nx->req->regex_error = 0;
}

/* Execute a parsed command (cmd NULL: report parse_err) under options opt;
** write its response object to out. Returns 1 when it was a KML command
** that failed during execution (the batch must stop). */
static int execute_command(kip_nexus *nx, kip_arena *a, ast_command *cmd, const kip_error *parse_err, int readonly,
                           int dry_run, const kip_call_options *opt, const char *text, size_t len,
                           const json_t *params, kip_buf *out) {
  kip_error err;
  if (cmd) kip_err_clear(&err);
  else err = *parse_err;
  int stop = 0;
  kip_scope scope;
  if (cmd && readonly && cmd->is_kml) {
    kip_err(&err, KIP_E_DENIED,
            "This interface is read-only: write through execute_kip (MCP, HTTP /kip/execute), or kip exec / kip call "
            "without --readonly.",
            "%s is not allowed on the read-only interface", kip_stmt_kind_name(cmd->stmts[0]->kind));
    cmd = NULL;
  } else if (cmd && cmd->is_kml && nx->readonly_file) {
    kip_err(&err, KIP_E_DENIED,
            nx->readonly_fallback ? "The nexus file or its directory is not writable: fix the permissions or the mount to change it; reads work."
                                  : "The nexus was opened read-only; open it read-write to change it.",
            "%s is not possible: the nexus is open read-only", kip_stmt_kind_name(cmd->stmts[0]->kind));
    cmd = NULL;
  } else if (cmd && cmd->is_kml && opt && opt->write_denied) {
    kip_err(&err, KIP_E_DENIED, "This caller may read but not write; ask an operator to widen the policy.",
            "%s is not allowed: the governance policy denies writes for this caller",
            kip_stmt_kind_name(cmd->stmts[0]->kind));
    cmd = NULL;
  }
  int64_t bulk = cmd && cmd->is_kml ? kip_bulk_writes(nx, cmd) : 0;
  if (cmd && !bulk && kip_bulk_end(nx, &err)) cmd = NULL; /* after a bulk load's commands */
  if (cmd && kip_scope_begin(nx, opt, a, &scope, &err)) cmd = NULL;
  if (cmd) {
    kip_buf res;
    kip_buf_init(&res);
    kip_ctx c = {nx, &err, dry_run, &res, NULL, {0}, text, len, params};
    int deadline = opt && opt->deadline_ms > 0 ? opt->deadline_ms : KIP_DEFAULT_DEADLINE_MS;
    nx->req->timed_out = 0;
    nx->req->regex_error = 0;
    nx->req->max_rows = opt && opt->max_rows > 0 ? opt->max_rows : KIP_DEFAULT_MAX_ROWS;
    nx->req->max_hops = opt && opt->max_hops > 0 ? opt->max_hops : KIP_DEFAULT_MAX_HOPS;
    nx->req->deadline_us = kip_now_us() + (int64_t)deadline * 1000;
    nx->req->write_protected = opt ? opt->write_protected : NULL;
    nx->req->append_only = opt ? opt->append_only : NULL;
    nx->req->capabilities = opt ? opt->capabilities : NULL;
    nx->req->maintenance = opt && opt->maintenance && *opt->maintenance ? opt->maintenance : NULL;
    int rc;
    if (cmd->is_kml) {
      kip_stamp_now(nx);
      int checks_off = bulk ? kip_bulk_before(nx, cmd, bulk) : 0;
      /* the elements it creates may wait in a batch when the command is
      ** its own transaction (PostgreSQL): assumed new, and run again one
      ** insert at a time when one was not */
      int outermost = nx->tx_depth == 0;
      for (int attempt = 0;; attempt++) {
        kip_pg_batch_writes(nx, outermost && attempt == 0);
        rc = kip_tx_begin(nx, &err);
        if (!rc) {
          if (bulk) rc = kip_bulk_begin(nx, bulk, &err);
          if (!rc) rc = dispatch(&c, cmd);
          nx->req->bulk = 0;
          if (!rc && !nx->req->defer_index) rc = kip_search_sync(nx, &err); /* also inside a dry_run's outer transaction */
          if (rc) kip_tx_rollback(nx);
          else rc = kip_tx_commit(nx, &err);
        }
        kip_pg_batch_writes(nx, 0);
        int redo = kip_pg_batch_failed(nx);
        if (!rc || !redo || attempt) break;
        run_again(&c);
      }
      rc = kip_bulk_after(nx, checks_off, rc, &err);
      stop = rc != 0;
    } else {
      /* a query reads one snapshot, its schema checks included: one read
      ** transaction (a lock taken once, not per statement) */
      kip_error begin_err; /* none: each statement reads in its own */
      int read_tx = nx->tx_depth == 0 && !kip_tx_begin_read_repeatable(nx, &begin_err);
      rc = dispatch(&c, cmd);
      if (read_tx && kip_tx_end_read_stale(nx)) {
        /* it assumed a write generation that had moved (PostgreSQL): what
        ** it read is void; again, reading the generation first */
        run_again(&c);
        read_tx = !kip_tx_begin_read(nx, &begin_err);
        rc = dispatch(&c, cmd);
        if (read_tx) kip_tx_end_read(nx);
      } else if (read_tx) {
        kip_tx_end_read(nx);
      }
    }
    nx->req->deadline_us = 0;
    nx->req->write_protected = nx->req->append_only = nx->req->capabilities = NULL;
    nx->req->maintenance = NULL;
    kip_scope_end(nx);
    if (rc) {
      write_error_response(out, &err);
    } else {
      kip_buf_adds(out, "{\"result\":");
      kip_buf_add(out, res.p ? res.p : "null", res.p ? res.len : 4);
      if (c.next_cursor) {
        kip_buf_adds(out, ",\"next_cursor\":");
        kip_buf_json_str(out, c.next_cursor, strlen(c.next_cursor));
      }
      if (c.warnings.len) {
        kip_buf_adds(out, ",\"warnings\":[");
        kip_buf_add(out, c.warnings.p, c.warnings.len);
        kip_buf_addc(out, ']');
      }
      kip_buf_addc(out, '}');
    }
    free(c.next_cursor);
    kip_buf_free(&c.warnings);
    kip_buf_free(&res);
  } else {
    write_error_response(out, &err);
    stop = 2; /* reported, the batch goes on (an atomic one stops) */
  }
  return stop;
}

/* Run command number `index` of the request: the host's before-hook (a
** governance pre-check) may narrow its options or refuse it, the after-hook
** (post-check) may replace its response. A refusal is reported inline and,
** like a readonly violation, does not stop a batch. Returns 0 (done), 1 (an
** error that stops the batch) or 2 (an error reported inline: an atomic
** batch stops and rolls back). */
static int run_command(kip_nexus *nx, int index, const char *text, size_t len, const json_t *params, int readonly,
                       int dry_run, const kip_call_options *opt, kip_buf *out) {
  const kip_command_hooks *h = opt ? opt->hooks : NULL;
  if (kip_interrupted(nx)) { /* cancelled between commands: this one and the rest do not run */
    kip_error err;
    kip_err(&err, KIP_E_TIMEOUT, "The client cancelled the request.", "the request was cancelled before this command");
    write_error_response(out, &err);
    return 1;
  }
  kip_arena own, *a = kip_bulk_arena(nx, opt, &own);
  kip_error perr;
  kip_err_clear(&perr);
  ast_command *cmd = parse_command(a, text, len, params, opt, &perr);
  int stop = 0;
  if (!h) {
    stop = execute_command(nx, a, cmd, &perr, readonly, dry_run, opt, text, len, params, out);
    kip_bulk_release_arena(nx, a);
    return stop;
  }
  kip_call_options opts = *opt;
  kip_buf resp, desc;
  kip_buf_init(&resp);
  kip_buf_init(&desc);
  kip_error err;
  kip_err_clear(&err);
  char *pj = params ? kip_json_dump(params) : NULL;
  if (cmd) kip_render_description(&desc, cmd, params); /* from this parse: the command is parsed once */
  int denied = h->before ? h->before(h->ud, index, text, len, pj, cmd ? desc.p : NULL, &opts, &err) : 0;
  free(pj);
  kip_buf_free(&desc);
  if (denied) {
    write_error_response(&resp, &err);
    stop = 2; /* refused by the host's hook: the batch goes on (an atomic one stops) */
  } else stop = execute_command(nx, a, cmd, &perr, readonly, dry_run, &opts, text, len, params, &resp);
  kip_bulk_release_arena(nx, a);
  char *replaced = h->after ? h->after(h->ud, index, resp.p ? resp.p : "null") : NULL;
  if (replaced) kip_buf_adds(out, replaced);
  else kip_buf_add(out, resp.p, resp.len);
  free(replaced);
  kip_buf_free(&resp);
  return stop;
}

static int bad_request(kip_buf *out, const char *hint, const char *msg) {
  kip_error e;
  kip_err(&e, KIP_E_SYNTAX,
          hint ? hint : "A request is {\"command\": \"...\"} or {\"commands\": [...]}, with optional \"parameters\": {...} and \"dry_run\": true|false.",
          "invalid request: %s", msg);
  write_error_response(out, &e);
  return 0;
}

/* a parameter value the parser would refuse inline must not enter by the
** side door: it could be written but never exported and re-imported */
static int too_deep(const json_t *params, kip_error *err) {
  if (kip_json_depth(params) - 1 <= KIP_MAX_VALUE_DEPTH) return 0;
  kip_err(err, KIP_E_RESOURCE, "Flatten the value: commands nest at most 64 levels, capsules included.",
          "a parameter value nests deeper than %d levels", KIP_MAX_VALUE_DEPTH);
  return 1;
}

/* the request's shared "parameters" (an object, null or absent): 0 and
** *params (NULL for null) when usable, else 1 with the error written to out */
static int check_params(const json_t **params, kip_buf *out) {
  kip_error err;
  if (*params && !json_is_object(*params) && !json_is_null(*params))
    return bad_request(out, NULL, "\"parameters\" must be an object"), 1;
  if (*params && json_is_null(*params)) *params = NULL;
  if (*params && too_deep(*params, &err)) return write_error_response(out, &err), 1;
  return 0;
}

static json_t *merged_params(const json_t *shared, const json_t *own) {
  if (!own) return shared ? json_incref((json_t *)shared) : NULL;
  return kip_json_merge(shared, own);
}

/* this call's own request state; the nexus's idle state (outer) comes back
** with request_end */
static kip_request *request_begin(kip_nexus *nx, kip_request *rq, const kip_call_options *opt) {
  kip_request *outer = nx->req;
  memset(rq, 0, sizeof *rq);
  rq->max_rows = KIP_DEFAULT_MAX_ROWS;
  rq->max_hops = KIP_DEFAULT_MAX_HOPS;
  rq->hooks = opt ? opt->hooks : NULL;
  rq->defer_index = opt && opt->defer_index;
  nx->req = rq;
  return outer;
}

static char *request_end(kip_nexus *nx, kip_request *outer, kip_buf *out) {
  kip_vector_catch_up_some(nx); /* a backlog of vectors, a batch at a time */
  nx->req = outer; /* the request's hooks and limits end with it */
  char *s = kip_buf_detach(out);
  return s ? s : strdup("{\"error\":{\"code\":\"KIP_4002\",\"name\":\"ResourceExhausted\",\"message\":\"out of memory\",\"hint\":\"\"}}");
}

char *kip_call_command(kip_nexus *nx, const char *command, size_t len, const char *params_json,
                       const kip_call_options *opt) {
  if (opt && opt->readonly && kip_replica_for(nx)) { /* a hot standby answers (request_replica.c) */
    char *r = kip_call_command(nx->replica, command, len, params_json, opt);
    if (!kip_replica_done(nx)) return r;
    kip_free(r);
  }
  kip_buf out;
  kip_buf_init(&out);
  kip_error err;
  kip_err_clear(&err);
  kip_request rq, *outer = request_begin(nx, &rq, opt);
  json_t *parsed = params_json ? kip_json_parse_request(params_json, strlen(params_json), &err) : NULL;
  const json_t *params = parsed;
  if (params_json && !parsed) write_error_response(&out, &err);
  else if (!check_params(&params, &out))
    run_command(nx, 0, command ? command : "", command ? len : 0, params, opt && opt->readonly, 0, opt, &out);
  json_decref(parsed);
  return request_end(nx, outer, &out);
}

char *kip_call_json(kip_nexus *nx, const char *request, size_t len, const kip_call_options *opt) {
  if (opt && opt->readonly && kip_replica_for(nx)) { /* a hot standby answers (request_replica.c) */
    char *r = kip_call_json(nx->replica, request, len, opt);
    if (!kip_replica_done(nx)) return r;
    kip_free(r);
  }
  kip_buf out;
  kip_buf_init(&out);
  kip_error err;
  kip_err_clear(&err);
  int readonly = opt && opt->readonly;
  kip_request rq, *outer = request_begin(nx, &rq, opt);
  json_t *req = kip_json_parse_request(request, len, &err);
  if (!req) {
    write_error_response(&out, &err);
    goto done; /* the request's hooks must not outlive it */
  }
  const char *k;
  json_t *v;
  json_t *command = NULL, *commands = NULL;
  const json_t *params = NULL;
  int dry_run = 0;
  if (!json_is_object(req)) {
    bad_request(&out, "Send {\"command\": \"...\"} or {\"commands\": [...]}.", "the request must be a JSON object");
    goto done;
  }
  json_object_foreach(req, k, v) {
    if (!strcmp(k, "command")) command = v;
    else if (!strcmp(k, "commands")) commands = v;
    else if (!strcmp(k, "parameters")) params = v;
    else if (!strcmp(k, "dry_run")) {
      if (!json_is_boolean(v)) {
        bad_request(&out, NULL, "\"dry_run\" must be a boolean");
        goto done;
      }
      dry_run = json_is_true(v);
    } else {
      char msg[300];
      snprintf(msg, sizeof msg, "unknown field \"%.200s\"", k);
      bad_request(&out, "Allowed fields: command, commands, parameters, dry_run.", msg);
      goto done;
    }
  }
  if ((command != NULL) == (commands != NULL)) {
    bad_request(&out, "Provide \"command\" (a string) or \"commands\" (an array), not both.",
                "exactly one of \"command\" or \"commands\" must be given");
    goto done;
  }
  if (check_params(&params, &out)) goto done;
  if (command && !json_is_string(command)) {
    bad_request(&out, NULL, "\"command\" must be a string");
    goto done;
  }
  if (commands) {
    if (!json_is_array(commands)) {
      bad_request(&out, NULL, "\"commands\" must be an array");
      goto done;
    }
    if (json_array_size(commands) > KIP_MAX_BATCH) {
      kip_err(&err, KIP_E_RESOURCE, "Split the batch into several requests.", "batch has %zu commands; the limit is %d",
              json_array_size(commands), KIP_MAX_BATCH);
      write_error_response(&out, &err);
      goto done;
    }
    size_t i;
    json_t *item;
    json_array_foreach(commands, i, item) {
      if (json_is_string(item)) continue;
      if (!json_is_object(item) || !json_is_string(json_object_get(item, "command"))) {
        char msg[120];
        snprintf(msg, sizeof msg, "commands[%zu] must be a string or {\"command\": \"...\", \"parameters\": {...}}", i);
        bad_request(&out, NULL, msg);
        goto done;
      }
      json_object_foreach(item, k, v) {
        if (strcmp(k, "command") && strcmp(k, "parameters")) {
          char msg[300];
          snprintf(msg, sizeof msg, "unknown field \"%.200s\" in commands[%zu]", k, i);
          bad_request(&out, "Batch items take command and parameters only.", msg);
          goto done;
        }
        if (!strcmp(k, "parameters") && !json_is_object(v) && !json_is_null(v)) {
          char msg[120];
          snprintf(msg, sizeof msg, "commands[%zu].parameters must be an object", i);
          bad_request(&out, NULL, msg);
          goto done;
        }
        if (!strcmp(k, "parameters") && too_deep(v, &err)) {
          write_error_response(&out, &err);
          goto done;
        }
      }
    }
  }
  if (dry_run && !readonly) {
    if (kip_tx_begin(nx, &err)) {
      write_error_response(&out, &err);
      goto done;
    }
  }
  if (command) {
    run_command(nx, 0, json_string_value(command), json_string_length(command), params, readonly, dry_run, opt, &out);
  } else {
    /* a read-only batch reads one snapshot: no writer's commit lands between its commands */
    int read_tx = readonly && !dry_run && nx->tx_depth == 0 && !kip_tx_begin_read(nx, &err);
    /* an atomic batch (a host's call option) is one transaction */
    int atomic = opt && opt->atomic && !readonly && !dry_run, failed = 0;
    if (atomic && kip_tx_begin(nx, &err)) {
      write_error_response(&out, &err);
      goto done;
    }
    kip_buf_adds(&out, "{\"result\":[");
    size_t i;
    json_t *item;
    json_array_foreach(commands, i, item) {
      if (i) kip_buf_addc(&out, ',');
      json_t *text = json_is_string(item) ? item : json_object_get(item, "command");
      json_t *own = json_is_object(item) ? json_object_get(item, "parameters") : NULL;
      if (own && json_is_null(own)) own = NULL;
      json_t *p = merged_params(params, own);
      int stop = run_command(nx, (int)i, json_string_value(text), json_string_length(text), p, readonly, dry_run, opt,
                             &out);
      json_decref(p);
      if (stop == 1 || (stop && atomic)) {
        failed = 1;
        break;
      }
    }
    kip_buf_adds(&out, "]");
    if (atomic && failed) {
      kip_tx_rollback(nx);
      kip_buf_adds(&out, ",\"rolled_back\":true");
    } else if (atomic && kip_tx_commit(nx, &err)) {
      out.len = 0;
      write_error_response(&out, &err);
      goto done;
    }
    kip_buf_adds(&out, "}");
    if (read_tx) kip_tx_end_read(nx);
  }
  if (dry_run && !readonly) kip_tx_rollback(nx);
done:
  json_decref(req);
  return request_end(nx, outer, &out);
}
