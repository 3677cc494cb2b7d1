# Sourced by the benchmarks that compare the backends (scripts/bench/kql,
# scripts/bench/search): pg_server_url sets $url to a throwaway PostgreSQL
# server's URL (tests/pg_cluster.py serve), stopped by its pid when the
# script exits, unless $url already names one (--url).
pg_server_url() {
  [ -n "${url:-}" ] && return 0
  pg_server_out=$(mktemp)
  python3 tests/pg_cluster.py serve >"$pg_server_out" 2>&1 &
  pg_server_pid=$!
  trap 'kill $pg_server_pid 2>/dev/null; wait $pg_server_pid 2>/dev/null; rm -f "$pg_server_out"' EXIT
  for _ in $(seq 100); do [ -s "$pg_server_out" ] && break; sleep 0.1; done
  url=$(head -1 "$pg_server_out")
  case "$url" in
    postgresql://*) ;;
    *) echo "$(basename "$0"): could not start a PostgreSQL server: $(cat "$pg_server_out")" >&2; exit 1 ;;
  esac
}
