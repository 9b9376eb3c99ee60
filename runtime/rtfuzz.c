// SPDX-License-Identifier: GPL-2.0
/*
 * rtfuzz - init of harness fuzz's initramfs: Debian's trinity and
 * stress-ng on the memory-management system calls, for a bounded time.
 *
 * The kernel is the runtime test's (configs/runtime/NAME.config, its
 * debug options and its panic on oops); harness fuzz copies the two
 * programs and their libraries from Debian's packages into the
 * initramfs (scripts/fetch-fuzzers.sh).  Both kernels of a comparison
 * get the same seed and the same times on the command line:
 *
 *	rt.seed=N          trinity's -s and stress-ng's --seed
 *	rt.trinity=SECS    how long trinity runs (then SIGINT, SIGKILL 20 s on)
 *	rt.stressng=SECS   stress-ng's --timeout (SIGINT five minutes on)
 *	rt.children=N      trinity's children
 *
 * trinity runs as root (--dangerous), only on the calls listed in
 * TRINITY_CALLS, with the fd providers that need what these kernels do
 * not have (sockets, perf, drm) turned off.  It does not fork or clone
 * itself; fork and exit are covered by stress-ng's fork and mmapfork
 * stressors, and by the runtime test.  With several children the call
 * streams are not the same from boot to boot: what is compared, base
 * against series, is the kernel reports over the same time, which
 * harness fuzz reads from the console.
 *
 * Lines:
 *	RT: fuzz trinity PASS|FAIL <syscalls done, seed, time>
 *	RT: fuzz stress-ng PASS|FAIL <exit status, what failed>
 * then RT-DONE.  It includes rtinit.c for its set-up and helpers, as
 * rtbench and rtfault do.
 */
#define main rtinit_main
#include "rtinit.c"
#undef main

#define TRINITY		"/usr/bin/trinity"
#define STRESSNG	"/usr/bin/stress-ng"
#define OUT_FILE	"/tmp/fuzz.out"

/* The memory-management calls trinity fuzzes (userfaultfd is not built). */
static const char *const trinity_calls[] = {
	"mmap", "munmap", "mremap", "mprotect", "madvise", "mlock", "munlock",
	"mlockall", "munlockall", "brk", "msync", "mincore", "remap_file_pages",
};

/*
 * stress-ng's memory stressors: one instance each, all at once.  Eight,
 * with small regions: fifteen at once under TCG with KASAN left five of
 * them (vm, mmap, mremap, pagemove, mmapfixed) without one operation
 * done in 95 s, and stress-ng needed 70 s more than its --timeout to
 * stop them.
 */
static const char *const stressors[] = {
	"vm", "mmap", "mremap", "madvise", "mprotect", "mmapfork", "pagemove", "fork",
};

static long cmdline_long(const char *key, long def)
{
	char buf[32];

	return cmdline_value(key, buf, sizeof(buf)) ? strtol(buf, NULL, 0) : def;
}

/*
 * Run ARGV in a process group of its own with its output in OUT_FILE,
 * SIGINT to the group after SECS seconds and SIGKILL GRACE seconds
 * later, so that no child of it fuzzes on into the next program;
 * returns the wait status, -1 if it did not start.  A process stuck in
 * the kernel keeps it waiting: the boot's timeout then fails the run.
 */
static int run_bounded(char *const argv[], int secs, int grace)
{
	double deadline = now() + secs;
	int st, signalled = 0;
	pid_t c = fork();

	if (c == 0) {
		int fd = open(OUT_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		setpgid(0, 0);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	if (c < 0)
		return -1;
	setpgid(c, c);
	for (;;) {
		pid_t r = waitpid(c, &st, WNOHANG);

		if (r == c) {
			/* what the group left behind, if anything */
			kill(-c, SIGKILL);
			return st;
		}
		if (r < 0)
			return -1;
		if (!signalled && now() > deadline) {
			kill(-c, SIGINT);
			signalled = 1;
			deadline = now() + grace;
		} else if (signalled == 1 && now() > deadline) {
			kill(-c, SIGKILL);
			signalled = 2;
		}
		usleep(200000);
	}
}

/* Print the last LINES lines of OUT_FILE as RT-INFO, and find KEY in it. */
static const char *tail_output(const char *tag, int lines, const char *key,
			       char *found, size_t flen)
{
	static char buf[1 << 16];
	int fd = open(OUT_FILE, O_RDONLY), n = 0;
	ssize_t got;
	off_t size;
	char *p, *start;

	found[0] = 0;
	if (fd < 0)
		return NULL;
	size = lseek(fd, 0, SEEK_END);
	lseek(fd, size > (off_t)sizeof(buf) - 1 ? size - (off_t)sizeof(buf) + 1 : 0, SEEK_SET);
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return NULL;
	buf[got] = 0;
	if (key) {
		/* the last line that holds KEY */
		for (p = buf; (p = strstr(p, key)); p++) {
			char *e = strchr(p, '\n');

			snprintf(found, flen, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
		}
	}
	if (!lines)
		return found;
	for (start = buf + got; start > buf && n <= lines; start--)
		if (start[-1] == '\n')
			n++;
	for (p = strtok(start, "\n"); p; p = strtok(NULL, "\n"))
		out("RT-INFO: %s: %s", tag, p);
	return found;
}

static void test_trinity(long seed, int secs, int children)
{
	char *argv[64], sbuf[32], cbuf[16], ran[256], why[256];
	int i, n = 0, st;
	size_t k;
	double t0 = now();

	if (access(TRINITY, X_OK)) {
		result("fuzz", "trinity", "FAIL", "no %s in the initramfs", TRINITY);
		return;
	}
	snprintf(sbuf, sizeof(sbuf), "%ld", seed);
	snprintf(cbuf, sizeof(cbuf), "%d", children);
	argv[n++] = TRINITY;
	argv[n++] = "--dangerous";
	argv[n++] = "-q";
	argv[n++] = "-l";
	argv[n++] = "off";
	argv[n++] = "--disable-fds=sockets,perf,drm";
	argv[n++] = "-s";
	argv[n++] = sbuf;
	argv[n++] = "-C";
	argv[n++] = cbuf;
	for (k = 0; k < sizeof(trinity_calls) / sizeof(trinity_calls[0]); k++) {
		argv[n++] = "-c";
		argv[n++] = (char *)trinity_calls[k];
	}
	argv[n] = NULL;
	st = run_bounded(argv, secs, 20);
	tail_output("trinity", 12, "Bailing main loop because ", why, sizeof(why));
	tail_output("trinity", 0, "Ran ", ran, sizeof(ran));
	i = ran[0] ? atoi(ran + 4) : 0;
	/*
	 * trinity stops its main loop on our SIGINT ("because ctrl-c"); any
	 * other reason (its own watchdog finding a lock held by a child that
	 * is gone, a tainted kernel) ended the fuzzing before its time.
	 */
	if (st == -1 || (WIFEXITED(st) && WEXITSTATUS(st) >= 126))
		result("fuzz", "trinity", "FAIL", "did not start (status %#x)", st);
	else
		result("fuzz", "trinity", i > 0 && strstr(why, "ctrl-c") ? "PASS" : "FAIL",
		       "%s; %s; seed %ld, %d children, %.0f s of %d, status %#x",
		       ran[0] ? ran : "no 'Ran N syscalls' line", why[0] ? why : "no reason given",
		       seed, children, now() - t0, secs, st);
}

static void test_stressng(long seed, int secs)
{
	char *argv[80], sbuf[32], tbuf[32], line[256];
	int n = 0, st;
	size_t k;
	double t0 = now();

	if (access(STRESSNG, X_OK)) {
		result("fuzz", "stress-ng", "FAIL", "no %s in the initramfs", STRESSNG);
		return;
	}
	snprintf(sbuf, sizeof(sbuf), "%ld", seed);
	snprintf(tbuf, sizeof(tbuf), "%ds", secs);
	argv[n++] = STRESSNG;
	for (k = 0; k < sizeof(stressors) / sizeof(stressors[0]); k++) {
		static char opt[sizeof(stressors) / sizeof(stressors[0])][32];

		snprintf(opt[k], sizeof(opt[k]), "--%s", stressors[k]);
		argv[n++] = opt[k];
		argv[n++] = "1";
	}
	argv[n++] = "--vm-bytes";
	argv[n++] = "16M";
	argv[n++] = "--mmap-bytes";
	argv[n++] = "4M";
	argv[n++] = "--verify";
	argv[n++] = "--metrics-brief";
	argv[n++] = "--seed";
	argv[n++] = sbuf;
	argv[n++] = "--timeout";
	argv[n++] = tbuf;
	argv[n] = NULL;
	/*
	 * stress-ng stops itself at --timeout, and then waits for its
	 * stressors to finish their operation: on arm64 under TCG with
	 * KASAN it was still waiting 3 minutes on (SIGINT at 2, SIGKILL at
	 * 3).  SIGINT only five minutes on, SIGKILL two more.
	 */
	st = run_bounded(argv, secs + 300, 120);
	tail_output("stress-ng", 24, "failed", line, sizeof(line));
	/*
	 * 0: every stressor passed; 2: one failed (a --verify mismatch
	 * among them); 3: one could not start for lack of a resource; 4:
	 * one is not implemented on this system.
	 */
	if (WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 3 ||
			      WEXITSTATUS(st) == 4))
		result("fuzz", "stress-ng", "PASS", "exit %d; %d stressors, seed %ld, %.0f s",
		       WEXITSTATUS(st), (int)(sizeof(stressors) / sizeof(stressors[0])), seed,
		       now() - t0);
	else
		result("fuzz", "stress-ng", "FAIL", "status %#x: %s", st,
		       line[0] ? line : "see RT-INFO lines");
}

int main(int argc, char **argv)
{
	long seed;

	(void)argc;
	(void)argv;
	setup();
	seed = cmdline_long("rt.seed", 1);
	mkdir("/tmp", 01777);
	if (chdir("/tmp"))
		out("RT-INFO: chdir /tmp: %s", strerror(errno));
	out("RT-TEST: trinity");
	test_trinity(seed, cmdline_long("rt.trinity", 120), cmdline_long("rt.children", 4));
	out("RT-TEST: stress-ng");
	test_stressng(seed, cmdline_long("rt.stressng", 60));
	out("RT-DONE");
	sync();
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}
