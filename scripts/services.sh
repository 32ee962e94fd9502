#!/usr/bin/env bash
# Starts (or stops) the scale-out engines the live test suites use, on loopback only:
# PostgreSQL, Redis and two ClickHouse servers acting as two shards. Debian packages.
#   scripts/services.sh install   apt-get install the servers (root)
#   scripts/services.sh start     start them under $FF_SVC_DIR, print the env to export
#   scripts/services.sh stop      stop what start started (by pid)
#   scripts/services.sh missing   print the servers that are not installed (exit 1 when any)
# FF_SVC_DIR and the FF_*_PORT variables below let a second set run beside the first (as .ci/run does).
set -euo pipefail
DIR="${FF_SVC_DIR:-/tmp/footfall-services}"
PG_PORT="${FF_PG_PORT:-55432}"
REDIS_PORT="${FF_REDIS_PORT:-56379}"
CH1_HTTP="${FF_CH1_HTTP_PORT:-58123}"; CH1_TCP="${FF_CH1_TCP_PORT:-59000}"
CH2_HTTP="${FF_CH2_HTTP_PORT:-58124}"; CH2_TCP="${FF_CH2_TCP_PORT:-59001}"

install() {
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql redis-server clickhouse-server clickhouse-client >/dev/null
}

missing() {
  local out=()
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || out+=(postgresql)
  command -v redis-server >/dev/null 2>&1 || out+=(redis-server)
  command -v clickhouse-server >/dev/null 2>&1 || out+=(clickhouse-server)
  [ ${#out[@]} -eq 0 ] || { echo "${out[*]}"; return 1; }
}

# PostgreSQL refuses to run as root: as root, run its tools as the postgres user; otherwise as ourselves.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# Readiness over HTTP without assuming curl is installed (node is: this is a node project).
http_ok() { node -e "fetch(process.argv[1]).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))" "$1"; }

wait_for() { # what, command...
  local what=$1; shift
  for _ in $(seq 1 100); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  echo "services: $what did not start" >&2; return 1
}

start_pg() {
  local bin; bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  mkdir -p "$DIR/pg"; [ "$(id -u)" = 0 ] && chown postgres:postgres "$DIR/pg"
  if [ ! -f "$DIR/pg/data/PG_VERSION" ]; then
    # C locale: byte order for text, the same as SQLite, whatever the machine's locale.
    as_pg "$bin/initdb" -D "$DIR/pg/data" -A trust -U postgres --locale=C -E UTF8 >/dev/null
  fi
  # A second start on the same data dir (already running) is not an error.
  as_pg "$bin/pg_ctl" -D "$DIR/pg/data" status >/dev/null 2>&1 ||
    as_pg "$bin/pg_ctl" -D "$DIR/pg/data" -l "$DIR/pg/log" -w \
      -o "-c listen_addresses=127.0.0.1 -c port=$PG_PORT -c unix_socket_directories=$DIR/pg -c fsync=off -c max_connections=200" start >/dev/null
  as_pg "$bin/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname='footfall'" | grep -q 1 ||
    as_pg "$bin/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres footfall
}

start_redis() {
  mkdir -p "$DIR/redis"
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save '' --appendonly no \
    --daemonize yes --pidfile "$DIR/redis/pid" --dir "$DIR/redis" --logfile "$DIR/redis/log"
  wait_for redis redis-cli -p "$REDIS_PORT" ping
}

ch_config() { # name http tcp
  local d="$DIR/$1"; mkdir -p "$d/data" "$d/tmp"
  cat >"$d/users.xml" <<XML
<yandex>
  <profiles><default/></profiles>
  <quotas><default/></quotas>
  <users><default><password></password><networks><ip>::/0</ip></networks><profile>default</profile><quota>default</quota></default></users>
</yandex>
XML
  cat >"$d/config.xml" <<XML
<yandex>
  <logger><level>warning</level><log>$d/server.log</log><errorlog>$d/error.log</errorlog></logger>
  <http_port>$2</http_port>
  <tcp_port>$3</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>$d/data/</path>
  <tmp_path>$d/tmp/</tmp_path>
  <users_config>$d/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>536870912</mark_cache_size>
  <remote_servers>
    <footfall_cluster>
      <shard><replica><host>127.0.0.1</host><port>$CH1_TCP</port></replica></shard>
      <shard><replica><host>127.0.0.1</host><port>$CH2_TCP</port></replica></shard>
    </footfall_cluster>
  </remote_servers>
</yandex>
XML
}

start_ch() { # name http tcp
  ch_config "$1" "$2" "$3"
  # exec: the recorded pid is the server's own (stop kills it), and no shell lingers holding our stdout
  # (which would keep a caller's $(services.sh start) waiting for ever).
  (cd "$DIR/$1" && exec nohup clickhouse-server --config-file="$DIR/$1/config.xml" >"$DIR/$1/stdout" 2>&1 </dev/null) &
  echo $! >"$DIR/$1/pid"
  wait_for "clickhouse $1" http_ok "http://127.0.0.1:$2/?query=SELECT%201"
}

start() {
  mkdir -p "$DIR"
  start_pg
  start_redis
  start_ch ch1 $CH1_HTTP $CH1_TCP
  start_ch ch2 $CH2_HTTP $CH2_TCP
  cat <<ENV
export FOOTFALL_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:$PG_PORT/footfall
export FOOTFALL_TEST_REDIS_URL=redis://127.0.0.1:$REDIS_PORT
export FOOTFALL_TEST_CLICKHOUSE_URL=clickhouse+http://127.0.0.1:$CH1_HTTP/footfall
export FOOTFALL_TEST_CLICKHOUSE_SHARD2_URL=clickhouse+http://127.0.0.1:$CH2_HTTP/footfall
export FOOTFALL_TEST_CLICKHOUSE_CLUSTER=footfall_cluster
ENV
}

stop() {
  local bin; bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -f "$DIR/pg/data/postmaster.pid" ] && as_pg "$bin/pg_ctl" -D "$DIR/pg/data" -m fast stop >/dev/null || true
  local pids=() f pid
  for f in "$DIR/redis/pid" "$DIR/ch1/pid" "$DIR/ch2/pid"; do
    if [ -f "$f" ]; then
      pid=$(cat "$f")
      kill "$pid" 2>/dev/null && pids+=("$pid")
    fi
    rm -f "$f"
  done
  # Wait (up to 20 s) until they are gone, so the caller may delete $DIR or start again on the same ports.
  for _ in $(seq 1 100); do
    local alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && return 0
    sleep 0.2
  done
  echo "services: some servers did not stop: ${pids[*]}" >&2
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  missing) missing ;;
  *) echo "usage: $0 install|start|stop|missing" >&2; exit 2 ;;
esac
