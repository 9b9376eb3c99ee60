// SPDX-License-Identifier: GPL-2.0
/*
 * rtinit - init and stress program of the runtime test.
 *
 * It runs as /init of a small initramfs under QEMU.  It mounts what the
 * tests need, runs the tests named by "rt.tests=" on the kernel command
 * line (default: all), each in its own child process, and prints one
 * machine-readable line per check:
 *
 *	RT: <test> <check> PASS|FAIL|SKIP <detail>
 *
 * and "RT-DONE" at the end, then reboots (QEMU runs with -no-reboot, so
 * it exits).  The host side (scripts/boot-test.py) reads those lines and
 * the rest of the console.
 *
 * Tests:
 *  pt      page tables: processes and threads that map, touch, mprotect,
 *          mremap and munmap across PMD and PUD boundaries, fork with
 *          copy-on-write, THP faults and splits, hugetlb (shared, so PMD
 *          tables are shared where the arch does that), inside a memcg
 *          with a limit; PageTables in /proc/meminfo must come back.
 *  zram    zsmalloc through zram0: blocks of several compressibility
 *          classes, per-block checksums, overwrite and discard, zram and
 *          system compaction, everything read back; mm_stat is reported
 *          and a run without zsmalloc compaction fails.
 *  swap    zram1 as swap for a memcg with a limit: anonymous memory
 *          round-trips through zsmalloc and is verified.
 *  bench   microbenchmarks (only when named): fork+exit, 2 MiB
 *          mmap/touch/munmap, fault throughput, zram write/read.
 *  kselftest  runs /kselftest/<name> binaries if the initramfs has them.
 *
 * Every data pattern is derived from a seed, so a mismatch names the
 * block or page and the expected value.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MAP_HUGETLB
#define MAP_HUGETLB 0x40000
#endif
#ifndef MADV_HUGEPAGE
#define MADV_HUGEPAGE 14
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static long page_size;
static unsigned long pmd_span;	/* address span of one PTE table */
static unsigned long pud_span;	/* address span of one PMD table, 0 if folded */
static unsigned long hpage_size;	/* hugetlb default size, 0 if none */
static char cmdline[4096];
static int failures;

/* ---------------------------------------------------------------- output */

static void out(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	/* one write per line, so lines of concurrent children do not mix */
	if (write(1, buf, n) < 0)
		_exit(2);
}

static void result(const char *test, const char *check, const char *verdict,
		   const char *fmt, ...)
{
	char detail[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (!strcmp(verdict, "FAIL"))
		failures++;
	out("RT: %s %s %s %s", test, check, verdict, detail);
}

#define die_errno(what) do {						\
	out("RT-INFO: %s errno %d (%s) at %s:%d", what, errno, strerror(errno),	\
	    __FILE__, __LINE__);						\
	_exit(3);							\
} while (0)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ----------------------------------------------------------- sysfs etc. */

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

/* value of "Key:" in a /proc file such as meminfo or vmstat ("key value") */
static long long proc_value(const char *path, const char *key)
{
	static char buf[65536];
	size_t klen = strlen(key);
	char *p;

	if (read_file(path, buf, sizeof(buf)))
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, klen) && (p[klen] == ':' || p[klen] == ' '))
			return strtoll(p + klen + 1, NULL, 10);
	}
	return -1;
}

static long long page_tables_kb(void)
{
	write_file("/proc/sys/vm/stat_refresh", "1");
	return proc_value("/proc/meminfo", "PageTables");
}

/*
 * With CONFIG_SEPARATE_PTDESC (patches/ptdesc-rfc) every page table has
 * a descriptor in the "ptdesc" slab cache, booted with slab_nomerge so
 * that the cache holds nothing else.  Its objects in use, after a shrink
 * has flushed the per-cpu slabs (whose free objects SLUB counts as in
 * use); -1 without such a cache, as in every other kernel.
 */
static long long ptdesc_objects(void)
{
	char buf[64];

	if (write_file("/sys/kernel/slab/ptdesc/shrink", "1") ||
	    read_file("/sys/kernel/slab/ptdesc/objects", buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 10);
}

/*
 * READ's value once it is down to TARGET, or after SECS seconds, the
 * last one read: the page tables of exited processes, and with them
 * their descriptors, may wait for an RCU grace period before they are
 * freed.
 */
static long long wait_down_to(long long (*read)(void), long long target, double secs)
{
	double deadline = now() + secs;
	long long v;

	for (;;) {
		v = read();
		if (v <= target || now() >= deadline)
			return v;
		usleep(250000);
	}
}

/*
 * PageTables once it has stopped moving: page tables of processes that
 * already exited may still be waiting for an RCU grace period (s390
 * frees its 2K PTE fragments that way), and they must not be counted as
 * the starting value.  Gives up after 10 s and returns the last value.
 */
static long long settled_page_tables_kb(void)
{
	long long prev = page_tables_kb(), cur = prev;
	double deadline = now() + 10;

	while (now() < deadline) {
		usleep(500000);
		cur = page_tables_kb();
		if (cur == prev)
			break;
		prev = cur;
	}
	return cur;
}

/*
 * Architectures whose 6.1 page-table allocations are not charged to the
 * memory cgroup: s390 allocates PTE and CRST tables with GFP_KERNEL, and
 * m68k's Motorola MMU carves them out of GFP_KERNEL pages.  The memcg's
 * pagetables counter stays 0 there, on the base as with the series.
 */
#if defined(__s390x__)
#define PGTABLES_UNCHARGED "s390 page tables are allocated without __GFP_ACCOUNT"
#elif defined(__m68k__)
#define PGTABLES_UNCHARGED "m68k page tables are allocated without __GFP_ACCOUNT"
#endif

static int cmdline_has(const char *word)
{
	char key[64];

	snprintf(key, sizeof(key), " %s ", word);
	return strstr(cmdline, key) != NULL;
}

static const char *cmdline_value(const char *key, char *buf, size_t len)
{
	char pat[64], *p, *e;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(cmdline, pat);
	if (!p)
		return NULL;
	p += strlen(pat);
	e = strchr(p, ' ');
	snprintf(buf, len, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
	return buf;
}

/* -------------------------------------------------------------- patterns */

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* The value a page-table test stores in the word at ADDR of generation GEN. */
static inline unsigned long word_at(unsigned long addr, unsigned long gen)
{
	return (unsigned long)mix64(addr * 0x9e3779b97f4a7c15ULL + gen) | 1;
}

static uint64_t checksum(const void *p, size_t len)
{
	const unsigned char *c = p;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;
	return h;
}

/*
 * Fill one zram block.  CLS picks the share of random 16-byte chunks in
 * percent: the rest repeat a short non-zero byte pattern, so every class
 * compresses to a different size and no block is same-filled (zram would
 * keep those out of zsmalloc).  Class 100 is incompressible and goes to
 * huge zspages.
 */
static const int zram_classes[] = { 5, 20, 35, 50, 65, 100 };
#define NR_CLASSES (int)(sizeof(zram_classes) / sizeof(zram_classes[0]))

static void fill_block(unsigned char *buf, size_t len, uint64_t block,
		       uint64_t gen, int pct)
{
	uint64_t s = mix64(block * 0x9e3779b97f4a7c15ULL ^ (gen << 48) ^ 0x5a5a);
	size_t i, j;

	for (i = 0; i < len; i += 16) {
		s = mix64(s + i);
		if ((int)(s % 100) < pct) {
			uint64_t a = mix64(s ^ 1), b = mix64(s ^ 2);

			memcpy(buf + i, &a, 8);
			memcpy(buf + i + 8, &b, 8);
		} else {
			for (j = 0; j < 16; j++)
				buf[i + j] = (unsigned char)(0x11 + ((block + j + (i >> 4) % 5) & 0x3f));
		}
	}
}

/* ------------------------------------------------------------- cgroups */

static int memcg_ok;

static void setup_cgroup(void)
{
	char buf[256];

	mkdir("/sys/fs/cgroup", 0755);
	if (mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL) && errno != EBUSY)
		return;
	if (read_file("/sys/fs/cgroup/cgroup.controllers", buf, sizeof(buf)) ||
	    !strstr(buf, "memory"))
		return;
	if (write_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory"))
		return;
	memcg_ok = 1;
}

/* Create cgroup NAME with memory.max MAX and move the caller into it. */
static int enter_memcg(const char *name, const char *max, const char *swapmax)
{
	char path[256], pid[32];

	if (!memcg_ok)
		return -1;
	snprintf(path, sizeof(path), "/sys/fs/cgroup/%s", name);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -1;
	snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/memory.max", name);
	if (write_file(path, max))
		return -1;
	if (swapmax) {
		snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/memory.swap.max", name);
		write_file(path, swapmax);
	}
	snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/cgroup.procs", name);
	snprintf(pid, sizeof(pid), "%d", getpid());
	return write_file(path, pid);
}

static long long memcg_stat(const char *name, const char *key)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/memory.stat", name);
	return proc_value(path, key);
}

/* --------------------------------------------------- page-table stress */

struct ptworker {
	int id;
	int rounds;
	int bad;
	char what[160];
};

/* Reserve LEN bytes of address space aligned to ALIGN, PROT_NONE. */
static char *reserve(unsigned long len, unsigned long align)
{
	char *p = mmap(NULL, len + align, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	unsigned long a;

	if (p == MAP_FAILED)
		return NULL;
	a = ((unsigned long)p + align - 1) & ~(align - 1);
	if (a > (unsigned long)p)
		munmap(p, a - (unsigned long)p);
	munmap((char *)a + len, (unsigned long)p + len + align - a - len);
	return (char *)a;
}

/* Touch one word per page in [p, p + len) with generation GEN. */
static void touch(char *p, unsigned long len, unsigned long step, unsigned long gen)
{
	unsigned long off;

	for (off = 0; off < len; off += step)
		*(unsigned long *)(p + off) = word_at((unsigned long)(p + off), gen);
}

/*
 * Check the words touch() wrote; BASE is the address the data was
 * written at (before an mremap), P where it is now.
 */
static int verify(const char *p, unsigned long base, unsigned long len,
		  unsigned long step, unsigned long gen, char *what, size_t wlen,
		  const char *ctx)
{
	unsigned long off;

	for (off = 0; off < len; off += step) {
		unsigned long want = word_at(base + off, gen);
		unsigned long have = *(const unsigned long *)(p + off);

		if (have != want) {
			snprintf(what, wlen, "%s: word at +%#lx is %#lx, expected %#lx",
				 ctx, off, have, want);
			return -1;
		}
	}
	return 0;
}

/*
 * One round of a worker: a region that straddles a PUD boundary (or a
 * PMD boundary on arches without one), touched sparsely so that it needs
 * many PTE tables, then mprotect, mremap and partial munmap.
 */
static int pt_round(struct ptworker *w, unsigned long gen)
{
	/*
	 * 16 PTE tables, or 8 where no PUD boundary is used (32-bit, 64K
	 * pages): there each of three threads maps three times the
	 * region's span for a moment, and m68k's whole mmap area is
	 * 768 MiB.
	 */
	unsigned long len = pmd_span * (pud_span ? 16 : 8);
	unsigned long span = pud_span ? pud_span : len * 2;
	/*
	 * Every third page, but with 64K pages and large tables (powerpc
	 * hash) at most 16 pages per table: 12 workers touching every
	 * third 64K page of 256 MiB each overran the memcg's 256 MiB.
	 */
	unsigned long step = page_size > 16384 && pmd_span / 16 > page_size * 3 ?
			     pmd_span / 16 : page_size * 3;
	char *res, *p, *q, *dst;

	/* reserve 2 spans, place the region across the boundary between them */
	res = reserve(2 * span, span);
	if (!res) {
		snprintf(w->what, sizeof(w->what), "reserve %lu MiB: %s",
			 2 * span >> 20, strerror(errno));
		return -1;
	}
	p = res + span - len / 2 - page_size * (w->id + 1);
	if (mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) != p) {
		snprintf(w->what, sizeof(w->what), "mmap: %s", strerror(errno));
		return -1;
	}
	/* small pages only: the point is many PTE tables */
	madvise(p, len, 15 /* MADV_NOHUGEPAGE */);
	touch(p, len, step, gen);
	if (verify(p, (unsigned long)p, len, step, gen, w->what, sizeof(w->what), "touch"))
		return -1;

	/* mprotect a middle part read-only and back */
	if (mprotect(p + pmd_span, pmd_span * 4, PROT_READ) ||
	    verify(p, (unsigned long)p, len, step, gen, w->what, sizeof(w->what), "mprotect ro") ||
	    mprotect(p + pmd_span, pmd_span * 4, PROT_READ | PROT_WRITE)) {
		if (!w->what[0])
			snprintf(w->what, sizeof(w->what), "mprotect: %s", strerror(errno));
		return -1;
	}

	/* mremap the whole region to an odd offset in the other half */
	dst = res + (w->id & 1 ? 0 : span + len) + page_size * 7;
	if (dst + len > res + 2 * span)
		dst = res + page_size * 7;
	q = mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	if (q == MAP_FAILED) {
		snprintf(w->what, sizeof(w->what), "mremap: %s", strerror(errno));
		return -1;
	}
	if (verify(q, (unsigned long)p, len, step, gen, w->what, sizeof(w->what), "mremap"))
		return -1;

	/* punch holes of a PMD span, then unmap everything */
	munmap(q + pmd_span * 2, pmd_span);
	if (verify(q, (unsigned long)p, pmd_span * 2, step, gen, w->what, sizeof(w->what),
		   "after partial munmap"))
		return -1;
	munmap(res, 2 * span);
	return 0;
}

static void *pt_thread(void *arg)
{
	struct ptworker *w = arg;
	int r;

	for (r = 0; r < w->rounds; r++) {
		if (pt_round(w, r + 1)) {
			w->bad = 1;
			break;
		}
	}
	return NULL;
}

/* fork with copy-on-write: the child's writes must not leak into the parent */
static int pt_cow(char *what, size_t wlen)
{
	unsigned long len = pmd_span * 4, step = page_size;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int st;
	pid_t c;

	if (p == MAP_FAILED) {
		snprintf(what, wlen, "mmap: %s", strerror(errno));
		return -1;
	}
	touch(p, len, step, 1);
	c = fork();
	if (c < 0) {
		snprintf(what, wlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (c == 0) {
		char w[160] = "";

		if (verify(p, (unsigned long)p, len, step, 1, w, sizeof(w), "child before write"))
			_exit(1);
		touch(p, len / 2, step, 2);
		if (verify(p, (unsigned long)p, len / 2, step, 2, w, sizeof(w), "child after write") ||
		    verify(p + len / 2, (unsigned long)p + len / 2, len / 2, step, 1, w, sizeof(w),
			   "child untouched half"))
			_exit(1);
		_exit(0);
	}
	if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(what, wlen, "cow child failed (status %#x)", st);
		return -1;
	}
	if (verify(p, (unsigned long)p, len, step, 1, what, wlen, "parent after child wrote"))
		return -1;
	munmap(p, len);
	return 0;
}

/* THP: fault huge pages, then split them with a partial MADV_DONTNEED */
static int pt_thp(char *what, size_t wlen, long long *thp_kb)
{
	unsigned long huge = pmd_span, len = huge * 4, off;
	char *p = reserve(len, huge);

	*thp_kb = 0;
	if (!p)
		return snprintf(what, wlen, "reserve: %s", strerror(errno)), -1;
	if (mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) != p)
		return snprintf(what, wlen, "mmap: %s", strerror(errno)), -1;
	madvise(p, len, MADV_HUGEPAGE);
	touch(p, len, page_size, 5);
	*thp_kb = proc_value("/proc/meminfo", "AnonHugePages");
	/* drop one small page in every huge page: each PMD mapping splits */
	for (off = 0; off < len; off += huge)
		madvise(p + off + page_size * 3, page_size, MADV_DONTNEED);
	for (off = 0; off < len; off += page_size) {
		unsigned long have = *(unsigned long *)(p + off);
		int dropped = (off % huge) == (unsigned long)page_size * 3;
		unsigned long want = dropped ? 0 : word_at((unsigned long)(p + off), 5);

		if (have != want)
			return snprintf(what, wlen, "thp split: +%#lx is %#lx, expected %#lx",
					off, have, want), -1;
	}
	munmap(p, len);
	return 0;
}

/*
 * hugetlb, shared between parent and child.  Where the region covers a
 * whole aligned PUD span, the arch shares the PMD table (pt_share_count).
 */
static int pt_hugetlb(char *what, size_t wlen)
{
	unsigned long len = pud_span && sizeof(long) == 8 ? pud_span : hpage_size * 4;
	unsigned long off;
	char *res, *p;
	int st, n = 0;
	pid_t c;

	res = reserve(len, pud_span && sizeof(long) == 8 ? pud_span : hpage_size);
	if (!res)
		return snprintf(what, wlen, "reserve: %s", strerror(errno)), -1;
	munmap(res, len);
	p = mmap(res, len, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
		 -1, 0);
	if (p == MAP_FAILED)
		return snprintf(what, wlen, "mmap hugetlb %lu MiB: %s", len >> 20,
				strerror(errno)), -1;
	/* four huge pages spread over the region */
	for (off = 0; off < len && n < 4; off += len / 4, n++)
		touch(p + off, hpage_size, page_size * 5, 7);
	c = fork();
	if (c == 0) {
		char w[160];

		n = 0;
		for (off = 0; off < len && n < 4; off += len / 4, n++) {
			if (verify(p + off, (unsigned long)p + off, hpage_size, page_size * 5, 7,
				   w, sizeof(w), "hugetlb child"))
				_exit(1);
			touch(p + off, hpage_size, page_size * 5, 8);
		}
		_exit(0);
	}
	if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st))
		return snprintf(what, wlen, "hugetlb child failed"), -1;
	/* shared: the parent sees the child's generation */
	n = 0;
	for (off = 0; off < len && n < 4; off += len / 4, n++)
		if (verify(p + off, (unsigned long)p + off, hpage_size, page_size * 5, 8,
			   what, wlen, "hugetlb parent"))
			return -1;
	munmap(p, len);
	return 0;
}

static void pt_child_workload(int id, int rounds, int threads)
{
	struct ptworker w[8];
	pthread_t t[8];
	int i, bad = 0;

	memset(w, 0, sizeof(w));
	for (i = 0; i < threads; i++) {
		w[i].id = id * 8 + i;
		w[i].rounds = rounds;
		if (pthread_create(&t[i], NULL, pt_thread, &w[i]))
			die_errno("pthread_create");
	}
	for (i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		if (w[i].bad) {
			out("RT-INFO: pt worker %d.%d: %s", id, i, w[i].what);
			bad = 1;
		}
	}
	_exit(bad);
}

/*
 * Run FN in a child process, so that the page tables of the process that
 * measures PageTables never change; returns the number of failed checks.
 */
static int in_child(void (*fn)(void))
{
	int st;
	pid_t c = fork();

	if (c == 0) {
		fn();
		_exit(failures ? 1 : 0);
	}
	if (c < 0 || waitpid(c, &st, 0) != c)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static void pt_warmup(void)
{
	struct ptworker w = { .id = 0, .rounds = 1 };

	pt_thread(&w);
	_exit(w.bad);
}

static void pt_cow_check(void)
{
	char what[256] = "";

	if (pt_cow(what, sizeof(what)))
		result("pt", "fork-cow", "FAIL", "%s", what);
	else
		result("pt", "fork-cow", "PASS", "child wrote half of %lu KiB, parent unchanged",
		       pmd_span * 4 >> 10);
}

static void pt_thp_check(void)
{
	char what[256] = "";
	long long thp_kb;

	if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK))
		result("pt", "thp", "SKIP", "kernel without THP");
	else if (pt_thp(what, sizeof(what), &thp_kb))
		result("pt", "thp", "FAIL", "%s", what);
	else
		result("pt", "thp", thp_kb > 0 ? "PASS" : "FAIL",
		       "AnonHugePages %lld kB after faults, every PMD split and verified", thp_kb);
}

static void pt_hugetlb_check(void)
{
	char what[256] = "";

	if (!hpage_size)
		result("pt", "hugetlb", "SKIP", "kernel without hugetlbfs");
	else if (write_file("/proc/sys/vm/nr_hugepages", "8") ||
		 proc_value("/proc/meminfo", "HugePages_Total") < 4)
		result("pt", "hugetlb", "SKIP", "could not reserve 4 huge pages");
	else if (pt_hugetlb(what, sizeof(what)))
		result("pt", "hugetlb", "FAIL", "%s", what);
	else
		result("pt", "hugetlb", "PASS",
		       "shared %lu kB pages over %lu MiB, fork, child writes, parent sees",
		       hpage_size >> 10,
		       (pud_span && sizeof(long) == 8 ? pud_span : hpage_size * 4) >> 20);
}

static void test_pt(void)
{
	int procs = 4, threads = 3, rounds = 3, i, bad = 0, st;
	long long before, after, pgtable_charged = -1, desc_before, desc_after;
	double t0 = now();
	pid_t pids[16];

	/* a warm-up round first, so one-time kernel tables are in place */
	in_child(pt_warmup);
	before = settled_page_tables_kb();
	desc_before = ptdesc_objects();

	if (enter_memcg("ptstress", "256M", NULL) == 0)
		out("RT-INFO: pt: workers in a memcg with memory.max=256M");
	else
		result("pt", "memcg", "SKIP", "no memory cgroup (cgroup2 memory controller missing)");

	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			pt_child_workload(i, rounds, threads);
		if (pids[i] < 0)
			die_errno("fork");
	}
	/* sample the memcg's page-table charge while the workers run */
	if (memcg_ok) {
		usleep(200000);
		pgtable_charged = memcg_stat("ptstress", "pagetables");
	}
	for (i = 0; i < procs; i++) {
		if (waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) || WEXITSTATUS(st)) {
			if (WIFSIGNALED(st))
				out("RT-INFO: pt process %d killed by signal %d", i, WTERMSIG(st));
			bad++;
		}
	}
	if (bad)
		result("pt", "map-mprotect-mremap-munmap", "FAIL",
		       "%d of %d processes failed (see RT-INFO lines)", bad, procs);
	else
		result("pt", "map-mprotect-mremap-munmap", "PASS",
		       "%d processes x %d threads x %d rounds, PTE table %lu KiB, PMD table %lu MiB",
		       procs, threads, rounds, pmd_span >> 10, pud_span >> 20);
#ifdef PGTABLES_UNCHARGED
	if (pgtable_charged >= 0)
		result("pt", "memcg-charge", "SKIP", "%s (memory.stat pagetables %lld bytes)",
		       PGTABLES_UNCHARGED, pgtable_charged);
#else
	if (pgtable_charged >= 0)
		result("pt", "memcg-charge", pgtable_charged > 0 ? "PASS" : "FAIL",
		       "memory.stat pagetables %lld bytes while running", pgtable_charged);
#endif

	failures += in_child(pt_cow_check);
	failures += in_child(pt_thp_check);
	failures += in_child(pt_hugetlb_check);
	write_file("/proc/sys/vm/nr_hugepages", "0");

	after = wait_down_to(page_tables_kb, before, 15);
	result("pt", "pagetables-leak", after == before ? "PASS" : "FAIL",
	       "PageTables %lld kB before, %lld kB after (%.1f s)", before, after, now() - t0);
	if (desc_before < 0)
		return;
	desc_after = wait_down_to(ptdesc_objects, desc_before, 15);
	result("pt", "ptdesc-cache", desc_after == desc_before ? "PASS" : "FAIL",
	       "ptdesc objects %lld before, %lld after", desc_before, desc_after);
}

/* --------------------------------------------------------------- zram */

struct zram_stat {
	long long orig, compr, used, limit, used_max, same, compacted, huge, huge_since;
};

static int zram_mm_stat(const char *dev, struct zram_stat *s)
{
	char path[128], buf[512];

	snprintf(path, sizeof(path), "/sys/block/%s/mm_stat", dev);
	memset(s, 0, sizeof(*s));
	if (read_file(path, buf, sizeof(buf)))
		return -1;
	return sscanf(buf, "%lld %lld %lld %lld %lld %lld %lld %lld %lld", &s->orig,
		      &s->compr, &s->used, &s->limit, &s->used_max, &s->same,
		      &s->compacted, &s->huge, &s->huge_since) >= 7 ? 0 : -1;
}

/* Set up /dev/NAME with DISKSIZE bytes; returns 0 on success. */
static int zram_setup(const char *dev, unsigned long long disksize)
{
	char path[128], buf[64];
	int i;

	snprintf(path, sizeof(path), "/sys/block/%s/reset", dev);
	if (access(path, F_OK)) {
		/* a further device: hot_add prints its number */
		if (read_file("/sys/class/zram-control/hot_add", buf, sizeof(buf)))
			return -1;
	}
	write_file(path, "1");
	snprintf(path, sizeof(path), "/sys/block/%s/disksize", dev);
	snprintf(buf, sizeof(buf), "%llu", disksize);
	if (write_file(path, buf))
		return -1;
	snprintf(path, sizeof(path), "/dev/%s", dev);
	for (i = 0; i < 50 && access(path, F_OK); i++)
		usleep(20000);
	return access(path, F_OK);
}

static int zram_rw(int fd, int wr, unsigned char *buf, uint64_t block)
{
	off_t off = (off_t)block * page_size;
	ssize_t n = wr ? pwrite(fd, buf, page_size, off) : pread(fd, buf, page_size, off);

	return n == page_size ? 0 : -1;
}

static int zram_discard(int fd, uint64_t block)
{
	uint64_t range[2] = { block * page_size, page_size };

	return ioctl(fd, BLKDISCARD, range);
}

/*
 * A block read back is bad unless it matches the checksum it was written
 * with; a discarded block (checksum 0) must read back as zeros.
 */
static int block_bad(const unsigned char *buf, uint64_t sum)
{
	if (sum)
		return checksum(buf, page_size) != sum;
	return buf[0] || memcmp(buf, buf + 1, page_size - 1);
}

static void test_zram(void)
{
	unsigned long long disksize = 48ULL << 20;
	uint64_t nblocks = disksize / page_size, b, *sums, gen, live;
	long long mig_before, mig_after, cmp_before, cmp_after;
	int fd, round, bad = 0, written = 0, discarded = 0, overwritten = 0;
	struct zram_stat st, st_full, st_pre, st_sparse;
	unsigned char *buf;
	double t0 = now();

	if (zram_setup("zram0", disksize)) {
		result("zram", "setup", "FAIL", "cannot set up zram0: %s", strerror(errno));
		return;
	}
	fd = open("/dev/zram0", O_RDWR | O_DIRECT);
	if (fd < 0) {
		result("zram", "setup", "FAIL", "open /dev/zram0: %s", strerror(errno));
		return;
	}
	if (posix_memalign((void **)&buf, page_size, page_size))
		die_errno("posix_memalign");
	sums = calloc(nblocks, sizeof(*sums));
	if (!sums)
		die_errno("calloc");
	mig_before = proc_value("/proc/vmstat", "pgmigrate_success");
	cmp_before = proc_value("/proc/vmstat", "compact_migrate_scanned");

	/* 1. fill every block: classes interleaved so zspages of all classes mix */
	for (b = 0; b < nblocks; b++) {
		fill_block(buf, page_size, b, 1, zram_classes[b % NR_CLASSES]);
		sums[b] = checksum(buf, page_size);
		if (zram_rw(fd, 1, buf, b))
			die_errno("zram write");
		written++;
	}
	zram_mm_stat("zram0", &st_full);
	result("zram", "fill", st_full.compr > 0 ? "PASS" : "FAIL",
	       "%llu blocks of %ld bytes in %d classes: orig %lld compr %lld used %lld same %lld huge %lld",
	       (unsigned long long)nblocks, page_size, NR_CLASSES, st_full.orig, st_full.compr,
	       st_full.used, st_full.same, st_full.huge);

	/*
	 * 2. discard three blocks in four: every zspage of every class is
	 * left mostly empty, so zsmalloc compaction has zspages to free
	 */
	for (b = 0; b < nblocks; b++) {
		if (b % 4 == 0)
			continue;
		if (zram_discard(fd, b))
			die_errno("BLKDISCARD");
		sums[b] = 0;
		discarded++;
	}
	zram_mm_stat("zram0", &st_pre);
	write_file("/sys/block/zram0/compact", "1");
	write_file("/proc/sys/vm/compact_memory", "1");
	zram_mm_stat("zram0", &st_sparse);

	/*
	 * 3. rounds of overwrites (a new class each time, so objects move
	 * between classes) and discards, each followed by zram and system
	 * compaction, with a slice verified after each round
	 */
	for (round = 0; round < 4; round++) {
		gen = round + 2;
		for (b = round; b < nblocks; b += 3) {
			if ((b / 3) % 3 == 1) {
				if (zram_discard(fd, b))
					die_errno("BLKDISCARD");
				sums[b] = 0;
				discarded++;
			} else {
				int cls = zram_classes[(b + gen) % NR_CLASSES];

				fill_block(buf, page_size, b, gen, cls);
				sums[b] = checksum(buf, page_size);
				if (zram_rw(fd, 1, buf, b))
					die_errno("zram overwrite");
				overwritten++;
			}
		}
		write_file("/sys/block/zram0/compact", "1");
		write_file("/proc/sys/vm/compact_memory", "1");
		for (b = round; b < nblocks; b += 5) {
			if (zram_rw(fd, 0, buf, b))
				die_errno("zram read");
			if (block_bad(buf, sums[b])) {
				if (bad++ < 5)
					out("RT-INFO: zram block %" PRIu64 " bad after round %d", b, round);
			}
		}
	}
	write_file("/sys/block/zram0/compact", "1");
	write_file("/proc/sys/vm/compact_memory", "1");

	/* 3. read back everything */
	for (b = 0; b < nblocks; b++) {
		if (zram_rw(fd, 0, buf, b))
			die_errno("zram read");
		if (block_bad(buf, sums[b])) {
			if (bad++ < 10)
				out("RT-INFO: zram block %" PRIu64 " bad in the final read", b);
		}
	}
	zram_mm_stat("zram0", &st);
	mig_after = proc_value("/proc/vmstat", "pgmigrate_success");
	cmp_after = proc_value("/proc/vmstat", "compact_migrate_scanned");

	result("zram", "verify", bad ? "FAIL" : "PASS",
	       "%d bad of %llu blocks; %d writes, %d overwrites, %d discards",
	       bad, (unsigned long long)nblocks, written, overwritten, discarded);
	/* zram's own accounting must match what is stored after all the moves */
	for (live = 0, b = 0; b < nblocks; b++)
		live += sums[b] != 0;
	result("zram", "mm_stat", st.orig == (long long)live * page_size ? "PASS" : "FAIL",
	       "%" PRIu64 " live blocks; orig %lld compr %lld used %lld used_max %lld same %lld pages_compacted %lld huge %lld",
	       live, st.orig, st.compr, st.used, st.used_max, st.same, st.compacted, st.huge);
	result("zram", "zs-compaction", st_sparse.compacted > 0 ? "PASS" : "FAIL",
	       "3 in 4 blocks discarded: used %lld -> %lld bytes, pages_compacted %lld; %lld at the end",
	       st_pre.used, st_sparse.used, st_sparse.compacted, st.compacted);
	result("zram", "huge-zspages", st_full.huge > 0 ? "PASS" : "FAIL",
	       "huge_pages %lld after the fill", st_full.huge);
	if (mig_before < 0)
		result("zram", "migration", "SKIP", "no pgmigrate_success in /proc/vmstat");
	else
		result("zram", "migration", mig_after > mig_before ? "PASS" : "FAIL",
		       "pgmigrate_success +%lld, compact_migrate_scanned +%lld (%.1f s)",
		       mig_after - mig_before, cmp_after - cmp_before, now() - t0);
	close(fd);
	free(sums);
	free(buf);
	write_file("/sys/block/zram0/reset", "1");
}

/* -------------------------------------------------------------- swap */

/* Write a version-1 swap header (what mkswap writes) to a block device. */
static int make_swap(const char *path, unsigned long long size)
{
	unsigned char *hdr = calloc(1, page_size);
	uint32_t v[3];
	int fd, r;

	if (!hdr)
		return -1;
	v[0] = 1;				/* version */
	v[1] = size / page_size - 1;		/* last_page */
	v[2] = 0;				/* nr_badpages */
	memcpy(hdr + 1024, v, sizeof(v));
	memcpy(hdr + page_size - 10, "SWAPSPACE2", 10);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return free(hdr), -1;
	r = pwrite(fd, hdr, page_size, 0) == page_size ? 0 : -1;
	fsync(fd);
	close(fd);
	free(hdr);
	return r;
}

static void test_swap(void)
{
	unsigned long long disksize = 128ULL << 20;
	unsigned long len = 64UL << 20, off;
	long long out_before, out_after, in_after, in_before;
	struct zram_stat st;
	int stt, bad;
	char *p;
	pid_t c;

	if (!memcg_ok) {
		result("swap", "memcg-swap", "SKIP", "no memory cgroup");
		return;
	}
	if (zram_setup("zram1", disksize) || make_swap("/dev/zram1", disksize)) {
		result("swap", "setup", "FAIL", "zram1 as swap: %s", strerror(errno));
		return;
	}
	if (swapon("/dev/zram1", 0)) {
		result("swap", "setup", "FAIL", "swapon /dev/zram1: %s", strerror(errno));
		return;
	}
	out_before = proc_value("/proc/vmstat", "pswpout");
	in_before = proc_value("/proc/vmstat", "pswpin");
	c = fork();
	if (c == 0) {
		char w[160];

		if (enter_memcg("swapstress", "24M", "max"))
			_exit(2);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(3);
		/* whole pages with a pattern, so zram neither sees zeros nor same-filled pages */
		for (off = 0; off < len; off += page_size)
			fill_block((unsigned char *)p + off, page_size, off / page_size, 9,
				   zram_classes[(off / page_size) % NR_CLASSES]);
		for (bad = 0, off = 0; off < len; off += page_size) {
			static unsigned char *ref;

			if (!ref)
				ref = malloc(page_size);
			fill_block(ref, page_size, off / page_size, 9,
				   zram_classes[(off / page_size) % NR_CLASSES]);
			if (memcmp(ref, p + off, page_size) && bad++ < 5) {
				snprintf(w, sizeof(w), "page %lu differs after swap-in",
					 off / page_size);
				out("RT-INFO: swap %s", w);
			}
		}
		_exit(bad ? 1 : 0);
	}
	if (c < 0 || waitpid(c, &stt, 0) != c) {
		result("swap", "memcg-swap", "FAIL", "child lost");
		return;
	}
	out_after = proc_value("/proc/vmstat", "pswpout");
	in_after = proc_value("/proc/vmstat", "pswpin");
	zram_mm_stat("zram1", &st);
	if (!WIFEXITED(stt) || WEXITSTATUS(stt))
		result("swap", "memcg-swap", "FAIL", "child status %#x", stt);
	else
		result("swap", "memcg-swap", out_after > out_before && in_after > in_before ? "PASS" : "FAIL",
		       "64 MiB through a 24 MiB memcg: pswpout +%lld pswpin +%lld, zram1 used_max %lld",
		       out_after - out_before, in_after - in_before, st.used_max);
	if (swapoff("/dev/zram1"))
		result("swap", "swapoff", "FAIL", "%s", strerror(errno));
	else
		result("swap", "swapoff", "PASS", "zram1 emptied");
	write_file("/sys/block/zram1/reset", "1");
}

/* ------------------------------------------------------------- bench */

static void bench_report(const char *name, double secs, double units, const char *unit)
{
	out("RT-BENCH: %s %.1f %s/s (%.0f in %.2f s)", name, units / secs, unit, units, secs);
}

static void test_bench(void)
{
	double t, secs;
	int i, n, fd;
	unsigned long len = 2UL << 20, off;
	unsigned char *buf;
	pid_t c;

	/* fork + exit + wait */
	for (n = 0, t = now(); (secs = now() - t) < 3; n++) {
		c = fork();
		if (c == 0)
			_exit(0);
		waitpid(c, NULL, 0);
	}
	bench_report("fork-exit", secs, n, "forks");

	/* mmap, touch every page, munmap: 2 MiB at a time */
	for (n = 0, t = now(); (secs = now() - t) < 3; n++) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		for (off = 0; off < len; off += page_size)
			p[off] = 1;
		munmap(p, len);
	}
	bench_report("mmap-touch-munmap-2M", secs, n, "regions");

	/* fault throughput over a 64 MiB region, THP off */
	{
		unsigned long big = 64UL << 20;
		unsigned long faults = 0;

		for (t = now(); (secs = now() - t) < 3;) {
			char *p = mmap(NULL, big, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			madvise(p, big, 15 /* MADV_NOHUGEPAGE */);
			for (off = 0; off < big; off += page_size)
				p[off] = 1;
			faults += big / page_size;
			munmap(p, big);
		}
		bench_report("page-faults", secs, faults, "faults");
	}

	/* zram write and read throughput */
	if (zram_setup("zram0", 64ULL << 20))
		return;
	fd = open("/dev/zram0", O_RDWR | O_DIRECT);
	n = (64 << 20) / page_size;
	/* the patterns are made first: the timed loops are only zram's */
	if (fd < 0 || posix_memalign((void **)&buf, page_size, (size_t)n * page_size))
		return;
	for (i = 0; i < n; i++)
		fill_block(buf + (size_t)i * page_size, page_size, i, 1,
			   zram_classes[i % NR_CLASSES]);
	t = now();
	for (i = 0; i < n; i++)
		zram_rw(fd, 1, buf + (size_t)i * page_size, i);
	bench_report("zram-write", now() - t, (double)n * page_size / (1 << 20), "MiB");
	t = now();
	for (int r = 0; r < 4; r++)
		for (i = 0; i < n; i++)
			zram_rw(fd, 0, buf + (size_t)i * page_size, i);
	bench_report("zram-read", now() - t, 4.0 * n * page_size / (1 << 20), "MiB");
	close(fd);
	free(buf);
	write_file("/sys/block/zram0/reset", "1");
}

/* ---------------------------------------------------------- kselftest */

/*
 * The base tree's mm selftests (tools/testing/selftests/vm), when the
 * initramfs carries them in /kselftest: each runs with a timeout, exit
 * status 0 is a pass and 4 a skip.  Their verdicts go to RT-KSFT lines,
 * not RT lines: some fail on the base under QEMU already, so the host
 * compares base and series instead of counting.
 */
/* Print the last LINES lines of PATH as RT-INFO lines. */
static void tail_file(const char *path, const char *tag, int lines)
{
	static char buf[16384];
	char *p, *line[64];
	int n = 0, i;

	if (read_file(path, buf, sizeof(buf)))
		return;
	for (p = strtok(buf, "\n"); p; p = strtok(NULL, "\n"))
		line[n++ % 64] = p;
	for (i = n > lines ? n - lines : 0; i < n; i++)
		out("RT-INFO: %s: %s", tag, line[i % 64]);
}

static const struct {
	const char *name, *arg1, *arg2;
} ksft_args[] = {
	{ "hugetlb-madvise", "/huge/madvise-file", NULL },
	{ "hugepage-mremap", "/huge/mremap-file", NULL },
};

static void test_kselftest(void)
{
	struct dirent **names;
	char path[300];
	int i, n;

	n = scandir("/kselftest", &names, NULL, alphasort);
	if (n <= 2) {
		result("kselftest", "vm", "SKIP", "no mm selftests in this initramfs");
		return;
	}
	mkdir("/huge", 0755);
	mount("none", "/huge", "hugetlbfs", 0, NULL);
	/* hugepage-mmap and map_hugetlb map 256 MiB of huge pages */
	write_file("/proc/sys/vm/nr_hugepages", "160");
	mkdir("/tmp", 01777);
	if (chdir("/"))
		die_errno("chdir");
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name, *a1 = NULL, *a2 = NULL;
		double t0 = now();
		size_t k;
		int st, ok;
		pid_t c;

		snprintf(path, sizeof(path), "/kselftest/%s", name);
		if (name[0] == '.' || access(path, X_OK))
			continue;
		for (k = 0; k < sizeof(ksft_args) / sizeof(ksft_args[0]); k++)
			if (!strcmp(ksft_args[k].name, name)) {
				a1 = ksft_args[k].arg1;
				a2 = ksft_args[k].arg2;
			}
		c = fork();
		if (c == 0) {
			int fd = open("/tmp/ksft.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
			alarm(180);
			execl(path, path, a1, a2, (char *)NULL);
			_exit(127);
		}
		waitpid(c, &st, 0);
		ok = WIFEXITED(st) && !WEXITSTATUS(st);
		out("RT-KSFT: %s %s %.1f s status %#x", name,
		    ok ? "PASS" : WIFEXITED(st) && WEXITSTATUS(st) == 4 ? "SKIP" : "FAIL",
		    now() - t0, st);
		if (!ok)
			tail_file("/tmp/ksft.out", name, 6);
	}
	write_file("/proc/sys/vm/nr_hugepages", "0");
	out("RT-INFO: kselftest: %d entries (RT-KSFT lines)", n - 2);
}

/* --------------------------------------------------------------- main */

static const struct {
	const char *name;
	void (*fn)(void);
	int by_default;
} tests[] = {
	{ "pt", test_pt, 1 },
	{ "zram", test_zram, 1 },
	{ "swap", test_swap, 1 },
	{ "kselftest", test_kselftest, 1 },
	{ "bench", test_bench, 0 },
};

static void setup(void)
{
	char buf[64];
	FILE *f;

	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/dev", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	setup_cgroup();

	page_size = sysconf(_SC_PAGESIZE);
	/* a PTE table maps page_size / sizeof(pte) pages; ptes are 8 bytes
	 * except on 32-bit without PAE/LPAE, where the span is 4 MiB */
	pmd_span = (unsigned long)page_size * (page_size / 8);
	f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "r");
	if (f) {
		unsigned long v;

		if (fscanf(f, "%lu", &v) == 1 && v)
			pmd_span = v;
		fclose(f);
	} else if (pmd_span > (32UL << 20)) {
		/*
		 * No THP to ask, and 64K pages: the guess (512 MiB) is wrong
		 * for powerpc hash, whose PTE table maps 16 MiB, and 16 such
		 * spans per worker do not fit in memory.  32 MiB keeps the
		 * regions across several tables either way.
		 */
		pmd_span = 32UL << 20;
	}
	pud_span = sizeof(long) == 8 ? pmd_span * (page_size / 8) : 0;
	if (pud_span > (1UL << 31))
		pud_span = 0;	/* 64K pages: 512 GiB is too much to reserve twice */
	hpage_size = proc_value("/proc/meminfo", "Hugepagesize") > 0 ?
		     proc_value("/proc/meminfo", "Hugepagesize") << 10 : 0;
	if (read_file("/proc/cmdline", cmdline + 1, sizeof(cmdline) - 2) == 0) {
		size_t n = strlen(cmdline + 1);

		cmdline[0] = ' ';
		if (n && cmdline[n] == '\n')
			cmdline[n] = ' ';
		else
			strcat(cmdline, " ");
	}
	out("RT-START: page_size %ld pte-table span %lu KiB pmd-table span %lu MiB hugetlb %lu KiB memcg %s uname %s",
	    page_size, pmd_span >> 10, pud_span >> 20, hpage_size >> 10,
	    memcg_ok ? "yes" : "no",
	    read_file("/proc/sys/kernel/osrelease", buf, sizeof(buf)) ? "?" : strtok(buf, "\n"));
}

int main(int argc, char **argv)
{
	char sel[256];
	const char *list;
	size_t i;

	(void)argc;
	(void)argv;
	setup();
	list = cmdline_value("rt.tests", sel, sizeof(sel));
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		char word[64];
		double t0 = now();
		int st;
		pid_t c;

		snprintf(word, sizeof(word), ",%s,", tests[i].name);
		if (list) {
			char l[260];

			snprintf(l, sizeof(l), ",%s,", list);
			if (!strstr(l, word))
				continue;
		} else if (!tests[i].by_default) {
			continue;
		}
		out("RT-TEST: %s", tests[i].name);
		c = fork();
		if (c == 0) {
			tests[i].fn();
			_exit(failures ? 1 : 0);
		}
		if (c < 0 || waitpid(c, &st, 0) != c)
			st = -1;
		if (!WIFEXITED(st) || WEXITSTATUS(st) > 1)
			result(tests[i].name, "completed", "FAIL", "test process status %#x", st);
		out("RT-TIME: %s %.1f s", tests[i].name, now() - t0);
	}
	if (cmdline_has("rt.shell"))
		execl("/bin/sh", "sh", (char *)NULL);
	out("RT-DONE");
	sync();
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}
