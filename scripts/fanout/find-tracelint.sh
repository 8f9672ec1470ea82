# shellcheck shell=bash
# Sourced by the fan-out scripts beside it (not run on its own).
#
# fanout_usage SCRIPT
#   prints SCRIPT's header comment (its --help)
# fanout_find_tracelint SCRIPT_DIR NAME
#   prints the tracelint binary to run when --tracelint is not given: the
#   build of the checkout SCRIPT_DIR is in (scripts/fanout/ ->
#   build/cli/tracelint), the installed tree it is in
#   (PREFIX/share/tracelint/fanout/ -> PREFIX/bin/tracelint), then
#   tracelint on PATH; else says so on standard error, as NAME, and fails.

fanout_usage() {
  sed -n '2,/^[^#]/{/^#/{s/^# \{0,1\}//;p;};}' "$1"
}

fanout_find_tracelint() {
  local dir=$1 name=$2 checkout prefix
  checkout=$(cd "$dir/../.." && pwd -P)
  checkout=${checkout%/}/build/cli/tracelint
  prefix=$(cd "$dir/../../.." && pwd -P)
  prefix=${prefix%/}/bin/tracelint
  if [ -f "$checkout" ] && [ -x "$checkout" ]; then
    echo "$checkout"
  elif [ -f "$prefix" ] && [ -x "$prefix" ]; then
    echo "$prefix"
  elif command -v tracelint >/dev/null 2>&1; then
    command -v tracelint
  else
    {
      echo "$name: cannot find tracelint: not built in this checkout ($checkout),"
      echo "not installed beside this script ($prefix) and not on PATH;"
      echo "build it (scripts/dev.sh build) or give --tracelint BIN"
    } >&2
    return 1
  fi
}
