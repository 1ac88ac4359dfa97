#!/usr/bin/env bash
# railyard's collectives side by side with Open MPI 4.1's, in one run, for
# the same sizes and rank layout, measured by the same program
# (railyard-bench and railyard-bench-mpi), rounds interleaved; writes one CSV
# (the median time of the rounds per subject, size and placement), the PNG
# of busbw against size, and a summary of the ratios on stdout.
#
#   collectives-vs-openmpi.sh [--layout HOSTSxRANKS] [--operation allreduce]
#       [--min 64k] [--max 64M] [--factor 2] [--rounds 3] [--iters 20] [--rails 4]
#       [--rate 1gbit] [--reference-rounds N] [--out DIR] [--build DIR] [--shim]
#       [--setting NAME=VARIABLE=VALUE]... [--build-beside NAME=DIR]...
#
# Layouts: HOSTSxRANKS (ranks per host), e.g. 2x1, 2x2, 4x1, 1x4. From 2
# hosts (up to 8) they run on the emulated hosts of scripts/netns-rails.sh
# (root only; 4 rails shaped to --rate, a switch per rail from 3 hosts): railyard
# under mpirun through the netns agent (PMIx bootstrap, rails from each
# host's topology), Open MPI ob1 over TCP on every rail with its default
# collectives (tuned) and with coll/han forced (several ranks a host; for
# allreduce with one segment as large as --max: Open MPI 4.1.4's han
# allreduce crashes as soon as a vector spans two of its segments), and the parallel-TCP
# reference of the rails measured by railyard-mrail-bench in the same run.
# --reference-rounds (default: --rounds) sets that reference's rounds alone.
# The tables compare the ranks' average time and then the slowest rank's.
# 1xN runs N ranks on this machine: railyard under railyard-run (shared
# memory between ranks) against Open MPI over vader shared memory. Every
# Open MPI run is launched with --bind-to none: both emulated hosts are this
# machine, and bound ranks would share core 0; when the job has more ranks
# than the machine has cores (2x2 on 2 cores), Open MPI's ranks and
# railyard's are told to yield while they poll (mpi_yield_when_idle,
# RAILYARD_SPIN_YIELD=on), as each would on one host it knew was
# oversubscribed. --shim adds one more subject:
# the same MPI program as Open MPI's, with the railyard MPI shim preloaded
# (librailyard_mpi.so, docs/mpi.md), which hands it railyard's collectives
# where the shim's table carries them and Open MPI's elsewhere. --setting adds
# railyard once more as subject "railyard NAME", with the RAILYARD_* or FI_*
# VARIABLE set to VALUE in every rank (repeat a NAME to set several), so a
# setting is measured against the defaults in the same interleaved rounds.
# --build-beside adds railyard as built in DIR (another commit's build
# tree, e.g. a git worktree's) as subject "railyard NAME", launched as
# railyard is, so two versions of the library meet in the same rounds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

layout=2x1 operation=allreduce min=64k max=64M factor=2 rounds=3 iters=20 rails=4 rate=1gbit
reference_rounds=""
out=$root/build/collectives-vs-openmpi build=$root/build/release inside=0 shim=0
settings=() besides=() forwarded=()

usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}
fail_usage() {
  echo "collectives-vs-openmpi.sh: $*" >&2
  exit 2
}
while (($#)); do
  case "$1" in
    --layout) layout=${2:-}; shift 2 ;;
    --operation) operation=${2:-}; shift 2 ;;
    --min) min=${2:-}; shift 2 ;;
    --max) max=${2:-}; shift 2 ;;
    --factor) factor=${2:-}; shift 2 ;;
    --rounds) rounds=${2:-}; shift 2 ;;
    --iters) iters=${2:-}; shift 2 ;;
    --rails) rails=${2:-}; shift 2 ;;
    --rate) rate=${2:-}; shift 2 ;;
    --reference-rounds) reference_rounds=${2:-}; shift 2 ;;
    --out) out=${2:-}; shift 2 ;;
    --build) build=${2:-}; shift 2 ;;
    --inside) inside=1; shift ;;
    --shim) shim=1; forwarded+=(--shim); shift ;;
    --setting) settings+=("${2:-}"); shift 2 ;;
    --build-beside) besides+=("${2:-}"); shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) fail_usage "unknown argument '$1' (see --help)" ;;
  esac
done
[[ "$layout" =~ ^[1-8]x[1-8]$ && "$layout" != 1x1 ]] ||
  fail_usage "--layout '$layout' is invalid: expected HOSTSxRANKS, 1 to 8 hosts and 1 to 8 ranks a host (not 1x1), e.g. 2x1, 4x2 or 1x4"
[[ "$rounds" =~ ^[1-9][0-9]?$ ]] || fail_usage "--rounds '$rounds' is invalid: expected 1 to 99"
reference_rounds=${reference_rounds:-$rounds}
[[ "$reference_rounds" =~ ^[1-9][0-9]?$ ]] ||
  fail_usage "--reference-rounds '$reference_rounds' is invalid: expected 1 to 99"
[[ "$factor" =~ ^([2-9]|1[0-6])$ ]] || fail_usage "--factor '$factor' is invalid: expected 2 to 16"
[[ "$iters" =~ ^[1-9][0-9]{0,5}$ ]] || fail_usage "--iters '$iters' is invalid: expected 1 to 999999"
# NAME=VARIABLE=VALUE each; the names in order of first appearance.
setting_names=()
for setting in "${settings[@]}"; do
  [[ "$setting" =~ ^([A-Za-z0-9_.-]+)=((RAILYARD|FI)_[A-Z0-9_]+)=(.*)$ ]] ||
    fail_usage "--setting '$setting' is invalid: expected NAME=VARIABLE=VALUE with a RAILYARD_* or FI_* variable"
  name=${BASH_REMATCH[1]}
  [[ " ${setting_names[*]} " == *" $name "* ]] || setting_names+=("$name")
  forwarded+=(--setting "$setting")
done
# NAME=DIR each: railyard-bench of another build tree.
beside_names=() beside_benches=()
for beside in "${besides[@]}"; do
  [[ "$beside" =~ ^([A-Za-z0-9_.-]+)=(.+)$ ]] ||
    fail_usage "--build-beside '$beside' is invalid: expected NAME=DIR (a build tree)"
  name=${BASH_REMATCH[1]} beside_dir=$(cd "${BASH_REMATCH[2]}" 2>/dev/null && pwd) ||
    fail_usage "--build-beside '$beside': ${BASH_REMATCH[2]} is not a directory"
  [ -x "$beside_dir/bin/railyard-bench" ] ||
    fail_usage "--build-beside '$beside': $beside_dir/bin/railyard-bench is missing (build railyard-bench there)"
  [[ " ${setting_names[*]} ${beside_names[*]} " != *" $name "* ]] ||
    fail_usage "--build-beside '$beside': subject name '$name' is already taken"
  beside_names+=("$name") beside_benches+=("$beside_dir/bin/railyard-bench")
  forwarded+=(--build-beside "$name=$beside_dir")
done
bench=$build/bin/railyard-bench
bench_mpi=$build/bin/railyard-bench-mpi
for program in "$bench" "$bench_mpi" "$build/bin/railyard-mrail-bench" "$build/bin/railyard-run"; do
  [ -x "$program" ] || fail_usage "$program is missing: build first (cmake --build --preset release)"
done
shim_library=$build/lib/librailyard_mpi.so
if ((shim)); then
  [ -f "$shim_library" ] || fail_usage "$shim_library is missing: build first"
fi
# A size as railyard-bench takes it (k, m, g: binary multiples) in bytes.
bytes_of() {
  local size=${1,,} factor=1
  case "$size" in
    *k) factor=1024 ;;
    *m) factor=$((1024 * 1024)) ;;
    *g) factor=$((1024 * 1024 * 1024)) ;;
  esac
  echo $((${size%[kmg]} * factor))
}
[[ "${max,,}" =~ ^[0-9]+[kmg]?$ ]] || fail_usage "--max '$max' is invalid: expected a byte count with an optional k, m or g"
hosts=${layout%x*} per_host=${layout#*x}
ranks=$((hosts * per_host))
sweep=("$operation" -b "$min" -e "$max" -f "$factor" -n "$iters" -w 5 -c 1)

if ((hosts >= 2 && inside == 0)); then
  if ((EUID != 0)); then
    echo "collectives-vs-openmpi.sh: layout $layout needs root (network namespaces)" >&2
    exit 77
  fi
  mkdir -p "$out"
  # Bounded: netns-rails.sh stops everything and removes the namespaces.
  exec "$here/netns-rails.sh" --hosts "$hosts" --rails "$rails" --rate "$rate" --timeout 3000 -- \
    "$0" --inside --layout "$layout" --operation "$operation" --min "$min" --max "$max" --factor "$factor" \
    --rounds "$rounds" --iters "$iters" --rails "$rails" --rate "$rate" \
    --reference-rounds "$reference_rounds" --out "$out" --build "$build" \
    "${forwarded[@]}"
fi
mkdir -p "$out/rounds"
rm -f "$out"/rounds/*.csv
launches=$out/launches.txt
: >"$launches"

# Runs one subject for one round: label, then the command.
run_subject() {
  local label=$1 round=$2
  shift 2
  local file
  file="$out/rounds/$(echo "$label" | tr -c 'A-Za-z0-9\n' '_')-$round.csv"
  if ((round == 1)); then
    printf '%s: %s\n' "$label" "$*" >>"$launches"
  fi
  echo "collectives-vs-openmpi.sh: round $round: $label" >&2
  if ! timeout -k 5 900 "$@" --csv "$file" --label "$label" >"$file.log" 2>&1; then
    echo "collectives-vs-openmpi.sh: $label failed in round $round (its output: $file.log)" >&2
    tail -5 "$file.log" >&2
    rm -f "$file"
  fi
}

reference_mbps=""
railyard_yield=()
if ((hosts >= 2)); then
  agent=$here/mpirun-netns-agent.sh
  host_list="" letters=(a b c d e f g h)
  for ((i = 0; i < hosts; i++)); do
    host_list+="${host_list:+,}host${letters[i]}:$per_host"
  done
  subnets=$RAILYARD_RAIL_SUBNETS first_subnet=${RAILYARD_RAIL_SUBNETS%%,*}
  mpirun_netns=(ip netns exec "$RAILYARD_NETNS_A" mpirun --allow-run-as-root
    --host "$host_list" -np "$ranks" --bind-to none
    --mca plm_rsh_agent "$agent" --mca oob_tcp_if_include "$first_subnet")
  btl=tcp,self
  ((per_host > 1)) && btl=tcp,vader,self
  openmpi=("${mpirun_netns[@]}" --mca pml ob1 --mca btl "$btl" --mca btl_tcp_if_include "$subnets")
  # Both emulated hosts are this machine: with more ranks than cores, Open
  # MPI's ranks must yield while they poll, as railyard's do (each host's
  # daemon sees its own slots and would not know); else every small
  # collective waits for scheduler ticks (4-8 ms at 2x2 on 2 cores).
  # railyard's ranks count the cores per emulated host too: they are told.
  if ((ranks > $(nproc))); then
    openmpi+=(--mca mpi_yield_when_idle 1)
    railyard_yield=(-x RAILYARD_SPIN_YIELD=on)
  fi
  echo "collectives-vs-openmpi.sh: the rails' parallel-TCP reference (railyard-mrail-bench)" >&2
  "$build/bin/railyard-mrail-bench" --compare parallel --policies fixed --sizes 16m \
    --rounds "$reference_rounds" --json "$out/reference.json" >"$out/reference.log" 2>&1 ||
    echo "collectives-vs-openmpi.sh: the reference failed (see $out/reference.log)" >&2
  reference_mbps=$(python3 -c "
import json, sys
for s in json.load(open(sys.argv[1]))['subjects']:
    if s['name'] == 'parallel' and s['results']:
        print(s['results'][-1]['bandwidth_MBps'])" "$out/reference.json" 2>/dev/null || true)
  printf 'reference: railyard-mrail-bench --compare parallel --policies fixed --sizes 16m --rounds %s (%s rails at %s)\n' \
    "$reference_rounds" "$rails" "$rate" >>"$launches"
  railyard_launch=("${mpirun_netns[@]}" "${railyard_yield[@]}")
  subjects=(railyard tuned han)
  # Open MPI 4.1.4's han allreduce ends with signal 11 (a bad buffer in the
  # intra-host reduce) once a vector spans more than one of its segments
  # (coll_han_allreduce_segsize, 64 KiB by default; measured at 2 x 2 with
  # 64 KiB, 1 MiB and both low modules): one segment of --max bytes keeps
  # its hierarchical algorithm, unpipelined, over the whole sweep.
  han_settings=()
  if [[ "$operation" == allreduce ]]; then
    # An int in Open MPI: vectors past 2 GiB keep segments of 2 GiB - 1.
    han_segment=$(bytes_of "$max")
    han_settings=(--mca coll_han_allreduce_segsize "$((han_segment < 2147483647 ? han_segment : 2147483647))")
  fi
  if ((per_host == 1)); then
    subjects=(railyard tuned)
  fi
else
  railyard_launch=("$build/bin/railyard-run" -n "$ranks" --timeout 800)
  # shellcheck disable=SC2054 # vader,self is one value of --mca btl
  openmpi=(mpirun --allow-run-as-root -np "$ranks" --oversubscribe --bind-to none --mca pml ob1
    --mca btl vader,self)
  subjects=(railyard vader)
fi
if ((shim)); then
  subjects+=(shim)
fi
for name in "${setting_names[@]}"; do
  subjects+=("setting:$name")
done
for index in "${!beside_names[@]}"; do
  subjects+=("beside:$index")
done

# The launch of railyard with setting NAME's variables: mpirun forwards
# them with -x, railyard-run's ranks inherit them.
railyard_with_setting() {
  local name=$1 setting variables=()
  for setting in "${settings[@]}"; do
    [[ "${setting%%=*}" == "$name" ]] && variables+=("${setting#*=}")
  done
  if ((hosts >= 2)); then
    local exported=() variable
    for variable in "${variables[@]}"; do
      exported+=(-x "$variable")
    done
    setting_launch=("${railyard_launch[@]}" "${exported[@]}")
  else
    setting_launch=(env "${variables[@]}" "${railyard_launch[@]}")
  fi
}
# The index of the subject measured k-th (from 0) in round `round` (from 1)
# of `rounds`, over `count` subjects: a row of a Williams design, as
# railyard-mrail-bench orders its rounds (bench/mrail_bench/round_order.h).
# Every subject comes at every point of a round, and right after every
# other subject, equally often over the design, where a plain rotation
# would give each subject the same predecessor in every round.
round_order_index() {
  local round=$1 rounds=$2 count=$3 k=$4 rows row first
  rows=$count
  ((count % 2 == 1 && count > 1)) && rows=$((2 * count))
  if ((rounds <= rows)); then row=$(((round - 1) * rows / rounds)); else row=$(((round - 1) % rows)); fi
  ((row >= count)) && k=$((count - 1 - k))
  if ((k % 2 == 1)); then first=$(((k + 1) / 2)); else first=$(((count - k / 2) % count)); fi
  echo $(((first + row % count) % count))
}
for ((round = 1; round <= rounds; round++)); do
  count=${#subjects[@]}
  for ((k = 0; k < count; k++)); do
    subject=${subjects[$(round_order_index "$round" "$rounds" "$count" "$k")]}
    case "$subject" in
      railyard) run_subject railyard "$round" "${railyard_launch[@]}" "$bench" "${sweep[@]}" ;;
      tuned) run_subject "Open MPI tuned" "$round" "${openmpi[@]}" "$bench_mpi" "${sweep[@]}" ;;
      han) run_subject "Open MPI han" "$round" "${openmpi[@]}" --mca coll_han_priority 100 \
        "${han_settings[@]}" \
        "$bench_mpi" "${sweep[@]}" ;;
      vader) run_subject "Open MPI vader" "$round" "${openmpi[@]}" "$bench_mpi" "${sweep[@]}" ;;
      shim) run_subject "Open MPI + railyard shim" "$round" "${openmpi[@]}" \
        "${railyard_yield[@]}" -x LD_PRELOAD="$shim_library" "$bench_mpi" "${sweep[@]}" ;;
      setting:*)
        railyard_with_setting "${subject#setting:}"
        run_subject "railyard ${subject#setting:}" "$round" "${setting_launch[@]}" "$bench" \
          "${sweep[@]}" ;;
      beside:*)
        index=${subject#beside:}
        run_subject "railyard ${beside_names[$index]}" "$round" "${railyard_launch[@]}" \
          "${beside_benches[$index]}" "${sweep[@]}" ;;
    esac
  done
done

csv=$out/$operation-$layout.csv
python3 "$here/combine-bench-rounds.py" -o "$csv" "$out"/rounds/*.csv
line_rate=()
if [ -n "$reference_mbps" ]; then
  line_rate=(--line-rate-mbps "$reference_mbps")
fi
status=0
placements=(out-of-place in-place)
case "$operation" in
  bcast | gather | scatter) placements=(out-of-place) ;; # no in-place form to compare
esac
for time in average slowest; do
  for placement in "${placements[@]}"; do
    python3 "$here/bench-table.py" --placement "$placement" --time "$time" "${line_rate[@]}" \
      "$out"/rounds/*.csv || status=1
  done
done
plot_line=()
if [ -n "$reference_mbps" ]; then
  plot_line=(--line-rate "$(awk -v r="$reference_mbps" 'BEGIN { printf "%.4f", r / 1000 }')"
    --line-rate-title "rails' line rate ($rails x $rate, parallel TCP)")
fi
"$here/plot-busbw.py" -o "$out/$operation-$layout.png" "${plot_line[@]}" \
  --title "$operation, $hosts host(s) x $per_host rank(s)${reference_mbps:+, $rails rails at $rate}" "$csv"
echo "# How each subject was launched:"
sed 's/^/#   /' "$launches"
exit "$status"
