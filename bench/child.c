/* bench/child.c: a measurement in a forked child under a wall clock and a
 * memory cap (child.h). The child sets RLIMIT_AS, runs the function and
 * writes its verdict (one byte), then its output, into a pipe; a crash
 * handler writes the verdict of a fatal signal. The parent reads the pipe
 * until the cap and kills the child with SIGKILL at the cap: a solver in
 * a loop that asks no clock (a peer's) stops there too. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"

/* The child's end of the pipe, for on_crash: a signal handler reaches
 * nothing else. Set in the child only, after the fork. */
static int crash_fd = -1;

static void on_crash(int sig)
{
	/* a failed allocation leaves errno ENOMEM: a crash right after one
	 * (a NULL dereferenced, std::bad_alloc's abort) is out of memory */
	const char why = errno == ENOMEM ? CHILD_MEMORY : CHILD_CRASH;
	const ssize_t w = write(crash_fd, &why, 1);

	(void)w; /* if it fails, the parent sees a crash without a word */
	signal(sig, SIG_DFL);
	raise(sig);
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		const ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

static _Noreturn void child(int fd, child_fn fn, void *ctx, void *out,
			    size_t len, double mem_gib)
{
	static const int fatal[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
	const rlim_t cap = (rlim_t)(mem_gib * 1073741824.0);
	const struct rlimit rl = {cap, cap};
	char why;

	crash_fd = fd;
	for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++)
		signal(fatal[i], on_crash);
	if (mem_gib > 0 && setrlimit(RLIMIT_AS, &rl) != 0)
		_exit(1);
	why = (char)fn(ctx, out);
	if (write_all(fd, &why, 1) ||
	    (why == CHILD_OK && write_all(fd, out, len)))
		_exit(1);
	_exit(0);
}

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Read from fd into buf (up to cap bytes, *got so far) until EOF or the
 * clock reaches deadline. Returns 1 at EOF, 0 at the deadline. */
static int read_until(int fd, char *buf, size_t cap, size_t *got,
		      double deadline)
{
	for (;;) {
		const double left = deadline - wall();
		struct pollfd pfd = {fd, POLLIN, 0};
		char sink[256];
		ssize_t r;
		int rc;

		if (left <= 0)
			return 0;
		rc = poll(&pfd, 1, (int)(left * 1000.0) + 1);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc == 0)
			continue; /* the deadline is checked above */
		if (rc < 0)
			return 1;
		/* bytes past cap (a child that wrote more) are dropped */
		r = *got < cap ? read(fd, buf + *got, cap - *got)
			       : read(fd, sink, sizeof sink);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 1;
		if (*got < cap)
			*got += (size_t)r;
	}
}

int child_run(child_fn fn, void *ctx, void *out, size_t len,
	      const struct child_caps *caps, struct child_report *rep)
{
	char buf[1 + 4096];
	size_t got = 0;
	struct rusage ru;
	int fds[2], status = 0, done;
	double t0;
	pid_t pid;

	memset(rep, 0, sizeof *rep);
	if (len > sizeof buf - 1 || pipe(fds) != 0)
		return -1;
	fflush(stdout);
	fflush(stderr);
	t0 = wall();
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		child(fds[1], fn, ctx, out, len, caps->mem_gib);
	}
	close(fds[1]);
	done = read_until(fds[0], buf, 1 + len, &got, t0 + caps->wall);
	if (!done) {
		rep->killed_at = wall() - t0;
		kill(pid, SIGKILL);
	}
	while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	close(fds[0]);
	rep->seconds = wall() - t0;
	rep->peak_mib = (double)ru.ru_maxrss / 1024.0;
	rep->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	if (!done)
		rep->why = CHILD_TIME;
	else if (got == 0 || buf[0] < CHILD_OK || buf[0] > CHILD_ERROR ||
		 (buf[0] == CHILD_OK && got < 1 + len))
		rep->why = CHILD_CRASH;
	else
		rep->why = buf[0];
	if (rep->why == CHILD_OK)
		memcpy(out, buf + 1, len);
	return 0;
}

const char *child_why_name(int why)
{
	static const char *const name[] = {"-", "time", "memory", "crash",
					   "error"};

	return why >= CHILD_OK && why <= CHILD_ERROR ? name[why] : "?";
}
