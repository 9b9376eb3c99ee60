// SPDX-License-Identifier: GPL-2.0
/*
 * rtfault - init of harness fault's initramfs: the runtime test's
 * stress with allocations failing on purpose.
 *
 * The kernel is a runtime config with configs/fragments/fault.config on
 * top: the fault-injection framework (fail_page_alloc, failslab, their
 * debugfs knobs) and kmemleak.  Only the stress processes fail: each
 * writes 1 to /proc/self/make-it-fail before it starts, and both
 * capabilities run with task-filter set.  init itself, every kernel
 * thread and kmemleak's scans never see an injected failure.
 *
 * 6.1's defaults would fail none of the allocations this is about, so
 * each test sets the knobs (fault_on()):
 *  - fail_page_alloc ignores sleeping allocations (ignore-gfp-wait),
 *    which every page-table allocation is; highmem ones
 *    (ignore-gfp-highmem), which are PTE tables under HIGHPTE and every
 *    zsmalloc page; and order 0 (min-order 1).  All three are turned off.
 *  - failslab ignores sleeping allocations too (the ptlock cache is
 *    allocated with GFP_KERNEL), and is narrowed to the ptlock cache by
 *    cache-filter and 'slub_debug=A,page->ptl' on the command line.
 *  - verbose 2: every failure that is not __GFP_NOWARN dumps its stack
 *    (6.1 does not rate-limit these dumps by default), which is how
 *    harness fault tells where failures hit.  'times' caps each test's
 *    failures, so the console stays readable; what is left of it says
 *    how many were injected, __GFP_NOWARN ones included.
 *
 * Tests (rt.tests=a,b picks some; default all):
 *  ptfault   four processes in a memcg map regions of one touched page
 *            per PTE table, fork, mremap to odd offsets, mprotect and
 *            munmap them, in rounds, with page and ptlock allocations
 *            failing; what a call returns is counted, never taken as a
 *            failure, and every word that a call left in place is checked
 *  zramfault zram0 filled and overwritten with zsmalloc's page
 *            allocations failing; every write that succeeded reads back,
 *            and one that failed leaves the block as it was
 *  swapfault 64 MiB through a 24 MiB memcg with zram swap, allocations
 *            failing on both sides of the swap; every page reads back
 *  kmemleak  a scan after the tests finds nothing the scan before them
 *            did not (always last)
 * PageTables and the ptfault memcg's pagetables must come back to where
 * they started.  Lines:
 *
 *	RT: <test> <check> PASS|FAIL|SKIP <detail>
 *	RT-FAULT: <test> <capability> injected <n> cap <times>
 *
 * then RT-DONE.  It reuses rtinit's set-up and helpers by including its
 * source, as rtbench does, so that the runtime test's initramfs and the
 * record of the base do not change with this file.
 */
#define main rtinit_main
#include "rtinit.c"
#undef main

#define DEBUGFS		"/sys/kernel/debug"
#define FAIL_PAGE	DEBUGFS "/fail_page_alloc"
#define FAILSLAB	DEBUGFS "/failslab"
#define KMEMLEAK	DEBUGFS "/kmemleak"
#define PTL_CACHE	"/sys/kernel/slab/page->ptl"

/*
 * Rates and caps per test: probability is in percent of the eligible
 * allocations of the stress processes.  The caps keep each test under a
 * few hundred stack dumps (about 30 console lines each).
 */
struct rate {
	const char *test;
	int page_pct, page_cap;		/* fail_page_alloc */
	int slab_pct, slab_cap;		/* failslab on the ptlock cache */
};

static const struct rate rates[] = {
	/* about half of ptfault's page allocations are page tables */
	{ "ptfault", 4, 300, 10, 150 },
	/*
	 * zram tries zs_malloc() twice (without, then with direct reclaim)
	 * before a write fails, and only a new zspage allocates pages: a
	 * write fails at a rate near the square of this one.  The cap is
	 * per pass: one cap for all three was spent in the first.
	 */
	{ "zramfault", 40, 100, 0, 0 },
	{ "swapfault", 3, 300, 10, 50 },
};

static int knob(const char *dir, const char *name, const char *fmt, ...)
{
	char path[256], val[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (write_file(path, val)) {
		out("RT-INFO: cannot write '%s' to %s: %s", val, path, strerror(errno));
		return -1;
	}
	return 0;
}

static long long knob_value(const char *dir, const char *name)
{
	char path[256], buf[64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (read_file(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 10);
}

static const struct rate *rate_of(const char *test)
{
	size_t i;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (!strcmp(rates[i].test, test))
			return &rates[i];
	return NULL;
}

static void fault_disarm(void)
{
	knob(FAIL_PAGE, "probability", "0");
	knob(FAILSLAB, "probability", "0");
}

/* Arm both capabilities for the stress processes of TEST. */
static int fault_on(const char *test)
{
	const struct rate *r = rate_of(test);
	int err = 0;

	if (!r)
		return -1;
	err |= knob(FAIL_PAGE, "task-filter", "Y");
	err |= knob(FAIL_PAGE, "ignore-gfp-wait", "N");
	err |= knob(FAIL_PAGE, "ignore-gfp-highmem", "N");
	err |= knob(FAIL_PAGE, "min-order", "0");
	err |= knob(FAIL_PAGE, "interval", "1");
	err |= knob(FAIL_PAGE, "space", "0");
	err |= knob(FAIL_PAGE, "verbose", "2");
	err |= knob(FAIL_PAGE, "times", "%d", r->page_cap);
	err |= knob(FAIL_PAGE, "probability", "%d", r->page_pct);
	err |= knob(FAILSLAB, "task-filter", "Y");
	err |= knob(FAILSLAB, "ignore-gfp-wait", "N");
	err |= knob(FAILSLAB, "cache-filter", "Y");
	err |= knob(FAILSLAB, "interval", "1");
	err |= knob(FAILSLAB, "space", "0");
	err |= knob(FAILSLAB, "verbose", "2");
	err |= knob(FAILSLAB, "times", "%d", r->slab_cap);
	err |= knob(FAILSLAB, "probability", "%d", r->slab_pct);
	if (err)
		fault_disarm();
	return err ? -1 : 0;
}

/*
 * Disarm both and add what TEST got to the counts: 'times' counts down
 * once per injected failure.  fault_report() prints and clears them.
 */
static long long injected[2], capped[2];

static void fault_off(const char *test)
{
	const struct rate *r = rate_of(test);

	fault_disarm();
	injected[0] += r->page_cap - knob_value(FAIL_PAGE, "times");
	injected[1] += r->slab_cap - knob_value(FAILSLAB, "times");
	capped[0] += r->page_cap;
	capped[1] += r->slab_cap;
}

static void fault_report(const char *test)
{
	out("RT-FAULT: %s fail_page_alloc injected %lld cap %lld", test, injected[0], capped[0]);
	out("RT-FAULT: %s failslab injected %lld cap %lld", test, injected[1], capped[1]);
	injected[0] = injected[1] = capped[0] = capped[1] = 0;
}

/* Only the caller (and what it forks or clones later) fails from now on. */
static void make_it_fail(void)
{
	if (write_file("/proc/self/make-it-fail", "1"))
		die_errno("make-it-fail");
}

/* ---------------------------------------------------------- page tables */

struct ptcount {
	long rounds, mmap_err, mremap_err, mprotect_err, munmap_err, fork_err, forks;
};

/*
 * NSPAN PTE tables' spans from P, with one touched word in every table
 * the region reaches: every touch allocates a table (and one data
 * page), so page tables are about half of what a worker allocates.
 *
 * Word NSPAN is P's own page, in the table before the first whole one.
 * Leaving that table, or any other, without a present entry makes 6.1
 * lose data when mremap() fails (Documentation/runtime.md, "Injected
 * failures"): move_page_tables() moves the entries back, and on the way
 * allocates an empty table at the source that then fails too.
 * 'rt.sparse' on the command line places one word per NSPAN-long step
 * from P instead, which leaves some tables empty, to show that.
 */
#define NSPAN	32

static int sparse;

static unsigned long span_off(unsigned long p, int i)
{
	unsigned long first = ((p + pmd_span - 1) & ~(pmd_span - 1)) - p;

	if (sparse)
		return i * pmd_span + (i % 7) * page_size;
	if (i == NSPAN)
		return 0;
	return first + i * pmd_span + (i % 7) * page_size;
}

static void touch_spans(char *p, unsigned long gen)
{
	int i;

	for (i = 0; i < NSPAN + !sparse; i++) {
		char *w = p + span_off((unsigned long)p, i);

		*(unsigned long *)w = word_at((unsigned long)w, gen);
	}
}

/* Check the words touch_spans() wrote at BASE, now at P. */
static int check_spans(const char *p, unsigned long base, unsigned long gen,
		       char *what, size_t wlen, const char *ctx)
{
	int i;

	for (i = 0; i < NSPAN + !sparse; i++) {
		unsigned long off = span_off(base, i);
		unsigned long have = *(const unsigned long *)(p + off);

		if (have != word_at(base + off, gen)) {
			snprintf(what, wlen, "%s: word at +%#lx is %#lx, expected %#lx", ctx,
				 off, have, word_at(base + off, gen));
			return -1;
		}
	}
	return 0;
}

/*
 * One round: a region across a PUD boundary (a PMD-table boundary
 * where there is none), one touched page per PTE table; a fork whose
 * child reads every word and writes its own; an mremap to an odd offset
 * (move_page_tables() allocates at the destination, and moves back what
 * it moved when that fails); mprotect and munmap splitting the VMA.
 * Every error a call returns is counted and the round goes on with what
 * the call left in place.  Returns -1 only when data is wrong.
 */
static int ptfault_round(int id, unsigned long gen, struct ptcount *c, char *what, size_t wlen)
{
	unsigned long len = pmd_span * NSPAN;
	unsigned long span = pud_span ? pud_span : len * 2;
	unsigned long at;
	char *res, *p, *q, *dst;
	int st;
	pid_t child;

	c->rounds++;
	res = reserve(2 * span, span);
	if (!res) {
		c->mmap_err++;
		return 0;
	}
	p = res + span - len / 2 - page_size * (id + 1);
	if (mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) != p) {
		c->mmap_err++;
		munmap(res, 2 * span);
		return 0;
	}
	madvise(p, len, 15 /* MADV_NOHUGEPAGE */);
	touch_spans(p, gen);
	if (check_spans(p, (unsigned long)p, gen, what, wlen, "touch"))
		return -1;
	at = (unsigned long)p;

	child = fork();
	if (child == 0) {
		char w[160];

		if (check_spans(p, at, gen, w, sizeof(w), "fork child")) {
			out("RT-INFO: ptfault worker %d: %s", id, w);
			_exit(1);
		}
		touch_spans(p, gen + 1000);
		_exit(check_spans(p, (unsigned long)p, gen + 1000, w, sizeof(w), "child write") ?
		      1 : 0);
	}
	if (child < 0) {
		c->fork_err++;
	} else {
		c->forks++;
		if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st)) {
			snprintf(what, wlen, "fork child status %#x", st);
			return -1;
		}
	}
	if (check_spans(p, at, gen, what, wlen, "parent after fork"))
		return -1;

	if (mprotect(p + pmd_span, pmd_span * 4, PROT_READ))
		c->mprotect_err++;
	else if (mprotect(p + pmd_span, pmd_span * 4, PROT_READ | PROT_WRITE))
		c->mprotect_err++;

	dst = res + (id & 1 ? 0 : span + len) + page_size * 7;
	if (dst + len > res + 2 * span)
		dst = res + page_size * 7;
	q = mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	if (q == MAP_FAILED) {
		/* whatever mremap() moved before it failed was moved back */
		c->mremap_err++;
		q = p;
	}
	if (check_spans(q, at, gen, what, wlen, q == p ? "after a failed mremap" : "mremap"))
		return -1;
	/* the region may now be read-only in part, if mprotect failed half way */
	mprotect(q, len, PROT_READ | PROT_WRITE);
	if (munmap(q + pmd_span * 2, pmd_span))
		c->munmap_err++;
	if (munmap(res, 2 * span))
		c->munmap_err++;
	return 0;
}

static void ptfault_worker(int id, int rounds)
{
	struct ptcount c = { 0 };
	char what[200] = "";
	int r;

	/* in the memcg, not the test process: it must be empty at the end */
	if (memcg_ok && enter_memcg("ptfault", "256M", NULL)) {
		out("RT-INFO: ptfault worker %d: cannot enter memcg ptfault", id);
		_exit(1);
	}
	make_it_fail();
	for (r = 0; r < rounds; r++) {
		if (ptfault_round(id, r + 1, &c, what, sizeof(what))) {
			out("RT-INFO: ptfault worker %d round %d: %s", id, r + 1, what);
			_exit(1);
		}
	}
	out("RT-INFO: ptfault worker %d: %ld rounds, %ld forks; errors returned: mmap %ld fork %ld mremap %ld mprotect %ld munmap %ld",
	    id, c.rounds, c.forks, c.mmap_err, c.fork_err, c.mremap_err, c.mprotect_err,
	    c.munmap_err);
	_exit(0);
}

static void test_ptfault(void)
{
	int i, st, bad = 0, left, workers = 4, rounds = 40;
	long long before, after, pt_cg = -1, pt_cg_end;
	pid_t pid[4];
	double t0 = now();

	sparse = cmdline_has("rt.sparse");
#if defined(__s390x__)
	/*
	 * rtinit takes the PTE table's span from THP, which s390x lacks
	 * under TCG, and guesses 2 MiB.  s390's PTE tables are 2K, 256
	 * entries: they map 1 MiB, and a segment table 2 GiB.  With the
	 * guess, every other table of a region stayed empty, and the
	 * first boot of the base lost data after a failed mremap() as
	 * 'rt.sparse' does.
	 */
	pmd_span = 1UL << 20;
	pud_span = 1UL << 31;
#endif
	before = settled_page_tables_kb();
	if (fault_on("ptfault")) {
		result("ptfault", "knobs", "FAIL", "cannot arm fault injection");
		return;
	}
	for (i = 0; i < workers; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			ptfault_worker(i, rounds);
		if (pid[i] < 0) {
			/* init's own fork: no injection here, but end cleanly */
			result("ptfault", "workers", "FAIL", "fork: %s", strerror(errno));
			fault_disarm();
			while (i--) {
				kill(pid[i], SIGKILL);
				waitpid(pid[i], &st, 0);
			}
			return;
		}
	}
	/* the largest charge seen while the workers run, sampled every 0.1 s */
	for (left = workers; left; usleep(100000)) {
		if (memcg_ok) {
			long long v = memcg_stat("ptfault", "pagetables");

			if (v > pt_cg)
				pt_cg = v;
		}
		for (i = 0; i < workers; i++) {
			if (!pid[i] || waitpid(pid[i], &st, WNOHANG) != pid[i])
				continue;
			if (!WIFEXITED(st) || WEXITSTATUS(st)) {
				out("RT-INFO: ptfault worker %d: status %#x", i, st);
				bad++;
			}
			pid[i] = 0;
			left--;
		}
	}
	fault_off("ptfault");
	fault_report("ptfault");
	result("ptfault", "workers", bad ? "FAIL" : "PASS",
	       "%d workers x %d rounds, %d failed (%.1f s)%s", workers, rounds, bad, now() - t0,
	       sparse ? " (rt.sparse)" : "");

	if (!memcg_ok) {
		result("ptfault", "memcg-pagetables", "SKIP", "no memory cgroup");
	} else {
		/* the memcg is empty now: its page tables must all be uncharged */
		double deadline = now() + 15;

		while ((pt_cg_end = memcg_stat("ptfault", "pagetables")) > 0 && now() < deadline)
			usleep(250000);
#ifdef PGTABLES_UNCHARGED
		result("ptfault", "memcg-pagetables", pt_cg_end == 0 ? "PASS" : "FAIL",
		       "%lld bytes while running, %lld at the end (%s)", pt_cg, pt_cg_end,
		       PGTABLES_UNCHARGED);
#else
		result("ptfault", "memcg-pagetables", pt_cg > 0 && pt_cg_end == 0 ? "PASS" : "FAIL",
		       "%lld bytes while running, %lld at the end", pt_cg, pt_cg_end);
#endif
	}
	after = settled_page_tables_kb();
	result("ptfault", "pagetables-leak", after == before ? "PASS" : "FAIL",
	       "PageTables %lld kB before, %lld kB after", before, after);
}

/* ----------------------------------------------------------------- zram */

/*
 * Fill zram0 and overwrite it twice, with zsmalloc's allocations failing
 * for the writer.  A write that fails (EIO or ENOMEM) leaves the block
 * as it was: 6.1's zram allocates the new object before it frees the old
 * one.  The reader checks every block with injection off.
 */
static void zramfault_writer(int fd, uint64_t nblocks, uint64_t *sums, unsigned char *buf,
			     long *failed, uint64_t gen)
{
	uint64_t b;

	make_it_fail();
	for (b = gen - 1; b < nblocks; b += gen == 1 ? 1 : 2) {
		uint64_t sum;

		fill_block(buf, page_size, b, gen, zram_classes[(b + gen) % NR_CLASSES]);
		sum = checksum(buf, page_size);
		if (zram_rw(fd, 1, buf, b))
			failed[gen - 1]++;
		else
			sums[b] = sum;
	}
}

static void test_zramfault(void)
{
	unsigned long long disksize = 48ULL << 20;
	uint64_t nblocks = disksize / page_size, b, *sums, live = 0, gen;
	long *failed;
	unsigned char *buf;
	struct zram_stat st;
	int fd, bad = 0, stt;
	pid_t c;

	if (zram_setup("zram0", disksize)) {
		result("zramfault", "setup", "FAIL", "cannot set up zram0: %s", strerror(errno));
		return;
	}
	fd = open("/dev/zram0", O_RDWR | O_DIRECT);
	if (fd < 0) {
		result("zramfault", "setup", "FAIL", "open /dev/zram0: %s", strerror(errno));
		return;
	}
	/* shared with the writer, so that the reader knows what it wrote */
	sums = mmap(NULL, nblocks * sizeof(*sums) + 3 * sizeof(long), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sums == MAP_FAILED || posix_memalign((void **)&buf, page_size, page_size))
		die_errno("zramfault buffers");
	failed = (long *)(sums + nblocks);
	/* three passes, each writer armed with a cap of its own */
	for (gen = 1; gen <= 3; gen++) {
		if (fault_on("zramfault")) {
			result("zramfault", "knobs", "FAIL", "cannot arm fault injection");
			break;
		}
		c = fork();
		if (c == 0) {
			zramfault_writer(fd, nblocks, sums, buf, failed, gen);
			_exit(0);
		}
		if (c < 0 || waitpid(c, &stt, 0) != c || !WIFEXITED(stt) || WEXITSTATUS(stt))
			result("zramfault", "writer", "FAIL", "pass %d: writer status %#x", (int)gen,
			       c < 0 ? -1 : stt);
		fault_off("zramfault");
	}
	fault_report("zramfault");
	write_file("/sys/block/zram0/compact", "1");
	write_file("/proc/sys/vm/compact_memory", "1");

	for (b = 0; b < nblocks; b++) {
		if (zram_rw(fd, 0, buf, b))
			die_errno("zram read");
		/* a block never written reads as zeros (checksum 0) */
		if (block_bad(buf, sums[b]) && bad++ < 5)
			out("RT-INFO: zramfault block %" PRIu64 " does not read back", b);
		live += sums[b] != 0;
	}
	zram_mm_stat("zram0", &st);
	result("zramfault", "verify", bad ? "FAIL" : "PASS",
	       "%d bad of %" PRIu64 " blocks; failed writes %ld, %ld, %ld in the three passes",
	       bad, nblocks, failed[0], failed[1], failed[2]);
	result("zramfault", "mm_stat", st.orig == (long long)live * page_size ? "PASS" : "FAIL",
	       "%" PRIu64 " live blocks; orig %lld compr %lld used %lld huge %lld",
	       live, st.orig, st.compr, st.used, st.huge);
	/*
	 * A failed first write must leave zeros, a failed overwrite the
	 * block's data from before: without both, 'verify' proves less
	 */
	result("zramfault", "write-errors", failed[0] && failed[1] + failed[2] ? "PASS" : "FAIL",
	       "failed first writes %ld, failed overwrites %ld (each must be non-zero)",
	       failed[0], failed[1] + failed[2]);
	close(fd);
	write_file("/sys/block/zram0/reset", "1");
}

/* ----------------------------------------------------------------- swap */

static void test_swapfault(void)
{
	unsigned long long disksize = 128ULL << 20;
	unsigned long len = 64UL << 20, off;
	long long out_before, in_before, out_after, in_after;
	unsigned char *ref;
	int stt;
	pid_t c;

	if (!memcg_ok) {
		result("swapfault", "memcg-swap", "SKIP", "no memory cgroup");
		return;
	}
	if (zram_setup("zram1", disksize) || make_swap("/dev/zram1", disksize) ||
	    swapon("/dev/zram1", 0)) {
		result("swapfault", "setup", "FAIL", "zram1 as swap: %s", strerror(errno));
		return;
	}
	out_before = proc_value("/proc/vmstat", "pswpout");
	in_before = proc_value("/proc/vmstat", "pswpin");
	if (fault_on("swapfault")) {
		result("swapfault", "knobs", "FAIL", "cannot arm fault injection");
		swapoff("/dev/zram1");
		write_file("/sys/block/zram1/reset", "1");
		return;
	}
	c = fork();
	if (c == 0) {
		char *p;
		int pass, bad = 0;

		if (enter_memcg("swapfault", "24M", "max"))
			_exit(2);
		ref = malloc(page_size);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (!ref || p == MAP_FAILED)
			_exit(3);
		make_it_fail();
		for (off = 0; off < len; off += page_size)
			fill_block((unsigned char *)p + off, page_size, off / page_size, 9,
				   zram_classes[(off / page_size) % NR_CLASSES]);
		/* twice: every page goes out and comes back at least once */
		for (pass = 0; pass < 2; pass++) {
			for (off = 0; off < len; off += page_size) {
				fill_block(ref, page_size, off / page_size, 9,
					   zram_classes[(off / page_size) % NR_CLASSES]);
				if (memcmp(ref, p + off, page_size) && bad++ < 5)
					out("RT-INFO: swapfault page %lu differs in pass %d",
					    off / page_size, pass + 1);
			}
		}
		_exit(bad ? 1 : 0);
	}
	if (c < 0 || waitpid(c, &stt, 0) != c)
		stt = -1;
	fault_off("swapfault");
	fault_report("swapfault");
	out_after = proc_value("/proc/vmstat", "pswpout");
	in_after = proc_value("/proc/vmstat", "pswpin");
	if (!WIFEXITED(stt) || WEXITSTATUS(stt))
		result("swapfault", "memcg-swap", "FAIL", "child status %#x", stt);
	else
		result("swapfault", "memcg-swap",
		       out_after > out_before && in_after > in_before ? "PASS" : "FAIL",
		       "64 MiB through a 24 MiB memcg, read twice: pswpout +%lld pswpin +%lld",
		       out_after - out_before, in_after - in_before);
	if (swapoff("/dev/zram1"))
		result("swapfault", "swapoff", "FAIL", "%s", strerror(errno));
	write_file("/sys/block/zram1/reset", "1");
}

/* ------------------------------------------------------------- kmemleak */

/*
 * Scan and count the objects kmemleak reports, and print the first
 * report.  kmemleak reports nothing younger than 5 s
 * (MSECS_MIN_AGE), so the scan waits that long first.  Returns -1 when
 * kmemleak is off: it turns itself off for good when it cannot allocate
 * its own metadata, and then refuses 'scan' (EPERM).
 */
static int kmemleak_scan(const char *why)
{
	static char buf[1 << 16];
	int fd, n = 0;
	ssize_t got;
	char *p;

	sleep(6);
	if (write_file(KMEMLEAK, "scan"))
		return -1;
	fd = open(KMEMLEAK, O_RDONLY);
	if (fd < 0)
		return -1;
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got < 0)
		return -1;
	buf[got] = 0;
	for (p = buf; (p = strstr(p, "unreferenced object")); p++)
		n++;
	if (n) {
		char *line = strtok(buf, "\n");
		int i;

		for (i = 0; line && i < 24; i++, line = strtok(NULL, "\n"))
			out("RT-INFO: kmemleak %s: %s", why, line);
	}
	return n;
}

static int kmemleak_before = -1;

static void kmemleak_start(void)
{
	kmemleak_before = kmemleak_scan("before the tests");
	/* what the boot left is not this run's: 'clear' stops reporting it */
	if (kmemleak_before >= 0)
		write_file(KMEMLEAK, "clear");
}

static void test_kmemleak(void)
{
	int n;

	if (kmemleak_before < 0) {
		result("kmemleak", "scan", "FAIL", "kmemleak was not on at the start");
		return;
	}
	/*
	 * Twice: an object that a scan catches between two pointer
	 * updates reads as unreferenced once; a leak stays.
	 */
	n = kmemleak_scan("after the tests, first scan");
	if (n > 0)
		n = kmemleak_scan("after the tests");
	if (n < 0)
		result("kmemleak", "enabled", "FAIL", "kmemleak has turned itself off");
	else
		result("kmemleak", "scan", n ? "FAIL" : "PASS",
		       "%d new unreferenced objects (%d at boot, cleared before the tests)",
		       n, kmemleak_before);
}

/* ----------------------------------------------------------------- main */

static const struct {
	const char *name;
	void (*fn)(void);
} fault_tests[] = {
	{ "ptfault", test_ptfault },
	{ "zramfault", test_zramfault },
	{ "swapfault", test_swapfault },
	{ "kmemleak", test_kmemleak },
};

static int fault_setup(void)
{
	if (mount("debugfs", DEBUGFS, "debugfs", 0, NULL) && errno != EBUSY) {
		result("fault", "setup", "FAIL", "mount debugfs: %s", strerror(errno));
		return -1;
	}
	if (access(FAIL_PAGE "/probability", W_OK) || access(FAILSLAB "/cache-filter", W_OK)) {
		result("fault", "setup", "FAIL", "no fail_page_alloc or failslab knobs in debugfs");
		return -1;
	}
	/* the cache filter is set on the command line (slub_debug=A,page->ptl) */
	if (access(PTL_CACHE, F_OK))
		result("fault", "ptlock-cache", "SKIP",
		       "no ptlock cache (the lock is inside the page-table descriptor)");
	else if (knob_value(PTL_CACHE, "failslab") != 1)
		result("fault", "ptlock-cache", "FAIL",
		       "page->ptl is not marked for failslab: slub_debug=A,page->ptl missing?");
	else
		result("fault", "ptlock-cache", "PASS", "failslab filtered to page->ptl");
	return 0;
}

int main(int argc, char **argv)
{
	char sel[256], l[260];
	const char *list;
	size_t i;

	(void)argc;
	(void)argv;
	setup();
	list = cmdline_value("rt.tests", sel, sizeof(sel));
	snprintf(l, sizeof(l), ",%s,", list ? list : "");
	if (!fault_setup()) {
		kmemleak_start();
		for (i = 0; i < sizeof(fault_tests) / sizeof(fault_tests[0]); i++) {
			char word[64];
			double t0 = now();
			int st;
			pid_t c;

			snprintf(word, sizeof(word), ",%s,", fault_tests[i].name);
			if (list && !strstr(l, word))
				continue;
			out("RT-TEST: %s", fault_tests[i].name);
			c = fork();
			if (c == 0) {
				fault_tests[i].fn();
				_exit(failures ? 1 : 0);
			}
			if (c < 0 || waitpid(c, &st, 0) != c)
				st = -1;
			if (!WIFEXITED(st) || WEXITSTATUS(st) > 1)
				result(fault_tests[i].name, "completed", "FAIL",
				       "test process status %#x", st);
			out("RT-TIME: %s %.1f s", fault_tests[i].name, now() - t0);
		}
	}
	out("RT-DONE");
	sync();
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}
