# Sourced by the bench/dist*.sh scripts after env.sh: Open MPI allowed to
# run as root, $prog the build's proxima-mpi (or exit 2 when configure
# found no MPI or METIS) and $tmp a scratch directory removed on exit.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
prog="$build/mpi/proxima-mpi"
[ -x "$prog" ] || { echo "$0: $prog is not built (configure found no MPI or METIS)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
