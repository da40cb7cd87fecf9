# Sourced by doc/experiments/NNN-name.sh: what every experiment page shares.
#
#   exp_init NNN-name "$@"    parse [--quick|--full], build (make bench),
#                             set $top $build $cli $data $page $quick $cmd
#   page TEXT...              append lines to the page
#   page_header TITLE         the page's title, the command that wrote it,
#                             when, where, and a warning in quick mode
#   md_table FILE.csv [COL[:LABEL],...]
#                             a markdown table of a CSV file (all columns,
#                             or the named ones); nan and empty cells: -
#   plot NAME                 run gnuplot on stdin (no terminal, no output
#                             lines: plot sets them) into $data/NAME.png and
#                             append the image to the page, or say on the
#                             page that there is no gnuplot
#   compare_in_data OUT ARG...
#                             proxima compare ARG... --out OUT run in $data
#                             (paths relative to it, as pages show them),
#                             its output in $data/OUT.txt; exit status 1 (a
#                             solve did not converge) is a result, others
#                             stop the script
#   include_table TABLE.md    compare's tables into the page, headings
#                             demoted
#   image PATH TEXT           a plot compare drew, or why there is none
#   exp_finish                move the page into place and say where it is
#
# A page is doc/experiments/NNN-name.md with its data and plots in
# doc/experiments/NNN-name/; in quick mode NNN-name.quick.md and
# NNN-name.quick/ (ignored by git: quick numbers are for checking that the
# script works, not for reading).
#
# Environment: PROXIMA_BUILD_DIR (default build/ or the checkout, as for
# bench/), PROXIMA_GNUPLOT (default gnuplot), PROXIMA_PROBLEMS.

exp_usage() {
	echo "usage: $cmd_name [--quick|--full]"
	echo "  --full   the paper's sizes (default; minutes on an idle machine)"
	echo "  --quick  small sizes, under about two minutes: checks the script"
}

exp_init() {
	exp_name=$1
	shift
	cmd_name="doc/experiments/$exp_name.sh"
	quick=0
	for arg in "$@"; do
		case $arg in
		--quick) quick=1 ;;
		--full) quick=0 ;;
		-h | --help) exp_usage; exit 0 ;;
		*) exp_usage >&2; exit 2 ;;
		esac
	done
	PX_TOP=$(cd "$(dirname "$0")/../.." && pwd)
	export PX_TOP
	. "$PX_TOP/bench/env.sh"
	cli="$build/cli/proxima"
	if [ ! -x "$cli" ]; then
		echo "$cmd_name: $cli was not built" >&2
		exit 2
	fi
	dir="$top/doc/experiments"
	if [ "$quick" = 1 ]; then
		data="$dir/$exp_name.quick"
		page="$dir/$exp_name.quick.md"
		cmd="$cmd_name --quick"
	else
		data="$dir/$exp_name"
		page="$dir/$exp_name.md"
		cmd="$cmd_name"
	fi
	# the variables that change what a script runs belong to its command
	for v in PROXIMA_SCENES PROXIMA_THREADS OMP_WAIT_POLICY; do
		eval "val=\${$v:-}"
		[ -z "$val" ] || cmd="$v=\"$val\" $cmd"
	done
	data_rel=$(basename "$data")
	rm -rf "$data"
	mkdir -p "$data"
	: > "$page.tmp"
	gnuplot=${PROXIMA_GNUPLOT:-gnuplot}
	command -v "$gnuplot" > /dev/null 2>&1 || gnuplot=
}

page() {
	printf '%s\n' "$@" >> "$page.tmp"
}

page_header() {
	page "# $1" "" "Written by this command, from the top of the checkout:" "" \
		"    $cmd" ""
	page "($(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc 2>/dev/null || echo '?') cores: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || uname -m).)" ""
	if [ "$quick" = 1 ]; then
		page "**Quick mode: small sizes, for checking that the script runs." \
			"These are not the seed's experiment; rerun without --quick for" \
			"the numbers to compare.**" ""
	fi
}

md_table() {
	awk -v cols="${2:-}" '
	function split_csv(line, f,    n, i, c, q, cur) {
		n = 0; cur = ""; q = 0
		for (i = 1; i <= length(line); i++) {
			c = substr(line, i, 1)
			if (c == "\"") { q = !q; continue }
			if (c == "," && !q) { f[++n] = cur; cur = ""; continue }
			cur = cur c
		}
		f[++n] = cur
		return n
	}
	function cell(s) {
		if (s == "" || s == "nan" || s == "-nan") return "-"
		gsub(/\|/, "\\|", s)
		return s
	}
	NR == 1 {
		nh = split_csv($0, head)
		if (cols == "") {
			for (i = 1; i <= nh; i++) { pick[i] = i; label[i] = head[i] }
			np = nh
		} else {
			np = split(cols, want, ",")
			for (j = 1; j <= np; j++) {
				name = want[j]; label[j] = name
				if (index(name, ":")) {
					label[j] = substr(name, index(name, ":") + 1)
					name = substr(name, 1, index(name, ":") - 1)
				}
				pick[j] = 0
				for (i = 1; i <= nh; i++) if (head[i] == name) pick[j] = i
				if (!pick[j]) { print "md_table: no column " name > "/dev/stderr"; exit 1 }
			}
		}
		line = "|"; rule = "|"
		for (j = 1; j <= np; j++) { line = line " " label[j] " |"; rule = rule " --- |" }
		print line; print rule
		next
	}
	{
		split_csv($0, f)
		line = "|"
		for (j = 1; j <= np; j++) line = line " " cell(f[pick[j]]) " |"
		print line
	}' "$1" >> "$page.tmp"
}

plot() {
	name=$1
	if [ -z "$gnuplot" ]; then
		cat > /dev/null
		page "(No plot $name.png: gnuplot was not found; install gnuplot-nox or set PROXIMA_GNUPLOT.)" ""
		return 0
	fi
	term=pngcairo
	"$gnuplot" -e 'set terminal pngcairo' > /dev/null 2>&1 || term=png
	{
		echo "set terminal $term size ${PLOT_SIZE:-1200,800} noenhanced"
		echo "set output '$data/$name.png'"
		echo "set datafile separator ','"
		cat
	} | "$gnuplot" > "$data/$name.gnuplot.log" 2>&1 || {
		echo "$cmd_name: gnuplot failed on $name (see $data/$name.gnuplot.log)" >&2
		return 1
	}
	page "![$name]($data_rel/$name.png)" ""
}

# compare draws with the same gnuplot, or writes its scripts only
compare_in_data() {
	_out=$1
	shift
	if [ -n "$gnuplot" ]; then
		PROXIMA_GNUPLOT=$gnuplot
		export PROXIMA_GNUPLOT
		set -- "$@" --out "$_out"
	else
		set -- "$@" --out "$_out" --no-plot
	fi
	(cd "$data" && "$cli" compare "$@") > "$data/$_out.txt" 2>&1 || {
		_rc=$?
		if [ "$_rc" != 1 ]; then
			cat "$data/$_out.txt" >&2
			exit "$_rc"
		fi
	}
}

include_table() {
	sed -n '2,$p' "$1" | sed '/^Configs:/,$d; s/^## /#### /' >> "$page.tmp"
}

image() {
	if [ -f "$1" ]; then
		page "![$2]($data_rel/${1#"$data"/})" ""
	else
		page "(No $(basename "$1"): gnuplot was not found or failed; the data and the script are beside it.)" ""
	fi
}

exp_finish() {
	mv "$page.tmp" "$page"
	echo "$cmd_name: wrote $page (data and plots in $data)"
}
