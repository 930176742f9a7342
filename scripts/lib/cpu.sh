# CPU accounting for the benchmark scripts, from /proc: what each process used while a scenario ran.
#   before=$(cpu_sample <server pid> <simulator pid>); ...run...; cpu_report "$before" "$(cpu_sample ...)"
# Cores = CPU seconds / wall seconds, so on this 2-core machine the parts add up to at most 2.

# utime + stime ticks of the given processes, summed (a process gone since is counted as 0). One awk for all of
# them, so that a sample is taken at once while the machine is busy (a process gone meanwhile is skipped).
cpu_ticks() {
  local files=() pid
  for pid in "$@"; do
    [ -r "/proc/$pid/stat" ] && files+=("/proc/$pid/stat")
  done
  [ ${#files[@]} -eq 0 ] && { echo 0; return; }
  { cat "${files[@]}" 2>/dev/null || true; } | awk '{ rp = 0; for (i = length($0); i > 0; i--) if (substr($0, i, 1) == ")") { rp = i; break }
         split(substr($0, rp + 2), f, " "); total += f[12] + f[13] }
       END { print total + 0 }'
}

# Pids whose command name is $1 (PostgreSQL backends, redis-server).
pids_named() {
  grep -s -l -x -F "$1" /proc/[0-9]*/comm | cut -d/ -f3
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

# "<group> <ticks>" for every thread of a process, the group being the thread's name without its trailing numbers
# ("dw-41" and "dw-42" are "dw"; names are cut to 15 characters by the kernel, so "callbacks.record-writer-1" is
# "callbacks.recor"). Virtual threads (the send jobs) count on their carriers, "ForkJoinPool". One awk over every
# thread's stat, so that the sample is taken at once, not a thread at a time.
thread_ticks() {
  { cat /proc/"$1"/task/*/stat 2>/dev/null || true; } | awk '{
    lp = index($0, "("); rp = 0
    for (i = length($0); i > 0; i--) if (substr($0, i, 1) == ")") { rp = i; break }
    name = substr($0, lp + 1, rp - lp - 1)
    split(substr($0, rp + 2), f, " ")
    sub(/[-#][0-9-]*$/, "", name); gsub(/ /, "_", name)
    print name, f[12] + f[13]
  }'
}

# The CPU seconds each thread group used between two thread_ticks samples, most first (threads that ended between
# the samples are not counted).
thread_report() {
  awk -v hz="$(getconf CLK_TCK)" -v label="$3" '
    FNR == NR { before[$1] += $2; next }
    { after[$1] += $2 }
    END {
      for (g in after) { d = (after[g] - before[g]) / hz; if (d > 0.05) print d, g }
    }' <(echo "$1") <(echo "$2") | sort -rn | head -14 \
    | awk -v label="$3" '{ s = s (NR > 1 ? ", " : "") $2 " " sprintf("%.1f", $1) } END { print label " CPU s by thread: " s }'
}
