#!/usr/bin/env bash
# Long fuzzing campaign: runs the named targets (default: all) one after another for
# SECONDS_PER_TARGET each, seeded from $IDMODEL_CORPUS/<fmt> and samples/, and appends
# libFuzzer's final statistics to fuzz/campaign.log.
#
#   IDMODEL_CORPUS=../shared/corpus SECONDS_PER_TARGET=600 fuzz/campaign.sh md3 md5mesh
#
# Built with -O --debug-assertions and without AddressSanitizer (-s none): the crates
# forbid `unsafe`, so the sanitizer finds nothing the debug assertions and the panic
# lints do not, at a large cost in executions per second. Inputs are capped at MAX_LEN
# bytes (-max_len, default 64 KiB; 8 KiB gives several times the executions per second,
# and libFuzzer truncates larger seeds to it); the mutation sweeps in tests/sweeps.rs
# cover the large corpus files whole. cli_info is seeded from every format.
#
# RUNS=N stops a target after N executions (libFuzzer's -runs; SECONDS_PER_TARGET stays
# the cap), and DEADLINE=<epoch seconds> shortens each run so the campaign ends by then
# (targets left with under 10 s are skipped). The log gives the seconds a run took
# (the fuzzer's, without a rebuild).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
secs="${SECONDS_PER_TARGET:-300}"
max_len="${MAX_LEN:-65536}"
corpus="${IDMODEL_CORPUS:-../../shared/corpus}"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
cargo +nightly fuzz build -O --debug-assertions -s none >/dev/null
for t in "${targets[@]}"; do
  case "$t" in mdl*) sub=mdl ;; md2*) sub=md2 ;; md3*) sub=md3 ;; md5*) sub=md5 ;; cli*) sub=. ;; *) sub="" ;; esac
  mkdir -p "corpus/$t" "artifacts/$t"
  seeds=(corpus/"$t" ../samples)
  [ -d "regressions/$t" ] && seeds+=("regressions/$t")
  if [ -n "$sub" ] && [ -d "$corpus/$sub" ]; then
    seeds+=("$corpus/$sub")
    [ -d "$corpus/malformed/$sub" ] && seeds+=("$corpus/malformed/$sub")
  fi
  run_secs="$secs"
  if [ -n "${DEADLINE:-}" ]; then
    left=$((DEADLINE - $(date +%s)))
    [ "$left" -lt "$run_secs" ] && run_secs="$left"
    if [ "$run_secs" -lt 10 ]; then
      echo "skipping $t: the deadline is near"
      continue
    fi
  fi
  runs=()
  [ -n "${RUNS:-}" ] && runs=(-runs="$RUNS")
  log="$(mktemp)"
  status=0
  # Rebuild now if a source changed since the first build, so the timing below is the
  # fuzzer's alone.
  cargo +nightly fuzz build -O --debug-assertions -s none "$t" >/dev/null
  start=$(date +%s)
  cargo +nightly fuzz run -O --debug-assertions -s none "$t" "${seeds[@]}" -- \
    -max_total_time="$run_secs" "${runs[@]}" -max_len="$max_len" -rss_limit_mb=512 -timeout=10 \
    -artifact_prefix="artifacts/$t/" -print_final_stats=1 >"$log" 2>&1 || status=$?
  took=$(($(date +%s) - start))
  execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
  echo "$(date -u +%Y-%m-%dT%H:%MZ) $t execs=${execs:-?} seconds=$took max_len=$max_len status=$status" | tee -a campaign.log
  if [ "$status" -ne 0 ]; then tail -n 40 "$log"; fi
  rm -f "$log"
done
