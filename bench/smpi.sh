#!/bin/sh
# 1 to 1,024 ranks in simulation (issue 36, item 3; doc/mpi.md "1,024
# ranks in simulation"): mpi/proxima-smpi (configure --with-smpi) under
# SimGrid's smpirun on bench/platforms/fattree-1024-{100g,10g}.xml, the
# first step of a ball grid 8 balls high (the scene is written here:
# spacing 2, radius 1, every neighbour touching, on a ground box):
#
#   bench/smpi.sh weak|strong [PLATFORM [E...]]
#       (default: 100g, E = 1 5; PLATFORM 100g or 10g)
#
# weak    8 x 8 x 8 balls per rank (1,536 contacts), 1, 8, 64, 256 and
#         1,024 ranks (a grid of (8 sx) x (8 sy) x 8 balls, sx sy = P)
# strong  a 128 x 64 x 8 grid (65,536 balls) on 8, 64, 256 and 1,024 ranks
# ($PX_SMPI_RANKS overrides the rank counts.)
#
# Per rank count and E (local sweeps between exchanges; a global test
# every K = 10 exchanges), one markdown row from three runs of the first
# step: 50 sweeps exactly (merit delta, no tolerance: the global tests
# are the reduction alone) for the times, and the fc3d error down to E50
# (the quality of 50 sweeps on one rank of the same grid, `merit = fc3d`,
# a test every exchange, at most 2,000 sweeps) for the sweeps. Columns:
# the busiest rank's contacts; the simulated time per sweep (the slowest
# rank's solve time over its sweeps: local sweeps, exchanges and global
# tests), the same with computation free (a third run) and the model's
# network part, the model's time per sweep; rank 0's time per global
# test (its waits included); the simulated time of the
# step (rank 0's wall time of the one-step run: scene generation, the
# bisection, collisions, the part's build and the solve); the sweeps to
# E50; the parallel efficiency per sweep (weak: t(1)/t(P); strong: 8 t(8)
# / (P t(P)), against the row of the same E) and the model's. The model
# (doc/mpi.md "Cost to 1,000 ranks"), per sweep:
#   t(P) = t_c c + [2 L / E + B / bw + T / (E K)]
# a message's latency L = f h lat: h links (2 within a leaf switch of 32
# hosts, 4 across), f = 2 SMPI's default small-message latency factor
# (smpi/lat-factor: 2.0 below 257 bytes, 1.6 to 2.6 up to 15 kB); T the
# tree reduction's: a message per level up and one down, its levels
# under 32 within a leaf.
# t_c the time per contact-sweep of the first row (1 rank, or 8), c the
# busiest rank's contacts, lat and bw the platform's link latency and
# bandwidth, B the bytes the busiest rank sends per sweep (the
# report's traffic line); an exchange is two phases (the copies' changes to
# the owners, the totals back), each one message latency deep whatever the
# number of neighbours (the messages overlap). The bracket is the
# network's part, against the simulation with computation free
# (smpi/simulate-computation:no: "network us per sweep"); "with 1 rank's
# compute" is the efficiency with t_c c plus that simulated network time.
#
# Timing (doc/mpi.md): SMPI runs every rank's computation for real, one
# rank at a time on one core, and charges its measured thread CPU time at
# smpi/host-speed = the platform's 1 Gflop/s: one simulated core is one
# core of this machine, as its caches are with the machine's other load
# (printed). Communication is simulated (SMPI's network model on the fat
# tree). Run it under flock /tmp/proxima-bench.lock on a shared machine;
# 1,024 ranks take minutes and ~ 1 GiB.
set -eu
. "$(dirname "$0")/env.sh"
mode=${1:-}
case "$mode" in
weak) ranks=${PX_SMPI_RANKS:-"1 8 64 256 1024"} ;;
strong) ranks=${PX_SMPI_RANKS:-"8 64 256 1024"} ;;
*) echo "usage: $0 weak|strong [100g|10g [E...]]" >&2; exit 2 ;;
esac
net=${2:-100g}
case "$net" in
100g) bw=12.5e9 lat=1e-6 ;;
10g) bw=1.25e9 lat=2e-6 ;;
*) echo "$0: platform $net: 100g or 10g" >&2; exit 2 ;;
esac
shift $(($# < 2 ? $# : 2))
[ $# -gt 0 ] || set -- 1 5
platform="$top/bench/platforms/fattree-1024-$net.xml"
prog="$build/mpi/proxima-smpi"
[ -x "$prog" ] || { echo "$0: $prog is not built (configure --with-smpi; apt-get install libsimgrid-dev)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1
K=10
compute=yes
seq 0 1023 | sed 's/^/host-/' > "$tmp/hosts"

# grid NX NY: the scene file's path
grid() {
	f="$tmp/grid-$1x$2.ini"
	printf '[world]\ngravity = 0, 0, -9.81\ndt = 0.01\nmu = 0.5\nrestitution = 0\n\n[body ground]\nshape = box\nhalf = %d, %d, 1\nposition = %d, %d, -1\nstatic = true\n\n[grid balls]\nshape = sphere\nradius = 1\ncount = %d, %d, 8\norigin = 0, 0, 1\nspacing = 2, 2, 2\nmass = 1\n' \
		$(($1 + 2)) $(($2 + 2)) $(($1 - 1)) $(($2 - 1)) "$1" "$2" > "$f"
	echo "$f"
}
# sides P: NX NY of the weak grid (P a power of 2: RCB cuts 8 x 8 x 8 boxes)
sides() {
	k=0
	while [ $((1 << k)) -lt "$1" ]; do k=$((k + 1)); done
	echo $((8 << ((k + 1) / 2))) $((8 << (k / 2)))
}
# run NP SCENE CONF [OPTION...]: the report in $tmp/out (not converged,
# status 1, is fine)
run() {
	np=$1 scene=$2 conf=$3
	shift 3
	smpirun -np "$np" -platform "$platform" -hostfile "$tmp/hosts" \
		--cfg=smpi/host-speed:1Gf --cfg=smpi/simulate-computation:$compute \
		--log=root.thres:warning "$prog" run \
		--steps 1 -c "$tmp/$conf.ini" "$scene" "$@" > "$tmp/out" || [ $? -eq 1 ]
}
field() { sed -n "s/^$1 *//p" "$tmp/out" | head -1; }
printf '[solver]\nmerit = fc3d\nabs_tol = 0\nmax_sweeps = 50\n' > "$tmp/q50.ini"
printf '[solver]\nmerit = delta\nabs_tol = 0\nrel_tol = 0\nmax_sweeps = 50\n' > "$tmp/t50.ini"

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(getconf _NPROCESSORS_ONLN) cores; $net platform ($platform)"
echo "| $mode | ranks | E | contacts, busiest rank | us per sweep | network us per sweep | model | model us per sweep | us per global test | ms per step | sweeps to E50 | efficiency | with 1 rank's compute | model |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for P in $ranks; do
	if [ "$mode" = weak ]; then
		scene=$(grid $(sides "$P"))
	else
		scene=$(grid 128 64)
	fi
	key=$(basename "$scene" .ini)
	if [ ! -f "$tmp/$key.e50" ]; then # this grid's quality target, once
		run 1 "$scene" q50
		field 'fc3d error' | sed 's/ .*//' > "$tmp/$key.e50"
	fi
	e50=$(cat "$tmp/$key.e50")
	printf '[solver]\nmerit = fc3d\nabs_tol = %s\nmax_sweeps = 2000\n' "$e50" > "$tmp/q.ini"
	for E in "$@"; do
		compute=yes
		run "$P" "$scene" q --exchange-every "$E" --check-every 1
		sweeps=$(field result | sed 's/.* after \([0-9]*\) sweeps.*/\1/')
		compute=no
		run "$P" "$scene" t50 --exchange-every "$E" --check-every "$K"
		net=$(sed -n 's/^time *\([0-9.e+-]*\) s on the slowest rank.*/\1/p' "$tmp/out")
		compute=yes
		run "$P" "$scene" t50 --exchange-every "$E" --check-every "$K"
		rt="" rc="" rm="" rp=""
		[ ! -f "$tmp/ref.$E" ] || read -r rt rc rm rp < "$tmp/ref.$E"
		awk -v mode="$mode" -v P="$P" -v E="$E" -v K="$K" -v bw="$bw" -v lat="$lat" -v f=2 \
		    -v sweeps="$sweeps" -v net="$net" -v refout="$tmp/ref.$E" \
		    -v rt="$rt" -v rc="$rc" -v rm="$rm" -v rp="$rp" '
		BEGIN { have = rt != "" }
		/^ranks / { c = 0; for (i = 6; i <= NF && $i ~ /^[0-9]+$/; i++) if ($i + 0 > c) c = $i + 0 }
		/^result / { for (i = 1; i <= NF; i++) if ($i == "sweeps") s = $(i - 1)
			     for (i = 1; i <= NF; i++) if ($i == "global") tests = substr($(i - 1), 1) + 0 }
		/^traffic / { for (i = 1; i <= NF; i++) if ($i == "one") { m = $(i + 2); B = $(i + 4) } }
		/^time / { slow = $2; for (i = 1; i <= NF; i++) if ($i == "tests") gt = $(i + 1) }
		/^wall time / { wall = $3 }
		END {
			t = slow / s
			tn = net / s
			if (!have) { rt = t; rc = c; rp = P }
			tc = rt / rc
			if (P == 1) { m = 0; B = 0 }
			# a message: f h lat, h = 2 links within a leaf (32
			# hosts, ranks in order), 4 across; the tree: its
			# steps under 32 within a leaf, up and down again
			mg = 0; for (q = 1; q < P; q *= 2) mg += 2 * f * (q < 32 ? 2 : 4) * lat
			mn = (m > 0 ? 2 * f * (P <= 32 ? 2 : 4) * lat / E : 0) + B / bw + mg / (E * K)
			mt = tc * c + mn
			if (!have) rm = mt
			if (mode == "weak") { eff = rt / t; ceff = rt / (tc * c + tn); meff = rm / mt }
			else { eff = rt * rp / (P * t); ceff = rt * rp / (P * (tc * c + tn)); meff = rm * rp / (P * mt) }
			printf "| %s | %d | %d | %d | %.1f | %.1f | %.1f | %.1f | %.0f | %.1f | %s | %.0f%% | %.0f%% | %.0f%% |\n",
			       mode, P, E, c, t * 1e6, tn * 1e6, mn * 1e6, mt * 1e6,
			       (tests > 0 ? gt / tests * 1e6 : 0), wall * 1e3, sweeps,
			       eff * 100, ceff * 100, meff * 100
			if (!have) printf "%.9g %d %.9g %d\n", rt, rc, rm, rp > refout
		}' "$tmp/out"
	done
done
echo "E50 per grid (fc3d error of 50 sweeps on one rank): $(for f in "$tmp"/*.e50; do printf '%s %s; ' "$(basename "$f" .e50)" "$(cat "$f")"; done)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
