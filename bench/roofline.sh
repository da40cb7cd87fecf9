#!/bin/sh
# The machine's limit against the relax sweeps (issue 34, item 1):
#
#   bench/roofline.sh [--no-counters] [OPTION...] [SCENE...]
#
# builds bench/roofline (`make bench') and runs it (OPTIONs and SCENEs go
# to it, bench/roofline --help; default scenes ballgrid-24 ballgrid-40),
# then counts per contact-sweep of the rigid 3-row kernel on the same
# scenes, as the difference of a solve of 20 sweeps and one of 10 (so that
# building the problem cancels out): cycles, instructions and cache misses
# from `perf stat' (Debian's linux-perf) where the machine gives hardware
# counters, else instructions and simulated D1 and last-level misses from
# `valgrind --tool=cachegrind' with the last-level cache sysfs reports (a
# VM's CPUID often reports another).
set -eu
. "$(dirname "$0")/env.sh"
counters=yes
if [ "${1:-}" = --no-counters ]; then
	counters=no
	shift
fi
"$build/bench/roofline" "$@"
[ "$counters" = yes ] || exit 0
scenes=""
for arg in "$@"; do
	case "$arg" in
	ballgrid-* | grid-*) scenes="$scenes $arg" ;;
	esac
done
[ -n "$scenes" ] || scenes="ballgrid-24 ballgrid-40"
run="$build/libtool --mode=execute"
prog="$build/bench/roofline --solve-only --variant rigid3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the last-level cache from sysfs: KiB and a set count that is a power of
# two for cachegrind (it asks for one), with the first associativity
# that gives one
llc_kib=0
for d in /sys/devices/system/cpu/cpu0/cache/index*; do
	[ "$(cat "$d/type" 2> /dev/null)" != Instruction ] || continue
	s=$(sed 's/K$//' "$d/size" 2> /dev/null || echo 0)
	[ "$s" -le "$llc_kib" ] 2> /dev/null || llc_kib=$s
done
ll_option=""
for assoc in 16 12 24 20 11 8 32; do
	ll_option=$(awk -v k="$llc_kib" -v a="$assoc" 'BEGIN {
		s = k * 1024 / 64 / a
		if (s < 1 || s != int(s)) exit
		while (s > 1 && s % 2 == 0) s /= 2
		if (s == 1) printf "--LL=%d,%d,64", k * 1024, a
	}')
	[ -z "$ll_option" ] || break
done

perf_ok=no
if command -v perf > /dev/null &&
	perf stat -x, -e cycles,instructions true 2> "$tmp/probe" > /dev/null &&
	! grep -q 'not supported\|not counted' "$tmp/probe"; then
	perf_ok=yes
fi
echo
if [ "$perf_ok" = yes ]; then
	echo "counters: perf stat, per contact-sweep of rigid3 (20 sweeps - 10 sweeps)"
	printf '%-12s %8s %10s %10s %10s %10s\n' scene contacts cycles \
		instr cache-miss LLC-load-miss
elif command -v valgrind > /dev/null; then
	echo "counters: perf stat gives no hardware counters here ($(grep -m1 -o 'not supported\|not counted' "$tmp/probe" 2> /dev/null || echo 'no perf; Debian: apt-get install linux-perf')): cachegrind instead, ${ll_option:-its own LL}, per contact-sweep of rigid3 (20 sweeps - 10 sweeps)"
	printf '%-12s %8s %10s %10s %10s\n' scene contacts instr D1-miss LL-miss
else
	echo "counters: neither perf stat's hardware counters nor valgrind (Debian: apt-get install linux-perf valgrind)"
	exit 0
fi
for scene in $scenes; do
	for s in 10 20; do
		if [ "$perf_ok" = yes ]; then
			$run perf stat -x, -o "$tmp/c$s" \
				-e cycles,instructions,cache-misses,LLC-load-misses \
				$prog --sweeps "$s" "$scene" > "$tmp/out$s"
			# cycles:u and the like (user space only under
			# perf_event_paranoid 2) count as cycles
			awk -F, '$3 != "" { e = $3; sub(/:.*/, "", e); print e, $1 }' \
				"$tmp/c$s" > "$tmp/v$s"
		else
			# shellcheck disable=SC2086
			$run valgrind --tool=cachegrind --cache-sim=yes $ll_option \
				--cachegrind-out-file=/dev/null \
				$prog --sweeps "$s" "$scene" > "$tmp/out$s" 2> "$tmp/c$s"
			tr -d , < "$tmp/c$s" | awk '
				/ I +refs:/ { print "instr", $4 }
				/ D1 +misses:/ { print "d1", $4 }
				/ LLd +misses:/ { print "ll", $4 }' > "$tmp/v$s"
		fi
	done
	n=$(awk -v s="$scene" '$1 == s { print $5 }' "$tmp/out10")
	awk -v scene="$scene" -v n="$n" -v perf="$perf_ok" '
		FNR == NR { a[$1] = $2; next }
		{ b[$1] = $2 }
		function per(k,  v) {
			v = (b[k] - a[k]) / (10 * n)
			return v > -0.005 && v < 0.005 ? 0 : v
		}
		END {
			if (perf == "yes")
				printf "%-12s %8d %10.1f %10.1f %10.2f %10.2f\n", scene, n,
				       per("cycles"), per("instructions"),
				       per("cache-misses"), per("LLC-load-misses")
			else
				printf "%-12s %8d %10.1f %10.2f %10.2f\n", scene, n,
				       per("instr"), per("d1"), per("ll")
		}' "$tmp/v10" "$tmp/v20"
done
