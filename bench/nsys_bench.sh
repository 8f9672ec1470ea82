#!/usr/bin/env bash
# Benchmark the Nsight Systems importer against SQLite's own scan speed.
#
#   bench/nsys_bench.sh [--rows N] [--runs N] [--build DIR] [--data DIR]
#
# Generates (or reuses) bench/data/nsys_<N>.sqlite: a synthetic export in the
# nsys 2024.6 schema with N kernels, N runtime calls (launches, with
# correlation ids), N/10 NVTX ranges and N/100 copies, then times, best of
# --runs runs each, with the file in the page cache:
#
#   S: sqlite3 FILE "SELECT <the columns tracelint reads> FROM
#        CUPTI_ACTIVITY_KIND_KERNEL; ... FROM CUPTI_ACTIVITY_KIND_RUNTIME"
#      (the bare SELECTs, output to /dev/null)
#   A: sqlite3 FILE "SELECT total(...) ..." over the same columns: the scan
#      without the shell's text output, the floor for any reader
#   T: BUILD/cli/tracelint stats FILE --format json -o /dev/null
#      (the whole import, the model's invariants and the statistics)
#
# and prints the wall and CPU times, T/S and T/A, rows per second and
# tracelint's peak RSS.
# Needs the sqlite3 shell (Debian package sqlite3).
set -euo pipefail
export LC_ALL=C

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$script_dir/.." && pwd)

rows=1000000
runs=3
build="$root/build"
data="$script_dir/data"

while [ $# -gt 0 ]; do
  case "$1" in
    --rows) rows=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    -h|--help) sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "nsys_bench: error: unknown option $1" >&2; exit 2 ;;
  esac
done

tracelint="$build/cli/tracelint"
[ -x "$tracelint" ] || { echo "nsys_bench: error: no $tracelint; build first" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "nsys_bench: error: sqlite3 not found (apt-get install sqlite3)" >&2; exit 1; }
mkdir -p "$data"
file="$data/nsys_${rows}.sqlite"

generate() {
  local tmp="$file.tmp"
  rm -f "$tmp"
  echo "nsys_bench: generating $file ($rows kernels and runtime calls)" >&2
  sqlite3 "$tmp" >/dev/null <<EOF
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA page_size = 4096;
BEGIN;
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION', '2024.6.2.25'),
  ('EXPORT_SCHEMA_VERSION', '3.16.1');
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000, '', '');
CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, totalMemory INTEGER, smCount INTEGER,
  computeMajor INTEGER, computeMinor INTEGER, threadsPerWarp INTEGER, maxWarpsPerSm INTEGER);
INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H100 80GB HBM3', 85029158912, 132, 9, 0, 32, 64);
-- Names: 3 runtime calls, 60 kernels with long demangled names.
INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'cudaMemcpyAsync_v3020'),
  (3, 'cudaEventRecord_v3020');
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 59)
INSERT INTO StringIds SELECT 100 + i,
  'void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<at::native::AddFunctor<float>>(at::TensorIteratorBase &, const at::native::AddFunctor<float> &)::{lambda(int)#1}>(int, T3)_' || i
  FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 59)
INSERT INTO StringIds SELECT 200 + i, 'elementwise_kernel_' || i FROM k;
INSERT INTO StringIds VALUES (300, 'train_step'), (301, 'forward');
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,
  nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
  launchType INTEGER NOT NULL, cacheConfig INTEGER NOT NULL,
  registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,
  gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
  blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL,
  dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL,
  localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,
  sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER,
  srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER,
  dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER,
  graphNodeId INTEGER, virtualAddress INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER,
  int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER,
  floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
-- One process (pid 4242), the main thread launches; every 2 us a launch
-- (800 ns) whose kernel runs 1 us after it for 700 ns on one of 4 streams.
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $rows - 1)
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME
  SELECT i * 2000, i * 2000 + 800, 0, 281546145665170, i + 1, 1, 0, NULL FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $rows - 1)
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL
  SELECT i * 2000 + 1000, i * 2000 + 1700 + (i % 7) * 10, 0, 1, 0, 7 + (i % 4), i + 1,
    281546145660928, 100 + (i % 60), 200 + (i % 60), NULL, 1, 0, 32 + (i % 64),
    1 + (i % 1024), 1, 1, 128, 1, 1, 0, (i % 8) * 1024, 0, 0, i, 65536, NULL, 0
  FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $rows / 100 - 1)
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY
  SELECT i * 200000 + 1500, i * 200000 + 1900, 0, 1, 0, 7, NULL, 281546145660928,
    65536, 1, NULL, 1, 2, NULL, NULL, NULL, NULL, NULL, NULL, NULL
  FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $rows / 10 - 1)
INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, textId, domainId)
  SELECT i * 20000, i * 20000 + 19000, 59, 281546145665170, 300, 0 FROM n;
COMMIT;
EOF
  mv "$tmp" "$file"
}

[ -f "$file" ] || generate
bytes=$(stat -c %s "$file")

kernel_cols="start, end, deviceId, streamId, correlationId, globalPid, demangledName, shortName, gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread, staticSharedMemory, dynamicSharedMemory"
runtime_cols="start, end, eventClass, globalTid, correlationId, nameId"
select_sql="SELECT $kernel_cols FROM CUPTI_ACTIVITY_KIND_KERNEL; SELECT $runtime_cols FROM CUPTI_ACTIVITY_KIND_RUNTIME;"
sum_of() { local IFS=,; local out=""; for c in $1; do out="$out${out:+, }total($c)"; done; echo "$out"; }
agg_sql="SELECT $(sum_of "$kernel_cols") FROM CUPTI_ACTIVITY_KIND_KERNEL; SELECT $(sum_of "$runtime_cols") FROM CUPTI_ACTIVITY_KIND_RUNTIME;"
uri="file:$file?immutable=1"

# best_of CMD...: "WALL CPU", the shortest wall time and the shortest CPU
# time (user + system) of $runs runs, in seconds. On a shared machine the CPU
# time is the steadier of the two.
best_of() {
  local best="" cpu_best="" t0 t1 dt cpu
  for _ in $(seq "$runs"); do
    t0=$EPOCHREALTIME
    /usr/bin/time -o "$timing" -f '%U %S' "$@" >/dev/null 2>&1
    cpu=$(tail -1 "$timing" | awk '{print $1 + $2}')
    t1=$EPOCHREALTIME
    dt=$(echo "$t1 - $t0" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$dt < $best" | bc -l)" = 1 ]; then best=$dt; fi
    if [ -z "$cpu_best" ] || [ "$(echo "$cpu < $cpu_best" | bc -l)" = 1 ]; then cpu_best=$cpu; fi
  done
  printf '%.3f %.3f' "$best" "$cpu_best"
}

timing=$(mktemp)
trap 'rm -f "$timing"' EXIT
cat "$file" >/dev/null # into the page cache
read -r s s_cpu <<<"$(best_of sqlite3 "$uri" "$select_sql")"
read -r a a_cpu <<<"$(best_of sqlite3 "$uri" "$agg_sql")"
read -r t t_cpu <<<"$(best_of "$tracelint" stats "$file" --format json -o /dev/null)"
rss=$( { /usr/bin/time -f '%M' "$tracelint" stats "$file" --format json -o /dev/null; } 2>&1 >/dev/null | tail -1)

total_rows=$(( rows * 2 + rows / 10 + rows / 100 ))
ratio() { printf '%.2f' "$(echo "$1 / $2" | bc -l)"; }
echo "wall time, best of $runs (CPU time user+system in parentheses):"
printf '| export | rows | sqlite3 SELECT (S) | sqlite3 total() scan (A) | tracelint stats (T) | T/S | T/A | T/A (CPU) | tracelint rows/s | peak RSS |\n'
printf '|---|---|---|---|---|---|---|---|---|---|\n'
printf '| %s (%.0f MB) | %d | %s s (%s) | %s s (%s) | %s s (%s) | %s | %s | %s | %.1f M | %.0f MB |\n' \
  "$(basename "$file")" "$(echo "$bytes / 1000000" | bc -l)" "$total_rows" \
  "$s" "$s_cpu" "$a" "$a_cpu" "$t" "$t_cpu" \
  "$(ratio "$t" "$s")" "$(ratio "$t" "$a")" "$(ratio "$t_cpu" "$a_cpu")" \
  "$(echo "$total_rows / $t / 1000000" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
