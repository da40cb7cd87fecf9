#!/bin/sh
# bench/roofline's quick mode (issue 34): the machine's figures are there
# and positive, the table has a row of 17 columns per variant (7), the counted
# bytes are the ones doc/benchmarks.md derives for ballgrid-6 (576
# contacts, 216 bodies: the rigid 3-row kernel streams 276 bytes per
# contact and 152 per body, 276 + 152 * 216 / 576 = 333), every limit is
# positive and no measured sweep beats its limit by more than 2x (ratio
# >= 0.5; the limit is a lower bound, timing noise aside); bad input is
# one line and exit 2.
set -u
prog=${top_builddir:-.}/bench/roofline
if [ ! -x "$prog" ]; then
	echo "FAIL no $prog: make check builds it"
	exit 1
fi
fail=0
# --llc 4: arrays of 16 MiB, whatever the machine's cache (STREAM's 4 times
# a last-level cache of hundreds of MiB would take gigabytes here)
out=$("$prog" --min-time 0.02 --sweeps 10 --llc 4 ballgrid-6 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 0 ]; then
	echo "FAIL bench/roofline exited with $rc"
	fail=1
fi
printf '%s\n' "$out" | awk '
	function bad(msg) { print "FAIL " msg; failed = 1 }
	/^triad in memory/ { mem = ($(NF - 4) > 0 && $(NF - 1) > 0) }
	/^triad in cache/ { cache = ($(NF - 4) > 0 && $(NF - 1) > 0) }
	/^FMA peak/ { fma = ($4 > 0 && $6 > 0) }
	$1 == "ballgrid-6" {
		rows++
		if (NF != 17) bad("row of " NF " columns, not 17: " $0)
		if ($5 != 576) bad($2 " " $3 ": " $5 " contacts, not 576")
		if ($6 <= 0 || $9 <= 0) bad($2 " " $3 ": bytes or flops not positive")
		if ($12 != "cache") bad($2 " " $3 ": working set of " $11 " MiB not in cache")
		if (!($14 > 0)) bad($2 " " $3 ": limit " $14 " not positive")
		if ($15 != "bytes" && $15 != "flops") bad($2 " " $3 ": bound " $15)
		if (!($16 > 0)) bad($2 " " $3 ": measured " $16 " not positive")
		if (!($17 >= 0.5)) bad($2 " " $3 ": ratio " $17 " below 0.5")
		if (($3 == "rigid3" || $3 == "wide") && $6 != 333) bad($3 ": " $6 " bytes per contact-sweep, not 333")
	}
	END {
		if (!mem) bad("no positive triad in memory")
		if (!cache) bad("no positive triad in cache")
		if (!fma) bad("no positive FMA peak")
		if (rows != 7) bad(rows + 0 " rows, not 7")
		exit failed
	}' || fail=1
# bad input: one line naming it, exit 2
for args in "ballgrid-x" "ballgrid-6x" "--variant simd ballgrid-6" \
	"--sweeps ten ballgrid-6" "--sweeps 0 ballgrid-6"; do
	# shellcheck disable=SC2086
	err=$("$prog" $args 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -ne 2 ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] ||
		! printf '%s\n' "$err" | grep -q '^roofline: '; then
		echo "FAIL roofline $args: exit $rc, message '$err'"
		fail=1
	fi
done
exit $fail
