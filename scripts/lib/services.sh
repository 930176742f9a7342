# Helpers for the benchmark scripts: start sendlog processes in the background and wait for them.
SENDLOG_JAR=service/target/sendlog.jar
# The tools (loadtest, simulator, chaos): they start servers from SENDLOG_JAR.
TOOLS_JAR=tools/target/sendlog-tools.jar
SENDLOG_PIDS=()
# Every logger at WARN in the benchmarks, the access log too (one line per request would weigh in the CPU figures).
export SENDLOG_ACCESS_LOG=WARN

sendlog_build() {
  ./mvnw -B -ntp -q -DskipTests install
}

# sendlog_start <log file> <command> <api port> <admin port> [extra -D options...]
# SENDLOG_NICE, when set, starts the process at that CPU priority (nice).
sendlog_start() {
  local log=$1 command=$2 port=$3 admin=$4
  shift 4
  ${SENDLOG_NICE:+nice -n "$SENDLOG_NICE"} "$JAVA_HOME/bin/java" -Djava.io.tmpdir="${SENDLOG_TMP:-target/tmp}" \
    -Ddw.server.applicationConnectors[0].port="$port" -Ddw.server.adminConnectors[0].port="$admin" \
    -Ddw.logging.level=WARN "$@" -jar "$SENDLOG_JAR" "$command" config.yml >"$log" 2>&1 &
  SENDLOG_PIDS+=($!)
  local deadline=$((SECONDS + 90))
  # Ready when the admin port answers: the health checks describe the whole pipeline, so an API-only process on a
  # database no poller has used yet is rightly unhealthy ("pollers") although it accepts messages.
  until curl -fs "http://127.0.0.1:$admin/ping" >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ] || ! kill -0 "${SENDLOG_PIDS[-1]}" 2>/dev/null; then
      echo "sendlog $command on :$port did not start; log: $log" >&2
      tail -30 "$log" >&2
      return 1
    fi
    sleep 0.5
  done
}

sendlog_stop_all() {
  local pid
  for pid in "${SENDLOG_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${SENDLOG_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  SENDLOG_PIDS=()
}
