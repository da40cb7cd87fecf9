# proxima.m4: autoconf macro for packages of proxima plugins, installed
# as PREFIX/share/aclocal/proxima.m4 (libproxima-dev: /usr/share/aclocal).
# aclocal searches only its own folder (Debian's: /usr/share/aclocal); for
# proxima installed under another PREFIX run
#   ACLOCAL_PATH=PREFIX/share/aclocal autoreconf -fi
# proxima-plugin(7) documents the macro, examples/plugin-package uses it.
#
# PROXIMA_PLUGIN([MINIMUM-VERSION])
# ---------------------------------
# Finds libproxima MINIMUM-VERSION (default 0.1.0) or newer through
# pkg-config (PROXIMA_CFLAGS and PROXIMA_LIBS; a plugin needs only the
# CFLAGS: it includes <proxima/plugin.h> and does not link libproxima) and
# sets and substitutes proximaplugindir, the directory the installed
# proxima searches for plugins (pkg-config's plugindir variable of
# proxima.pc). --with-proxima-plugindir=DIR overrides it, e.g. to install
# under a private prefix and load with PROXIMA_PLUGIN_PATH=DIR.
# In Makefile.am:
#   proximaplugin_LTLIBRARIES = friction_mine.la
#   friction_mine_la_CFLAGS = $(PROXIMA_CFLAGS)
#   friction_mine_la_LDFLAGS = -module -avoid-version -shared
AC_DEFUN([PROXIMA_PLUGIN],
[m4_ifndef([PKG_PROG_PKG_CONFIG],
  [m4_fatal([PROXIMA_PLUGIN needs pkg-config's autoconf macros (pkg.m4): install pkg-config (Debian: pkgconf)])])
PKG_PROG_PKG_CONFIG
PKG_CHECK_MODULES([PROXIMA], [proxima >= m4_default([$1], [0.1.0])])
AC_ARG_WITH([proxima-plugindir],
  [AS_HELP_STRING([--with-proxima-plugindir=DIR],
                  [install the plugins in DIR (default: proxima's plugindir from pkg-config)])],
  [proximaplugindir=$withval],
  [PKG_CHECK_VAR([proximaplugindir], [proxima], [plugindir])])
AS_IF([test -z "$proximaplugindir"],
      [AC_MSG_ERROR([proxima.pc gives no plugindir: is libproxima-dev installed?])])
AC_MSG_CHECKING([where to install proxima plugins])
AC_MSG_RESULT([$proximaplugindir])
AC_SUBST([proximaplugindir])
])
