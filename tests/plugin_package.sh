#!/bin/sh
# The kit as a user of an install gets it, by the docs alone: this build
# installed into a temporary root (make install DESTDIR=...), its
# proxima.pc relocated there (what an install under that prefix would
# hold), then proxima-plugin(7)'s commands run exactly as written, with
# their first line, prefix=/usr/local, naming the temporary install:
# - the autotools block (between `.\" autotools begin' and `end'): the
#   installed plugin-package with PROXIMA_PLUGIN from the installed
#   proxima.m4, found through ACLOCAL_PATH, configured, built and installed
#   into the install's plugin directory, where the installed proxima finds
#   it and solves with it;
# - the program block (`.\" program begin' to `end'): the installed
#   solve_arrays.c compiled and linked through pkg-config, run, passing its
#   own checks;
# - without ACLOCAL_PATH autoreconf stops, and its first line is the
#   example's own error naming ACLOCAL_PATH (unless aclocal's own folder
#   holds a proxima.m4, an installed libproxima-dev: then it finds that);
# - examples/README.md gives the same two blocks, word for word.
# pkg-config searches the relocated proxima.pc through PKG_CONFIG_PATH, as
# the docs say for a prefix it does not search; the installed programs run
# with LD_LIBRARY_PATH and PROXIMA_PLUGIN_PATH naming the temporary install
# (its libproxima and plugin directory are compiled for the real prefix);
# `cc' is the build's compiler with the build's CFLAGS (a sanitizer
# build's libproxima needs its runtimes linked into the program).
# Skips (77) without autoreconf, automake or libtoolize. About 25 s.
set -u
src=$(cd "${srcdir:-.}" && pwd)
build=$(cd "${top_builddir:-.}" && pwd)
page=$src/doc/proxima-plugin.7
for tool in autoreconf automake libtoolize; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "[SKIP] plugin_package.sh: no $tool (Debian: autoconf, automake, libtool)"
		exit 77
	fi
done
tmp=$(mktemp -d /tmp/px_kit_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
failed() {
	echo "FAIL $*"
	fail=1
}

# block NAME FILE: the lines of proxima-plugin(7) between `.\" NAME begin'
# and `.\" NAME end', unescaped from roff
block() {
	sed -n "/^\\.\\\\\" $1 begin\$/,/^\\.\\\\\" $1 end\$/p" "$page" |
		sed '1d;$d' | sed 's/^\\&//; s/\\-/-/g; s/\\e/\\/g'
}
auto=$(block autotools)
prog=$(block program)
if [ -z "$auto" ] || [ -z "$prog" ]; then
	echo "FAIL $page has no autotools or program block"
	exit 1
fi
first=$(printf '%s\n' "$auto" | head -1)
if [ "$first" != "prefix=/usr/local" ]; then
	echo "FAIL the autotools block starts with '$first', not 'prefix=/usr/local'"
	exit 1
fi
# the README's indented blocks hold both, word for word
readme=$(sed -n 's/^    //p' "$src/examples/README.md")
for b in "$auto" "$prog"; do
	printf '%s\n' "$readme" | want=$b awk '
		{ text = text $0 "\n" }
		END { exit index(text, ENVIRON["want"] "\n") == 0 }' ||
		failed "examples/README.md does not give proxima-plugin(7)'s block:
$b"
done

# the build, installed
root=$tmp/root
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "${MAKE:-make}" -C "$build" \
	install DESTDIR="$root" > "$tmp/install.log" 2>&1; then
	echo "FAIL make install DESTDIR=$root:"
	tail -20 "$tmp/install.log"
	exit 1
fi
pc=$(find "$root" -name proxima.pc -path '*/pkgconfig/*' | head -1)
prefix=$(sed -n 's/^prefix=//p' "$pc")
inst=$root$prefix
sed "s|^\\([A-Za-z_]*\\)=$prefix\\(/.*\\)\\{0,1\\}\$|\\1=$inst\\2|" "$pc" > "$tmp/pc"
cat "$tmp/pc" > "$pc"
PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_PATH
plugindir=$(pkg-config --variable=plugindir proxima)
libdir=$(pkg-config --variable=libdir proxima)
case $plugindir in
"$inst"/*) ;;
*) echo "FAIL the relocated proxima.pc's plugindir is $plugindir, not under $inst"
   exit 1 ;;
esac
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
PROXIMA_PLUGIN_PATH=$plugindir
export LD_LIBRARY_PATH PROXIMA_PLUGIN_PATH
mkdir "$tmp/bin"
printf '#!/bin/sh\nexec %s %s "$@"\n' \
	"$(sed -n 's/^CC = //p' "$build/Makefile")" \
	"$(sed -n 's/^CFLAGS = //p' "$build/Makefile")" > "$tmp/bin/cc"
chmod +x "$tmp/bin/cc"
PATH=$tmp/bin:$PATH
proxima=$inst/bin/proxima
scene=$inst/share/proxima/scenes/two-boxes.dat
# run NAME SCRIPT: the docs' block in a shell of its own in $tmp/NAME,
# stopping at the first failing command
run() {
	mkdir "$tmp/$1"
	(cd "$tmp/$1" && sh -e -x -c "$2") > "$tmp/$1.log" 2>&1
}

# the autotools route, then the plugin in the installed proxima
if run autotools "prefix=$inst
$(printf '%s\n' "$auto" | sed 1d)"; then
	grep -q "^checking where to install proxima plugins\\.\\.\\. $plugindir\$" \
		"$tmp/autotools.log" ||
		failed "configure did not install into proxima.pc's plugindir $plugindir"
	if [ ! -f "$plugindir/friction_capped.so" ]; then
		failed "make install put no friction_capped.so into $plugindir"
	else
		printf '[friction]\nplugin = capped\ncap = 0.05\n[solver]\nmerit = natural\n' \
			> "$tmp/capped.ini"
		out=$("$proxima" solve -c "$tmp/capped.ini" "$scene" 2>&1)
		if ! printf '%s\n' "$out" | grep -q 'friction capped' ||
			! printf '%s\n' "$out" | grep -q '^result      converged after '; then
			failed "the installed proxima did not solve with the plugin:
$out"
		fi
	fi
else
	failed "proxima-plugin(7)'s autotools commands under $inst:"
	tail -30 "$tmp/autotools.log"
fi

# the program route
if run program "ex=$inst/share/doc/proxima/examples
$prog"; then
	grep -q '^ok$' "$tmp/program.log" ||
		failed "solve_arrays printed no 'ok'"
else
	failed "proxima-plugin(7)'s program commands against $inst:"
	tail -30 "$tmp/program.log"
fi

# without ACLOCAL_PATH: the example's own error, first
if [ -f "$(aclocal --print-ac-dir)/proxima.m4" ]; then
	echo "[SKIP] plugin_package.sh: the error without ACLOCAL_PATH: aclocal's folder $(aclocal --print-ac-dir) holds a proxima.m4"
else
	mkdir "$tmp/noacl"
	cp "$inst/share/doc/proxima/examples/plugin-package/"* \
		"$inst/share/doc/proxima/examples/friction_capped.c" "$tmp/noacl/"
	if (cd "$tmp/noacl" && env -u ACLOCAL_PATH autoreconf -fi) \
		> "$tmp/noacl.log" 2>&1; then
		failed "autoreconf without ACLOCAL_PATH succeeded"
	elif ! head -1 "$tmp/noacl.log" | grep -q \
		'^configure.ac:[0-9]*: error: PROXIMA_PLUGIN is undefined: aclocal did not find proxima.m4; rerun with ACLOCAL_PATH=PREFIX/share/aclocal autoreconf -fi'; then
		failed "autoreconf without ACLOCAL_PATH did not say so first:"
		cat "$tmp/noacl.log"
	fi
fi
[ "$fail" -eq 0 ] && echo "PASS the plugin kit under $inst"
exit "$fail"
