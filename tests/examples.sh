#!/bin/sh
# Every example in the manual pages, the README and the manual's chapters
# (doc/*.md) runs as written. tests/readme_example.sh checks the figures
# they state; this checks that their examples run at all.
#
# What is an example:
# - doc/proxima.1, doc/proxima.conf.5, doc/proxima-plugin.7: the text lines
#   (not roff requests) between .nf and .fi in the SYNOPSIS and EXAMPLES
#   (EXAMPLE) sections, unescaped from roff; the C source between
#   `.\" example begin' and `.\" example end' is readme_example.sh's.
# - README.md and doc/*.md: the code blocks (indented or fenced
#   sh/console/ini; not python, C or other fenced blocks). In a
#   transcript (lines starting with `$ '), the `$ ' lines are the commands
#   and the lines after one its output; another block is an example when
#   one of its lines runs proxima (`proxima ...', `VAR=VALUE proxima ...'
#   or `mpirun ... proxima ...'), and then every line of it runs, in order
#   (a plugin's `cc' and `printf' too). A line ending in `\' goes on.
# - A block whose first line (after `;' or `#' comments) is an INI
#   section is configuration text: a scene (a [world] section or one that
#   adds bodies) is run with `proxima run FILE'; a solver configuration
#   solves scenes/two-boxes.dat and runs 60 steps of scenes/boxstack-10.ini
#   with `-c FILE'.
#
# By rule, a line that holds `[' followed by `-' or a capital letter (an
# optional part) or a word of capitals, digits and `_' (a metavariable:
# PROBLEM, A.ini, KIND_NAME.so, -np P; not an environment assignment
# NAME=... nor $NAME) is usage, a synopsis, and is not run.
#
# Each document's examples run in order in a scratch directory of their
# own, so that one may read what an earlier one wrote (solved.hdf5, a
# plugin built by `cc'). The directory holds scenes/, conf/ and examples/
# of the source tree, file by file (links: an example can write beside
# them, never into the tree); a file an example names by its bare name is
# linked from examples/ or, for the Markdown documents, from the shared problems
# ($PX_SHARED_PROBLEMS, else ../shared/problems beside the source tree,
# as for readme_example.sh). `proxima' on the PATH is the build's, with
# the build's plugins searched after PROXIMA_PLUGIN_PATH as the installed
# ones would be, PROXIMA_DATA_DIR the source tree, and `pkg-config
# --cflags proxima' names the source tree's headers. A transcript's
# `$ cat FILE' shows a file the next commands use: its output lines are
# written to FILE first.
#
# An example runs when it exits with 0, or 1 for one that runs proxima (a
# solve that did not converge), within 120 s (`timeout'; times
# $PX_TEST_SLOWDOWN, which a sanitizer build sets), and prints no
# line starting with `proxima:' on stderr (an error). In a Markdown
# transcript whose output shows `proxima:' lines, the command is an error
# example: it must exit non-zero and print each of those lines.
#
# One line per example (PASS or FAIL, where, its seconds, the command), then
# "N passed, N failed, N skipped". An example skips only for what the
# build lacks (MPI for `mpirun', FCLib for .hdf5 files, UMFPACK for `-c
# robust'), or without the shared problems a Markdown example on one of
# them; each skip prints `[SKIP] examples.sh: reason'. About 20 s on two
# shared cores (2026-11), most of it the two mpirun runs of doc/mpi.md.
set -u
src=$(cd "${srcdir:-.}" && pwd)
build=$(cd "${top_builddir:-.}" && pwd)
cli=$build/cli/proxima
plugins=$build/plugins/.libs
problems=${PX_SHARED_PROBLEMS:-$src/../shared/problems}
limit=$((120 * ${PX_TEST_SLOWDOWN:-1}))
work=$(mktemp -d /tmp/px_examples_XXXXXX)
trap 'rm -rf "$work"' EXIT
# Open MPI's session directories under this test's own folder: mpiruns
# of tests run side by side race on one shared tree in /tmp ("ORTE_ERROR_LOG:
# Error in file util/session_dir.c", seen under make -j2 check)
export OMPI_MCA_orte_tmpdir_base="$work"
pass=0 fail=0 skipped=0 usage_lines=0

if [ ! -x "$cli" ]; then
	echo "FAIL no $cli: build it first"
	exit 1
fi

# `proxima' as installed
mkdir "$work/bin" "$work/pkgconfig"
cat > "$work/bin/proxima" <<EOF
#!/bin/sh
PROXIMA_PLUGIN_PATH=\${PROXIMA_PLUGIN_PATH:+\$PROXIMA_PLUGIN_PATH:}$plugins
export PROXIMA_PLUGIN_PATH
exec "$cli" "\$@"
EOF
chmod +x "$work/bin/proxima"
cat > "$work/pkgconfig/proxima.pc" <<EOF
includedir=$src/include
plugindir=$plugins

Name: proxima
Description: the source tree's headers (tests/examples.sh)
Version: 0
Cflags: -I\${includedir}
EOF
PATH=$work/bin:$PATH
PKG_CONFIG_PATH=$work/pkgconfig
PROXIMA_PLUGIN_PATH=$plugins
PROXIMA_DATA_DIR=$src
export PATH PKG_CONFIG_PATH PROXIMA_PLUGIN_PATH PROXIMA_DATA_DIR
# mpirun as root, more ranks than cores, unbound (tests/test_mpi.c's)
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
PROXIMA_MPI=$build/mpi/proxima-mpi
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM \
	OMPI_MCA_rmaps_base_oversubscribe OMPI_MCA_hwloc_base_binding_policy \
	PROXIMA_MPI

# What the build lacks, as the reason to skip an example that needs it.
no_mpi='' no_fclib='' no_ssn=''
[ -x "$PROXIMA_MPI" ] && command -v mpirun >/dev/null 2>&1 ||
	no_mpi="no $PROXIMA_MPI or no mpirun (a build without MPI)"
"$cli" --help | grep -q '^FCLib files: supported' ||
	no_fclib="a build without FCLib"
[ -f "$plugins/accelerator_ssn.so" ] ||
	no_ssn="-c robust needs the ssn accelerator: a build without UMFPACK"

# ---- extraction: blocks, as "B<tab>FILE:LINE", "L<tab>LINE<tab>text", "E"

# md_blocks FILE: the code blocks of a Markdown document (doc/ names it
# by its path from the source tree)
md_blocks() {
	awk -v doc="$1" '
	function flush(  i) {
		while (n && blk[n] == "")
			n--
		if (n) {
			print "B\t" doc
			for (i = 1; i <= n; i++)
				print "L\t" at[i] "\t" blk[i]
			print "E"
		}
		n = 0
	}
	/^```/ {
		if (!fence) {
			flush()
			fence = 1
			keep = substr($0, 4) ~ /^(sh|console|shell|ini|)$/
		} else {
			fence = 0
			if (keep)
				flush()
			n = 0
		}
		next
	}
	fence { at[++n] = NR; blk[n] = $0; next }
	/^[ \t]*$/ { if (n) { at[++n] = NR; blk[n] = "" } blank = 1; next }
	/^    / && (n || blank) { at[++n] = NR; blk[n] = substr($0, 5); next }
	{ flush(); blank = 0 }
	END { flush() }' "$src/$1"
}

man_blocks() {
	awk -v page="$1" '
	function flush(  i) {
		if (n) {
			print "B\t" page
			for (i = 1; i <= n; i++)
				print "L\t" at[i] "\t" blk[i]
			print "E"
		}
		n = 0
	}
	/^\.SH/ { sec = $2; gsub(/"/, "", sec) }
	/^\.\\" example begin/ { skip = 1 }
	/^\.\\" example end/ { skip = 0; next }
	/^\.nf/ && (sec == "SYNOPSIS" || sec ~ /^EXAMPLES?$/) { nf = 1; n = 0; next }
	/^\.fi/ && nf { nf = 0; flush(); next }
	nf && !skip && !/^\./ {
		t = $0
		gsub(/\\-/, "-", t)
		gsub(/\\\(aq/, "\047", t)
		gsub(/\\\(dq/, "\"", t)
		gsub(/\\&/, "", t)
		gsub(/\\e/, "\\", t)
		at[++n] = NR
		blk[n] = t
	}' "$src/doc/$1"
}

# The blocks as a shell script of calls to the functions below.
plan() {
	awk '
	function q(s) { gsub(/\047/, "\047\\\047\047", s); return "\047" s "\047" }
	function proxima(c) {
		return c ~ /^([A-Za-z_][A-Za-z0-9_]*=[^ ]* )*proxima( |$)/ ||
		       c ~ /^mpirun .* proxima( |$)/
	}
	# line i joined with the lines its trailing backslashes continue to
	function joined(i,  c) {
		c = text[i]
		while (c ~ /\\$/ && i < n) {
			sub(/[ \t]*\\$/, " ", c)
			t = text[++i]
			sub(/^[ \t]+/, "", t)
			c = c t
		}
		last = i
		return c
	}
	function block(  i, j, c, first, any, k, name) {
		first = 0
		for (i = 1; i <= n && !first; i++)
			if (text[i] != "" && text[i] !~ /^[;#]/)
				first = i
		if (!first)
			return
		if (text[first] ~ /^\[[a-z]+( [A-Za-z0-9_.-]+)?\]/) {
			print "ini " q(doc ":" line[first]) " <<\047EOF_EXAMPLE\047"
			for (i = 1; i <= n; i++)
				print text[i]
			print "EOF_EXAMPLE"
			return
		}
		for (i = 1; i <= n; i++)
			if (text[i] ~ /^\$ /)
				break
		if (i <= n) { # a transcript
			while (i <= n) {
				c = joined(i)
				sub(/^\$ /, "", c)
				k = 0
				for (j = last + 1; j <= n && text[j] !~ /^\$ /; j++)
					out[++k] = text[j]
				if (c ~ /^cat [^ ]+$/ && k) {
					name = c
					sub(/^cat /, "", name)
					print "shown " q(name) " <<\047EOF_EXAMPLE\047"
					for (j = 1; j <= k; j++)
						print out[j]
					print "EOF_EXAMPLE"
				}
				for (j = 1; j <= k; j++)
					if (out[j] ~ /^proxima( [a-z]+)?: /)
						print "expect " q(out[j])
				print "example " q(doc ":" line[i]) " " q(c)
				for (i = last + 1; i <= n && text[i] !~ /^\$ /; i++)
					;
			}
			return
		}
		any = 0
		for (i = 1; i <= n; i++)
			if (proxima(text[i]))
				any = 1
		if (!any)
			return
		for (i = 1; i <= n; i = last + 1) {
			c = joined(i)
			if (c != "")
				print "example " q(doc ":" line[i]) " " q(c)
		}
	}
	$1 == "B" { doc = $2; n = 0; next }
	$1 == "L" {
		t = $0
		sub(/^L\t[0-9]+\t/, "", t)
		line[++n] = $2
		text[n] = t
		next
	}
	$1 == "E" { block() }'
}

# ---- running them

# usage LINE: whether LINE is a synopsis (see the top comment)
usage() {
	printf '%s\n' "$1" | grep -q '\[[-A-Z]' && return 0
	(
		set -f
		# shellcheck disable=SC2086 # the words of the line
		for w in $1; do
			case $w in
			*=* | \$*) continue ;;
			esac
			printf '%s\n' "$w" | grep -qx '[A-Z][A-Z0-9_]*\(\.[a-z0-9]*\)*\(\.\.\.\)\{0,1\}' &&
				exit 0
		done
		exit 1
	)
}

skip() {
	echo "[SKIP] examples.sh: $1"
	skipped=$((skipped + 1))
}

# needs WHERE CMD: link the files CMD names by their bare name; say why it
# cannot run here (and return 1) when the build lacks what it needs
needs() {
	set -f
	# shellcheck disable=SC2086 # the words of the command
	set -- "$1" "$2" $2
	set +f
	where=$1 cmd=$2
	shift 2
	case $cmd in
	mpirun*) [ -z "$no_mpi" ] || { skip "$where: $cmd: $no_mpi"; return 1; } ;;
	esac
	for w in "$@"; do
		case $w in
		*.hdf5 | *.h5) [ -z "$no_fclib" ] ||
			{ skip "$where: $cmd: $no_fclib"; return 1; } ;;
		robust | conf/robust.ini) [ -z "$no_ssn" ] ||
			{ skip "$where: $cmd: $no_ssn"; return 1; } ;;
		esac
		case $w in
		*/* | -* | *[!A-Za-z0-9_.-]*) continue ;;
		esac
		[ -e "$dir/$w" ] && continue
		if [ -f "$src/examples/$w" ]; then
			ln -s "$src/examples/$w" "$dir/$w"
		elif [ "$markdown" ] && [ -f "$problems/$w" ]; then
			ln -s "$(cd "$problems" && pwd)/$w" "$dir/$w"
		elif [ "$markdown" ] && [ ! -d "$problems" ] &&
			printf '%s\n' "$w" | grep -q '\.\(dat\|hdf5\|h5\)$'; then
			skip "$where: $cmd: $w is none of the source tree's, and there is no $problems"
			return 1
		fi
	done
	return 0
}

expected=
expect() {
	expected="$expected$1
"
}

# shown FILE: a transcript's `$ cat FILE': FILE holds its output lines
shown() {
	cat > "$dir/$1"
}

# example WHERE CMD: run CMD in the document's directory and judge it
example() {
	where=$1 cmd=$2 want=$expected
	expected=
	if usage "$cmd"; then
		usage_lines=$((usage_lines + 1))
		return
	fi
	needs "$where" "$cmd" || return
	# in a sanitizer build the ranks run without LeakSanitizer, as in
	# tests/test_mpi.c: Open MPI keeps what MPI_Init allocates
	case $cmd in
	mpirun*) asan="${ASAN_OPTIONS:-}:detect_leaks=0" ;;
	*) asan=${ASAN_OPTIONS:-} ;;
	esac
	t0=$(date +%s)
	(cd "$dir" && ASAN_OPTIONS=$asan exec timeout $limit sh -c "$cmd") \
		> "$work/out" 2> "$work/err"
	rc=$?
	took="$(($(date +%s) - t0)) s"
	why=
	if [ -n "$want" ]; then
		[ "$rc" -ne 0 ] || why="exit status 0, an error example"
		printf '%s' "$want" | while IFS= read -r e; do
			grep -qxF -- "$e" "$work/err" || echo "did not print: $e"
		done > "$work/missing"
		[ -s "$work/missing" ] &&
			why="${why:+$why; }$(paste -sd ';' "$work/missing")"
	else
		case $rc in
		0) ;;
		1) printf '%s\n' "$cmd" | grep -q 'proxima' ||
			why="exit status 1" ;;
		124) why="timed out after $limit s" ;;
		*) why="exit status $rc" ;;
		esac
		grep -q '^proxima:' "$work/err" && why="${why:+$why; }an error on stderr"
	fi
	if [ -z "$why" ]; then
		printf 'PASS %s (%s): %s\n' "$where" "$took" "$cmd"
		pass=$((pass + 1))
	else
		printf 'FAIL %s (%s): %s: %s\n' "$where" "$took" "$cmd" "$why"
		sed -n '1,20s/^/    /p' "$work/err"
		fail=$((fail + 1))
	fi
}

# ini WHERE: the block on stdin is a scene or a solver configuration
ini_n=0
ini() {
	ini_n=$((ini_n + 1))
	f=example-$ini_n.ini
	cat > "$dir/$f"
	if grep -q '^\[\(world\|body \|grid \|pile \|stack \|wall \|cardhouse \|tower \)' "$dir/$f"; then
		example "$1 (the scene shown, as $f)" "proxima run $f"
	else
		example "$1 (the config shown, as $f)" "proxima solve -c $f scenes/two-boxes.dat"
		example "$1 (the config shown, as $f)" "proxima run -c $f scenes/boxstack-10.ini --steps 60"
	fi
}

for doc in proxima.1 proxima.conf.5 proxima-plugin.7 README.md \
	$(cd "$src" && ls doc/*.md); do
	markdown=
	case $doc in
	*.md) markdown=1 ;;
	esac
	dir=$work/$(printf '%s' "$doc" | tr / _)
	mkdir "$dir"
	for d in scenes conf examples; do
		mkdir "$dir/$d"
		for f in "$src/$d"/*; do
			ln -s "$f" "$dir/$d/"
		done
	done
	if [ "$markdown" ]; then
		md_blocks "$doc"
	else
		man_blocks "$doc"
	fi | plan > "$work/plan.sh"
	# shellcheck disable=SC1091 # written just above
	. "$work/plan.sh"
done
echo "($usage_lines synopsis lines are usage, not examples)"
echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
