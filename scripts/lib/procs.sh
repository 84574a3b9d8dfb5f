# Sourced by the scripts that run servers and tools as processes (lb.sh, scaleout.sh and
# the bench*.sh scripts). The sourcing script defines `die MESSAGE` (and, for
# `wait_ready`, the associative array `pids` and the log directory `out`).

# need BINARY PACKAGE: print BINARY's path (on the PATH or in /usr/sbin), installing the
# Debian PACKAGE first when it is missing.
need() {
  local bin=$1 package=$2 found
  found=$(command -v "$bin" || true)
  if [ -z "$found" ] && [ -x "/usr/sbin/$bin" ]; then found=/usr/sbin/$bin; fi
  if [ -z "$found" ]; then
    printf '== installing %s (Debian package)\n' "$package" >&2
    local as_root=()
    if [ "$(id -u)" -ne 0 ]; then as_root=(sudo); fi
    export DEBIAN_FRONTEND=noninteractive
    if ! "${as_root[@]}" apt-get install -y -qq "$package" >/dev/null 2>&1; then
      "${as_root[@]}" apt-get update -qq >/dev/null
      # A post-install step that cannot start the system service (no init in a container)
      # must not stop us: only the binary is needed.
      "${as_root[@]}" apt-get install -y -qq "$package" >/dev/null || true
    fi
    found=$(command -v "$bin" || echo "/usr/sbin/$bin")
    [ -x "$found" ] || die "$package did not install"
  fi
  echo "$found"
}

# stop_processes PID...: stop each process given (empty arguments are skipped) and reap it;
# the cleanup of every script that starts servers.
stop_processes() {
  local pid
  for pid in "$@"; do
    [[ -n "$pid" ]] || continue
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
}

# listening PORT: whether something accepts connections on 127.0.0.1:PORT.
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# free_port VAR: set VAR to a loopback port nothing listens on and no earlier call handed
# out. (It assigns instead of printing, because $(free_port) would run in a subshell and
# forget the ports it handed out.)
taken_ports=" "
free_port() {
  # Names of their own, so that the caller's VAR (say `port`) is not shadowed.
  local free_port_try free_port_n
  for free_port_n in $(seq 1 200); do
    # Below Linux's ephemeral range (32768 and up by default), where the load's own client
    # connections take their local ports: a port free now could be taken by one of them
    # before the server binds it.
    free_port_try=$((20000 + RANDOM % 12000))
    if [[ $taken_ports != *" $free_port_try "* ]] && ! listening "$free_port_try"; then
      taken_ports+="$free_port_try "
      printf -v "$1" '%s' "$free_port_try"
      return
    fi
  done
  die "no free loopback port"
}

# wait_for_port PORT PID: until PORT accepts connections, while PID lives (30 s at most).
wait_for_port() {
  local port=$1 pid=$2 tries=0
  while ! listening "$port"; do
    kill -0 "$pid" 2>/dev/null || return 1
    tries=$((tries + 1))
    ((tries < 600)) || return 1
    sleep 0.05
  done
}

# wait_ready NAME PORT: until the process pids[NAME] listens on PORT (10 s at most).
wait_ready() {
  local name=$1 port=$2 _
  for _ in $(seq 1 200); do
    kill -0 "${pids[$name]}" 2>/dev/null || die "$name exited while starting (see $out)"
    if listening "$port"; then return 0; fi
    sleep 0.05
  done
  die "$name does not listen on $port after 10 s"
}

# stop_all_on_exit [DIR]: on exit, stop every process in `pids` (SIGTERM, then wait) and
# remove DIR.
stop_all_on_exit() {
  cleanup_dir=${1:-}
  trap stop_all EXIT
  trap 'exit 130' INT TERM
}
stop_all() {
  local status=$?
  local name
  for name in "${!pids[@]}"; do kill -TERM "${pids[$name]}" 2>/dev/null || true; done
  for name in "${!pids[@]}"; do wait "${pids[$name]}" 2>/dev/null || true; done
  if [ -n "$cleanup_dir" ]; then rm -rf "$cleanup_dir"; fi
  exit "$status"
}
