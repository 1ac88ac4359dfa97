#!/usr/bin/env bash
# FI_OFI_MRAIL_ADDR values that make libfabric 1.17's ofi_mrail abort the
# process inside fi_getinfo (an entry after the first that it cannot
# convert): every tool and a job given one ends with railyard's error naming
# the variable, or runs, and never crashes.
#   mrail_address_typos.sh RAILYARD_RUN RAILYARD_INFO RAILYARD_BENCH
set -euo pipefail
run=$1 info=$2 bench=$3
failures=0
check() {
  local value=$1
  shift
  local status=0 err
  err=$(FI_OFI_MRAIL_ADDR=$value RAILYARD_SHM=off timeout 120 "$@" 2>&1 >/dev/null) || status=$?
  if ((status >= 124)) || grep -qiE "double free|aborted|core dumped|segmentation" <<<"$err"; then
    echo "FAILED: FI_OFI_MRAIL_ADDR='$value' $*: status $status" >&2
    tail -n 5 <<<"$err" >&2
    failures=$((failures + 1))
  elif ((status != 0)) && ! grep -q "FI_OFI_MRAIL_ADDR" <<<"$err"; then
    echo "FAILED: FI_OFI_MRAIL_ADDR='$value' $*: status $status without naming the variable" >&2
    tail -n 5 <<<"$err" >&2
    failures=$((failures + 1))
  else
    echo "ok: FI_OFI_MRAIL_ADDR='$value' $(basename "$1"): status $status"
  fi
}
for value in "lo,no_such_if0" "127.0.0.1,no_such_if0" "lo," "lo,,lo" "lo,127.0.0.1:5000" \
  "127.0.0.1,fi_sockaddr_in://bogus" "lo,LO"; do
  check "$value" "$info"
  check "$value" "$bench" barrier -n 1 -w 0
  check "$value" "$run" -n 2 --timeout 60 "$bench" barrier -n 1 -w 0
done
((failures == 0)) || { echo "$failures failure(s)" >&2; exit 1; }
echo "no tool or job crashed"
