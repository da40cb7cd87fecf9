#!/bin/sh
# Every file proxima writes is never half-written (core/outfile.c): each
# writer pointed at /dev/full, at a missing folder, past `ulimit -f`, at a
# small full tmpfs and a read-only one (when this user can mount them),
# fails with exit 2 and one line naming the file and the system's reason,
# and leaves the previous file as it was and no temporary file behind; a
# run killed with SIGKILL leaves a CSV of whole rows, whole VTK frames and
# the previous --state file and .pvd intact. About 15 s on two shared
# cores, most of it the two mpirun runs.
set -u
build=${top_builddir:-.}
src=${srcdir:-.}
cli=$build/cli/proxima
mpi=$build/mpi/proxima-mpi
scene=$src/scenes/ballgrid-8.ini
dat=$src/scenes/two-boxes.dat
work=$(mktemp -d)
# Open MPI's session directories under this test's own folder: mpiruns
# of tests run side by side race on one shared tree in /tmp ("ORTE_ERROR_LOG:
# Error in file util/session_dir.c", seen under make -j2 check)
export OMPI_MCA_orte_tmpdir_base="$work"
mnt=''
cleanup() {
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
fail=0
bad() {
	echo "FAIL $*"
	fail=1
}

# fails WANT CMD...: CMD exits 2 and its stderr is the one line WANT
fails() {
	want=$1
	shift
	"$@" >/dev/null 2>"$work/err"
	rc=$?
	got=$(cat "$work/err")
	[ "$rc" -eq 2 ] || bad "$*: exit $rc, not 2"
	[ "$got" = "$want" ] || bad "$*: said '$got', not '$want'"
}

# limited BLOCKS CMD...: CMD under `ulimit -f BLOCKS` (this shell's own
# output, perhaps a log past the limit, is not)
limited() {
	(
		ulimit -f "$1"
		shift
		exec "$@"
	)
}

# untouched FILE TEXT: FILE still holds TEXT (the previous version)
untouched() {
	[ "$(cat "$1")" = "$2" ] || bad "$1 was changed: $(head -c 80 "$1")"
}

# no_temporary DIR: no .NAME.XXXXXX left in DIR
no_temporary() {
	left=$(ls -A "$1" | grep '^\.' || true)
	[ -z "$left" ] || bad "temporary files left in $1: $left"
}

# whole_rows CSV: every line has the header's number of fields and ends
# with a newline, and the steps count 1, 2, ... from the second line
whole_rows() {
	[ -s "$1" ] || { bad "$1 is empty"; return; }
	[ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] ||
		bad "$1 ends in the middle of a row"
	awk -F, 'NR == 1 { n = NF; next }
		NF != n || $1 != NR - 1 { print "row " NR ": " $0; exit 1 }' \
		"$1" || bad "$1 has a row that is not whole"
}

full='No space left on device'
d=$work/d
mkdir "$d"

# ---- /dev/full ------------------------------------------------------
if [ -w /dev/full ]; then
	fails "proxima: /dev/full: cannot write: $full" \
		"$cli" solve "$dat" --history /dev/full
	fails "proxima: /dev/full: cannot write: $full" \
		"$cli" run "$scene" --steps 3 --quiet --csv /dev/full
	fails "proxima: /dev/full: cannot write: $full" \
		"$cli" run "$scene" --steps 3 --quiet --state /dev/full
	fails "proxima: /dev/full: cannot write: not a regular file (HDF5 writes only to one)" \
		"$cli" solve "$dat" --save-fclib /dev/full
else
	echo "[SKIP] outputs.sh: /dev/full: not writable here"
fi

# ---- a missing folder: every writer ------------------------------------
no=$work/no
for out in x.txt x.npy; do
	fails "proxima: $no/$out: cannot write: No such file or directory" \
		"$cli" solve "$dat" --out "$no/$out"
done
fails "proxima: $no/h.csv: cannot write: No such file or directory" \
	"$cli" solve "$dat" --history "$no/h.csv"
for out in x.dat x.hdf5; do
	fails "proxima: $no/$out: cannot write: No such file or directory" \
		"$cli" convert "$dat" "$no/$out"
done
fails "proxima: $no/f.hdf5: cannot write: No such file or directory" \
	"$cli" solve "$dat" --save-fclib "$no/f.hdf5"
fails "proxima: $no/r.csv: cannot write: No such file or directory" \
	"$cli" run "$scene" --steps 3 --quiet --csv "$no/r.csv"
fails "proxima: $no/s.csv: cannot write: No such file or directory" \
	"$cli" run "$scene" --steps 3 --quiet --state "$no/s.csv"
# a frame where a folder should be: --vtk names a file
echo file >"$d/file"
fails "proxima: $d/file/frame_000000.vtp: cannot write: Not a directory" \
	"$cli" run "$scene" --steps 3 --quiet --vtk "$d/file"
# compare's tables: its folder exists, a table in it is a folder
mkdir -p "$d/cmp/table.md"
fails "proxima: $d/cmp/table.md: cannot write: Is a directory" \
	"$cli" compare -c "$src/conf/default.ini" -c "$src/conf/pgssm.ini" \
	"$dat" --out "$d/cmp" --no-plot

# compare's plots: gnuplot draws under a temporary name; one that fails
# half-way leaves the earlier plots, one that succeeds replaces them
mkdir "$d/p"
echo 'old plot' >"$d/p/convergence.png"
printf '#!/bin/sh\necho half >"$3.png"\necho "line 9: boom" >&2\nexit 1\n' \
	>"$work/gp-fails"
printf '#!/bin/sh\necho new >"$3.png"\necho new >"$3.svg"\n' >"$work/gp-draws"
chmod +x "$work/gp-fails" "$work/gp-draws"
fails "proxima compare: $d/p/convergence.gp: $work/gp-fails exited with status 1: line 9: boom" \
	env PROXIMA_GNUPLOT="$work/gp-fails" "$cli" compare \
	-c "$src/conf/default.ini" "$dat" --out "$d/p"
untouched "$d/p/convergence.png" 'old plot'
no_temporary "$d/p"
PROXIMA_GNUPLOT="$work/gp-draws" "$cli" compare -c "$src/conf/default.ini" \
	"$dat" --out "$d/p" >/dev/null || bad "compare with a drawing gnuplot: exit $?"
untouched "$d/p/convergence.png" new
untouched "$d/p/convergence.svg" new
no_temporary "$d/p"

# ---- ulimit -f: past the limit, the old file stays, a CSV keeps its
# whole rows (dash counts 512-byte blocks, bash 1024: 8 is 4 or 8 KiB)
for f in s.csv x.hdf5; do echo old >"$d/$f"; done
fails "proxima: $d/s.csv: cannot write: File too large" \
	limited 8 "$cli" run "$scene" --steps 3 --quiet --state "$d/s.csv"
fails "proxima: $d/r.csv: cannot write: File too large" \
	limited 8 "$cli" run "$scene" --steps 500 --quiet --csv "$d/r.csv"
untouched "$d/s.csv" old
whole_rows "$d/r.csv"
rows=$(($(wc -l <"$d/r.csv") - 1))
[ "$rows" -gt 5 ] && [ "$rows" -lt 500 ] ||
	bad "$d/r.csv: $rows rows under ulimit -f 8, expected some, not all"
# two-boxes.dat as HDF5: about 16 KiB
fails "proxima: $d/x.hdf5: cannot write: File too large" \
	limited 8 "$cli" convert "$dat" "$d/x.hdf5"
untouched "$d/x.hdf5" old
no_temporary "$d"

# ---- a full and a read-only file system (tmpfs: root only) -------------
mnt=$work/m
mkdir "$mnt"
if mount -t tmpfs -o size=16k tmpfs "$mnt" 2>/dev/null; then
	echo old >"$mnt/s.csv"
	echo old >"$mnt/x.hdf5"
	echo old >"$mnt/x.dat"
	fails "proxima: $mnt/s.csv: cannot write: $full" \
		"$cli" run "$scene" --steps 3 --quiet --state "$mnt/s.csv"
	fails "proxima: $mnt/x.hdf5: cannot write: $full" \
		"$cli" convert "$src/scenes/two-boxes.dat" "$mnt/x.hdf5"
	fails "proxima: $mnt/r.csv: cannot write: $full" \
		"$cli" run "$scene" --steps 500 --quiet --csv "$mnt/r.csv"
	untouched "$mnt/s.csv" old
	untouched "$mnt/x.hdf5" old
	whole_rows "$mnt/r.csv"
	no_temporary "$mnt"
	rm -f "$mnt/r.csv"
	mount -o remount,ro "$mnt"
	fails "proxima: $mnt/x.dat: cannot write: Read-only file system" \
		"$cli" convert "$dat" "$mnt/x.dat"
	fails "proxima: $mnt/r.csv: cannot write: Read-only file system" \
		"$cli" run "$scene" --steps 3 --quiet --csv "$mnt/r.csv"
	untouched "$mnt/x.dat" old
	umount "$mnt"
	mnt=''
else
	echo "[SKIP] outputs.sh: a full and a read-only tmpfs: this user cannot mount one"
	mnt=''
fi

# ---- SIGKILL during a run ------------------------------------------------
k=$work/k
mkdir "$k" "$k/vtk"
echo 'the state of the run before' >"$k/state.csv"
echo 'the frames of the run before' >"$k/vtk/frames.pvd"
"$cli" run "$scene" --steps 100000 --quiet --csv "$k/run.csv" \
	--state "$k/state.csv" --vtk "$k/vtk" --vtk-every 7 >/dev/null 2>&1 &
pid=$!
# until 40 steps are in the CSV (at most 30 s)
for i in $(seq 300); do
	[ -f "$k/run.csv" ] && [ "$(wc -l <"$k/run.csv")" -gt 40 ] && break
	sleep 0.1
done
kill -9 $pid
wait $pid 2>/dev/null
whole_rows "$k/run.csv"
rows=$(($(wc -l <"$k/run.csv") - 1))
[ "$rows" -ge 40 ] || bad "$k/run.csv: $rows rows, the run was killed at 40 or more"
untouched "$k/state.csv" 'the state of the run before'
untouched "$k/vtk/frames.pvd" 'the frames of the run before'
for f in "$k"/vtk/*.vtp; do
	[ "$(tail -n 1 "$f")" = '</VTKFile>' ] || bad "$f is not whole"
done

# ---- proxima-mpi: its CSV and state ----------------------------------------
if [ -x "$mpi" ] && command -v mpirun >/dev/null 2>&1; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export PROXIMA_MPI="$mpi"
	# as tests/test_mpi.c's runs: Open MPI's own allocations are not ours
	ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
	export ASAN_OPTIONS
	run="timeout $((60 * ${PX_TEST_SLOWDOWN:-1})) mpirun -q --oversubscribe --bind-to none -np 2"
	echo old >"$d/ms.csv"
	fails "proxima: $no/m.csv: cannot write: No such file or directory" \
		$run "$cli" run "$scene" --steps 3 --csv "$no/m.csv"
	if [ -w /dev/full ]; then
		fails "proxima: /dev/full: cannot write: $full" \
			$run "$cli" run "$scene" --steps 3 --csv /dev/full
	fi
	$run "$cli" run "$scene" --steps 3 --csv "$d/m.csv" \
		--state "$d/ms.csv" >/dev/null || bad "mpirun -np 2 run: exit $?"
	whole_rows "$d/m.csv"
	[ "$(wc -l <"$d/m.csv")" -eq 4 ] || bad "$d/m.csv: not 3 rows"
	[ "$(head -c 5 "$d/ms.csv")" = 'body,' ] || bad "$d/ms.csv not written"
	no_temporary "$d"
else
	echo "[SKIP] outputs.sh: proxima-mpi: no $mpi or no mpirun"
fi

[ "$fail" -eq 0 ] && echo "PASS outputs.sh"
exit $fail
