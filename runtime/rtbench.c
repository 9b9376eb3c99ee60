// SPDX-License-Identifier: GPL-2.0
/*
 * rtbench - init of harness bench's initramfs: the paths the series
 * touches, each timed over a fixed number of operations.
 *
 * Under QEMU's -icount the guest's clock counts instructions, so what
 * is printed is instructions per operation, not speed.  A fixed count of
 * operations (not a fixed time, as rtinit's old bench test ran) makes
 * every boot of a kernel do the same work.  One line per benchmark:
 *
 *	RT-BENCH: <name> <ns> ns/<unit> (<count> in <seconds> s, ...)
 *	RT-BENCH-SKIP: <name> <reason>
 *
 * then RT-DONE.  It reuses rtinit's set-up and helpers by including its
 * source, so that the runtime test's initramfs (and the record of the
 * base that is keyed by rtinit.c) does not change when a benchmark does.
 *
 * Benchmarks (rt.bench=a,b on the command line picks some):
 *  pte-fault     a fault that allocates a PTE table (one page touched in
 *                each of 256 PTE-table spans)
 *  munmap-tables munmap of those spans: free_pgtables() and the table
 *                free through the mmu_gather
 *  mmap-fault-munmap  the two in one operation, on a region of one PTE
 *                table's span: exactly one mmap() per operation, which
 *                is where harness bench's positive control adds its loop
 *  fork-exit     fork, exit and wait of a parent with 16 PTE tables of
 *                touched pages: page-table copy, then zap and free
 *  mremap-pte    mremap of a populated PTE-table span to a destination
 *                that is not PMD-aligned: PTE tables allocated at the
 *                destination, freed at the source
 *  thp-split     THP fault (a PTE table deposited under the huge PMD),
 *                then MADV_DONTNEED of one small page (the split
 *                withdraws it), then munmap; where the kernel has THP
 *  hugetlb-share fork of a parent with a shared hugetlb region over a
 *                whole PMD table's span, the child touching it
 *                (huge_pmd_share() and the unshare at exit); where the
 *                arch shares PMD tables (64-bit, a PMD table below the
 *                PGD level)
 *  zram-write, zram-read  64 MiB through zram0 (zsmalloc)
 */
#define main rtinit_main
#include "rtinit.c"
#undef main

/*
 * Every benchmark runs REPS times in one boot and the fastest run is
 * printed.  Under -icount a run can only gain instructions from what
 * is not its own (an interrupt whose timing follows the host, such as
 * a console's), so the minimum is the run's own count: on s390x two
 * boots of one kernel read mremap-pte 3.3% apart from single runs.
 * Nothing is printed until every run is done.
 */
#define REPS	3

static struct bench_result {
	const char *name, *unit;
	double min, max;
	unsigned long count;
	int runs;
	char skip[160];
} results[16];

static struct bench_result *bench_slot(const char *name)
{
	int i;

	for (i = 0; i < 16 && results[i].name; i++)
		if (!strcmp(results[i].name, name))
			return &results[i];
	if (i == 16)
		_exit(4);
	results[i].name = name;
	return &results[i];
}

static void bench_line(const char *name, double secs, unsigned long count, const char *unit)
{
	struct bench_result *r = bench_slot(name);

	if (!r->runs || secs < r->min)
		r->min = secs;
	if (!r->runs || secs > r->max)
		r->max = secs;
	r->count = count;
	r->unit = unit;
	r->runs++;
}

static void bench_skip(const char *name, const char *fmt, ...)
{
	struct bench_result *r = bench_slot(name);
	va_list ap;

	if (r->skip[0])
		return;
	va_start(ap, fmt);
	vsnprintf(r->skip, sizeof(r->skip), fmt, ap);
	va_end(ap);
}

static void bench_print(void)
{
	int i;

	for (i = 0; i < 16 && results[i].name; i++) {
		struct bench_result *r = &results[i];

		if (r->runs)
			out("RT-BENCH: %s %.1f ns/%s (%lu in %.6f s, fastest of %d; slowest +%.2f%%)",
			    r->name, r->min * 1e9 / r->count, r->unit, r->count, r->min, r->runs,
			    (r->max / r->min - 1) * 100);
		else
			out("RT-BENCH-SKIP: %s %s", r->name, r->skip[0] ? r->skip : "did not run");
	}
}

/*
 * Each run counts enough operations to last 100 ms or more of guest
 * time in a kernel without debug options, 25 ticks at HZ=250: a tick
 * and the RCU work it runs (page tables freed through RCU among it)
 * fall inside a run or outside it as every earlier instruction
 * decides, and one tick more or less must weigh little.  With runs of
 * 7.4 ms, arm64's pte-fault moved by 1.5% when the positive control
 * added instructions to mmap() only.
 */
#define PTE_SPANS	256
#define PTE_CYCLES	128

/*
 * After each munmap() of pte-fault's region the benchmark sleeps,
 * outside its timers, for five ticks at HZ=250: long enough for an RCU
 * grace period on one CPU and for the callbacks that free the tables.
 * Every cycle then starts with the tables of the last one freed.
 * Without the pause, on s390x, where half-freed 2 KiB table fragments
 * wait for RCU before they are used again, whether the next cycle found
 * them free depended on where the ticks fell: the layout control read
 * pte-fault 1.0178 and munmap-tables 1.0099, and the three runs of a
 * boot were up to 5% apart; with it, 1.0002 and 1.0000, and 0.3%.  The
 * RCU frees themselves now fall in the pause; mmap-fault-munmap, which
 * never pauses, still counts them.  Under sleep=off idle time costs the
 * host nothing.
 */
#define PTE_SETTLE_US	20000

static void bench_pte_fault_munmap(int want_fault, int want_munmap)
{
	unsigned long len = pmd_span * PTE_SPANS, off;
	double t, fault = 0, unmap = 0;
	char *p = reserve(len, pmd_span);
	int i;

	for (i = 0; i < PTE_CYCLES; i++) {
		if (!p || mmap(p, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
			       -1, 0) != p) {
			bench_skip("pte-fault", "cannot map %lu MiB: %s", len >> 20,
				   strerror(errno));
			bench_skip("munmap-tables", "no tables: pte-fault could not map");
			return;
		}
		madvise(p, len, 15 /* MADV_NOHUGEPAGE */);
		t = now();
		for (off = 0; off < len; off += pmd_span)
			p[off] = 1;
		fault += now() - t;
		t = now();
		munmap(p, len);
		unmap += now() - t;
		usleep(PTE_SETTLE_US);
	}
	if (want_fault)
		bench_line("pte-fault", fault, PTE_SPANS * PTE_CYCLES, "table");
	if (want_munmap)
		bench_line("munmap-tables", unmap, PTE_SPANS * PTE_CYCLES, "table");
}

static void bench_mmap_fault_munmap(void)
{
	unsigned long len = pmd_span;
	char *p = reserve(len, pmd_span);
	const int n = 4096;
	double t;
	int i;

	if (!p) {
		bench_skip("mmap-fault-munmap", "cannot reserve: %s", strerror(errno));
		return;
	}
	munmap(p, len);
	t = now();
	for (i = 0; i < n; i++) {
		if (mmap(p, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != p) {
			bench_skip("mmap-fault-munmap", "mmap: %s", strerror(errno));
			return;
		}
		madvise(p, len, 15 /* MADV_NOHUGEPAGE: a PTE table, not a huge page */);
		p[page_size] = 1;
		munmap(p, len);
	}
	bench_line("mmap-fault-munmap", now() - t, n, "region");
}

static void bench_fork_exit(void)
{
	unsigned long len = pmd_span * 16;
	char *p = reserve(len, pmd_span);
	const int n = 300;
	double t;
	pid_t c;
	int i;

	if (!p || mmap(p, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != p) {
		bench_skip("fork-exit", "cannot map %lu MiB: %s", len >> 20, strerror(errno));
		return;
	}
	madvise(p, len, 15 /* MADV_NOHUGEPAGE */);
	touch(p, len, page_size * 64, 1);
	t = now();
	for (i = 0; i < n; i++) {
		c = fork();
		if (c == 0)
			_exit(0);
		waitpid(c, NULL, 0);
	}
	bench_line("fork-exit", now() - t, n, "fork");
	munmap(p, len);
}

static void bench_mremap(void)
{
	/* a populated PTE-table span, moved half a span off alignment and back */
	unsigned long len = pmd_span;
	char *res = reserve(len * 4, pmd_span), *a, *b;
	const int n = 3000;
	double t;
	int i;

	if (!res) {
		bench_skip("mremap-pte", "cannot reserve: %s", strerror(errno));
		return;
	}
	a = res;
	b = res + 2 * len + len / 2;
	if (mmap(a, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) != a) {
		bench_skip("mremap-pte", "cannot map: %s", strerror(errno));
		return;
	}
	madvise(a, len, 15 /* MADV_NOHUGEPAGE */);
	touch(a, len, page_size, 2);
	t = now();
	for (i = 0; i < n; i++) {
		char *from = i % 2 ? b : a, *to = i % 2 ? a : b;

		if (mremap(from, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to) != to) {
			bench_skip("mremap-pte", "mremap: %s", strerror(errno));
			return;
		}
	}
	bench_line("mremap-pte", now() - t, n, "move");
	munmap(res, len * 4);
}

static void bench_thp_split(void)
{
	unsigned long huge = pmd_span;
	const int n = 256;
	double t;
	int i;
	char *p;

	if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK)) {
		bench_skip("thp-split", "kernel without THP");
		return;
	}
	write_file("/sys/kernel/mm/transparent_hugepage/enabled", "always");
	p = reserve(huge, huge);
	if (!p) {
		bench_skip("thp-split", "cannot reserve: %s", strerror(errno));
		return;
	}
	t = now();
	for (i = 0; i < n; i++) {
		if (mmap(p, huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			 -1, 0) != p) {
			bench_skip("thp-split", "mmap: %s", strerror(errno));
			return;
		}
		madvise(p, huge, MADV_HUGEPAGE);
		p[0] = 1;
		madvise(p + page_size * 3, page_size, MADV_DONTNEED);
		munmap(p, huge);
	}
	t = now() - t;
	/* no huge page, no deposit: the loop measured something else */
	if (mmap(p, huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) == p) {
		madvise(p, huge, MADV_HUGEPAGE);
		p[0] = 1;
		if (proc_value("/proc/meminfo", "AnonHugePages") <= 0) {
			bench_skip("thp-split", "no huge page was faulted in");
			return;
		}
		munmap(p, huge);
	}
	bench_line("thp-split", t, n, "cycle");
}

static void bench_hugetlb_share(void)
{
	unsigned long len = pud_span;
	const int n = 600;
	char *res, *p;
	double t;
	int i;
	pid_t c;

	if (!hpage_size || hpage_size != pmd_span || !pud_span || sizeof(long) != 8) {
		bench_skip("hugetlb-share", "no PMD-sized huge pages under a PMD table");
		return;
	}
	if (write_file("/proc/sys/vm/nr_hugepages", "4") ||
	    proc_value("/proc/meminfo", "HugePages_Total") < 1) {
		bench_skip("hugetlb-share", "cannot reserve a huge page");
		return;
	}
	res = reserve(len, len);
	if (!res) {
		bench_skip("hugetlb-share", "cannot reserve: %s", strerror(errno));
		return;
	}
	munmap(res, len);
	p = mmap(res, len, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
		 -1, 0);
	if (p == MAP_FAILED) {
		bench_skip("hugetlb-share", "mmap %lu MiB: %s", len >> 20, strerror(errno));
		return;
	}
	p[0] = 1;
	t = now();
	for (i = 0; i < n; i++) {
		c = fork();
		if (c == 0) {
			p[0]++;
			_exit(0);
		}
		waitpid(c, NULL, 0);
	}
	bench_line("hugetlb-share", now() - t, n, "fork");
	munmap(p, len);
	write_file("/proc/sys/vm/nr_hugepages", "0");
}

static void bench_zram(int want_write, int want_read)
{
	unsigned char *buf;
	int i, n, fd;
	double t;

	if (zram_setup("zram0", 64ULL << 20)) {
		bench_skip("zram-write", "no zram0");
		bench_skip("zram-read", "no zram0");
		return;
	}
	fd = open("/dev/zram0", O_RDWR | O_DIRECT);
	n = (64 << 20) / page_size;
	/* the patterns are made first: the timed loops are only zram's */
	if (fd < 0 || posix_memalign((void **)&buf, page_size, (size_t)n * page_size)) {
		bench_skip("zram-write", "cannot open zram0: %s", strerror(errno));
		return;
	}
	for (i = 0; i < n; i++)
		fill_block(buf + (size_t)i * page_size, page_size, i, 1,
			   zram_classes[i % NR_CLASSES]);
	t = now();
	for (i = 0; i < n; i++)
		zram_rw(fd, 1, buf + (size_t)i * page_size, i);
	if (want_write)
		bench_line("zram-write", now() - t, n, "page");
	t = now();
	for (i = 0; i < n; i++)
		zram_rw(fd, 0, buf + (size_t)i * page_size, i);
	if (want_read)
		bench_line("zram-read", now() - t, n, "page");
	close(fd);
	free(buf);
	write_file("/sys/block/zram0/reset", "1");
}

static int wanted(const char *list, const char *name)
{
	char l[260], w[64];

	if (!list)
		return 1;
	snprintf(l, sizeof(l), ",%s,", list);
	snprintf(w, sizeof(w), ",%s,", name);
	return strstr(l, w) != NULL;
}

int main(void)
{
	char sel[256];
	const char *list;
	int rep;

	setup();
	list = cmdline_value("rt.bench", sel, sizeof(sel));
	out("RT-TEST: bench");
	for (rep = 0; rep < REPS; rep++) {
		if (wanted(list, "pte-fault") || wanted(list, "munmap-tables"))
			bench_pte_fault_munmap(wanted(list, "pte-fault"),
					       wanted(list, "munmap-tables"));
		if (wanted(list, "mmap-fault-munmap"))
			bench_mmap_fault_munmap();
		if (wanted(list, "fork-exit"))
			bench_fork_exit();
		if (wanted(list, "mremap-pte"))
			bench_mremap();
		if (wanted(list, "thp-split"))
			bench_thp_split();
		if (wanted(list, "hugetlb-share"))
			bench_hugetlb_share();
		if (wanted(list, "zram-write") || wanted(list, "zram-read"))
			bench_zram(wanted(list, "zram-write"), wanted(list, "zram-read"));
	}
	bench_print();
	out("RT-DONE");
	sync();
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}
