	.file	"ptdesc_layout.c"
# GNU C11 (Debian 12.2.0-14+deb12u1) version 12.2.0 (x86_64-linux-gnu)
#	compiled by GNU C version 12.2.0, GMP version 6.2.1, MPFR version 4.2.0, MPC version 1.3.1, isl version isl-0.25-GMP

# GGC heuristics: --param ggc-min-expand=100 --param ggc-min-heapsize=131072
# options passed: -mno-sse -mno-mmx -mno-sse2 -mno-3dnow -mno-avx -m64 -mno-80387 -mno-fp-ret-in-387 -mpreferred-stack-boundary=3 -mskip-rax-setup -mtune=generic -mno-red-zone -mcmodel=kernel -march=x86-64 -Os -std=gnu11 -fno-strict-aliasing -fno-common -fshort-wchar -fno-PIE -fcf-protection=none -falign-jumps=1 -falign-loops=1 -fno-asynchronous-unwind-tables -fno-delete-null-pointer-checks -fno-allow-store-data-races -fno-stack-protector -fomit-frame-pointer -ftrivial-auto-var-init=zero -fno-stack-clash-protection -fno-strict-overflow -fstack-check=no -fconserve-stack -fno-builtin-wcslen
	.text
	.globl	harness_ptdesc_layout
	.type	harness_ptdesc_layout, @function
harness_ptdesc_layout:
# /work/main/work/tree/harness-probe/ptdesc_layout.c:18: 	EMIT("sizeof page", sizeof(struct page));
#APP
# 18 "/work/main/work/tree/harness-probe/ptdesc_layout.c" 1
	
.ascii "->sizeof page $64"	#
# 0 "" 2
# /work/main/work/tree/harness-probe/ptdesc_layout.c:19: 	EMIT("sizeof ptdesc", sizeof(struct ptdesc));
# 19 "/work/main/work/tree/harness-probe/ptdesc_layout.c" 1
	
.ascii "->sizeof ptdesc $40"	#
# 0 "" 2
# /work/main/work/tree/harness-probe/ptdesc_layout.c:20: 	EMIT("ALLOC_SPLIT_PTLOCKS", ALLOC_SPLIT_PTLOCKS);
# 20 "/work/main/work/tree/harness-probe/ptdesc_layout.c" 1
	
.ascii "->ALLOC_SPLIT_PTLOCKS $0"	#
# 0 "" 2
# /work/main/work/tree/harness-probe/ptdesc_layout.c:21: 	EMIT("separate", IS_ENABLED(CONFIG_SEPARATE_PTDESC));
# 21 "/work/main/work/tree/harness-probe/ptdesc_layout.c" 1
	
.ascii "->separate $1"	#
# 0 "" 2
# /work/main/work/tree/harness-probe/ptdesc_layout.c:43: }
#NO_APP
	ret	
	.size	harness_ptdesc_layout, .-harness_ptdesc_layout
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
