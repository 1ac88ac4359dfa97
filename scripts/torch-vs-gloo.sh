#!/usr/bin/env bash
# railyard's torch.distributed backend side by side with gloo, in one run, on
# the emulated hosts of scripts/netns-rails.sh (root only; 4 rails shaped to
# --rate): the same program (bench/torch/torch_bench.py) with each backend,
# gloo given every rail in GLOO_SOCKET_IFNAME, and railyard-bench's own
# allreduce beside them (the backend's cost over the library), rounds
# interleaved. Writes each round's CSV, one combined CSV and PNG per
# operation, and bench-table.py's tables (ratios over the rounds) on stdout.
#
#   torch-vs-gloo.sh [--layout 2x1|2x2] [--operations all_reduce,all_gather,reduce_scatter,all_to_all]
#       [--min 8] [--max 256M] [--factor 4] [--rounds 5] [--seconds 0.5] [--rate 1gbit]
#       [--ddp] [--steps 10] [--out DIR] [--build DIR]
#
# gloo in torch 1.13 has no reduce_scatter: that table is railyard's alone.
# --ddp times DistributedDataParallel steps of a 25 M-parameter MLP on a batch
# of one instead, plotted round by round (scripts/plot-ddp.py).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
layout=2x1 operations=all_reduce,all_gather,reduce_scatter,all_to_all min=8 max=256M factor=4
rounds=5 seconds=0.5 rate=1gbit ddp=0 steps=10 out= build=$root/build/release inside=0
while (($#)); do
  case "$1" in
    --layout) layout=${2:-}; shift 2 ;;
    --operations) operations=${2:-}; shift 2 ;;
    --min) min=${2:-}; shift 2 ;;
    --max) max=${2:-}; shift 2 ;;
    --factor) factor=${2:-}; shift 2 ;;
    --rounds) rounds=${2:-}; shift 2 ;;
    --seconds) seconds=${2:-}; shift 2 ;;
    --rate) rate=${2:-}; shift 2 ;;
    --ddp) ddp=1; shift ;;
    --steps) steps=${2:-}; shift 2 ;;
    --out) out=${2:-}; shift 2 ;;
    --build) build=${2:-}; shift 2 ;;
    --inside) inside=1; shift ;;
    *) echo "torch-vs-gloo.sh: unknown argument '$1' (see the header for usage)" >&2; exit 2 ;;
  esac
done
case "$layout" in
  2x1 | 2x2) ;;
  *) echo "torch-vs-gloo.sh: --layout '$layout': expected 2x1 or 2x2" >&2; exit 2 ;;
esac
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "torch-vs-gloo.sh: --rounds '$rounds': expected a count" >&2; exit 2; }
python=${RAILYARD_PYTHON:-/usr/bin/python3}
out=${out:-$root/build/torch-vs-gloo-$layout}
per_host=${layout#2x}
ranks=$((2 * per_host))

if ((!inside)); then
  if ((EUID != 0)); then
    echo "torch-vs-gloo.sh: needs root for the emulated hosts (network namespaces)" >&2
    exit 1
  fi
  [ -f "$build/python/railyard/torch.py" ] ||
    { echo "torch-vs-gloo.sh: no railyard package in $build/python: build first" >&2; exit 1; }
  mkdir -p "$out"
  rm -rf "$out/rounds"
  mkdir -p "$out/rounds"
  args=(--layout "$layout" --operations "$operations" --min "$min" --max "$max" --factor "$factor"
    --rounds "$rounds" --seconds "$seconds" --rate "$rate" --steps "$steps" --out "$out" --build "$build")
  ((ddp)) && args+=(--ddp)
  # Generous: every round runs each subject over every size.
  exec "$here/netns-rails.sh" --rails 4 --rate "$rate" --timeout $((rounds * 3600)) -- \
    "$0" --inside "${args[@]}"
fi

export PYTHONPATH=$build/python OMP_NUM_THREADS=1
master=${RAILYARD_RAILS_A%%,*}
spawn=("$python" "$root/tests/torch/spawn.py" --ranks "$ranks" --timeout 3000 --python "$python"
  --netns "$RAILYARD_NETNS_A,$RAILYARD_NETNS_B")
bench=("$root/bench/torch/torch_bench.py" --min "$min" --max "$max" --factor "$factor"
  --seconds "$seconds" --hosts 2)
# Each subject's runs, one CSV per round and operation: NAME-ROUND.csv.
run() {
  local name=$1 file=$2
  shift 2
  echo "torch-vs-gloo.sh: round $round: $name ${file##*/}" >&2
  MASTER_ADDR=$master "${spawn[@]}" "$@" >"$out/rounds/${file}.log" 2>&1 || {
    tail -20 "$out/rounds/${file}.log" >&2
    echo "torch-vs-gloo.sh: $name failed" >&2
    exit 1
  }
}
ops=(${operations//,/ })
((ddp)) && ops=(ddp)
for ((round = 1; round <= rounds; round++)); do
  for op in "${ops[@]}"; do
    mkdir -p "$out/rounds/$op"
    for subject in railyard gloo railyard-bench; do
      case "$subject:$op" in
        gloo:reduce_scatter | railyard-bench:all_gather | railyard-bench:reduce_scatter | \
          railyard-bench:all_to_all | railyard-bench:ddp) continue ;;
      esac
      csv=$out/rounds/$op/$subject-$round.csv
      if [ "$subject" = railyard-bench ]; then
        run "$subject" "$op/$subject-$round" --railyard-job "$build/bin/railyard-bench" allreduce \
          -b "$min" -e "$max" -f "$factor" -n 20 -w 3 -c 1 --csv "$csv" --label railyard-bench
      elif [ "$op" = ddp ]; then
        run "$subject" "$op/$subject-$round" "${bench[@]}" --backend "$subject" --ddp \
          --steps "$steps" --csv "$csv"
      else
        run "$subject" "$op/$subject-$round" "${bench[@]}" --backend "$subject" \
          --operations "$op" --csv "$csv"
      fi
    done
  done
done

line=$(awk -v r="$rate" 'BEGIN { n = r + 0; if (r ~ /gbit/) n *= 1000; printf "%d", 4 * n / 8 * 0.956 }')
status=0
for op in "${ops[@]}"; do
  combined=$out/$op-$layout.csv
  python3 "$here/combine-bench-rounds.py" -o "$combined" "$out/rounds/$op"/*.csv
  if [ "$op" = ddp ]; then
    python3 "$here/bench-table.py" --placement in-place --time average "$out/rounds/$op"/*.csv || status=1
    python3 "$here/plot-ddp.py" -o "$out/ddp-$layout.png" --line-rate-mbps "$line" \
      --title "DDP step time, 2 hosts x $per_host rank(s), 4 rails at $rate" \
      "$out/rounds/$op"/*.csv || status=1
    continue
  fi
  for time in average slowest; do
    python3 "$here/bench-table.py" --placement out-of-place --time "$time" \
      --line-rate-mbps "$line" "$out/rounds/$op"/*.csv || status=1
  done
  "$here/plot-busbw.py" -o "$out/$op-$layout.png" --line-rate "$(awk -v l="$line" 'BEGIN { printf "%.4f", l / 1000 }')" \
    --line-rate-title "rails' line rate (4 x $rate)" \
    --title "${op//_/ } (torch.distributed), 2 hosts x $per_host rank(s), 4 rails at $rate" \
    "$combined" || status=1
done
exit "$status"
