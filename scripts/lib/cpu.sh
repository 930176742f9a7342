# CPU accounting for the benchmark scripts, from /proc: what each process used while a scenario ran.
#   before=$(cpu_sample <server pid> <simulator pid>); ...run...; cpu_report "$before" "$(cpu_sample ...)"
# Cores = CPU seconds / wall seconds, so on this 2-core machine the parts add up to at most 2.

# utime + stime ticks of the given processes, summed (a process gone since is counted as 0).
cpu_ticks() {
  local total=0 pid fields
  for pid in "$@"; do
    if [ -r "/proc/$pid/stat" ] && read -r -a fields < <(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null); then
      total=$((total + fields[11] + fields[12]))
    fi
  done
  echo "$total"
}

# Pids whose command name is $1 (PostgreSQL backends, redis-server).
pids_named() {
  local dir
  for dir in /proc/[0-9]*; do
    [ "$(cat "$dir/comm" 2>/dev/null)" = "$1" ] && echo "${dir#/proc/}"
  done
}

# cpu_sample <server pid> <simulator pid> [<callback process pid>]
# "<nanoseconds> <server> <simulator> <postgres> <busy machine ticks> <callback process>"
cpu_sample() {
  local busy
  busy=$(awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat)
  # shellcheck disable=SC2046
  echo "$(date +%s%N) $(cpu_ticks "$1") $(cpu_ticks "$2") $(cpu_ticks $(pids_named postgres)) $busy $(cpu_ticks ${3:-})"
}

# Prints the cores each part used between two samples. PostgreSQL counts the backends alive at both samples
# (the pools keep theirs for the whole run).
cpu_report() {
  local hz
  hz=$(getconf CLK_TCK)
  awk -v hz="$hz" -v cores="$(nproc)" -v a="$1" -v b="$2" 'BEGIN {
    split(a, x, " "); split(b, y, " ")
    s = (y[1] - x[1]) / 1e9
    server = (y[2] - x[2]) / hz / s; sim = (y[3] - x[3]) / hz / s; pg = (y[4] - x[4]) / hz / s
    busy = (y[5] - x[5]) / hz / s; callbacks = (y[6] - x[6]) / hz / s
    own = callbacks > 0 ? sprintf("callback process %.2f, ", callbacks) : ""
    printf "CPU over %.0f s, in cores of %d: sendlog server %.2f, %ssimulator %.2f, PostgreSQL %.2f, the rest (load generator, Redis, ...) %.2f, idle %.2f\n",
      s, cores, server, own, sim, pg, busy - server - callbacks - sim - pg, cores - busy
  }'
}
