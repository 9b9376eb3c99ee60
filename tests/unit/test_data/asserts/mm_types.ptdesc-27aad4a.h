#ifdef CONFIG_SEPARATE_PTDESC
/*
 * The fields that describe the table only.  The page's flags, reference
 * count, type and memcg stay in the table's struct page, reached through
 * @pt_page; the page points back here through page->private.
 */
struct ptdesc {
	struct page *pt_page;
	union {
		struct rcu_head pt_rcu_head;
		struct list_head pt_list;
		pgtable_t pmd_huge_pte;
	};
	union {
		pgoff_t pt_index;
		struct mm_struct *pt_mm;
		atomic_t pt_frag_refcount;
#ifdef CONFIG_ARCH_WANT_HUGE_PMD_SHARE
		atomic_t pt_share_count;
#endif
	};
	spinlock_t ptl;		/* the split page-table lock */
};
#else /* !CONFIG_SEPARATE_PTDESC */
struct ptdesc {
	unsigned long __page_flags;

	union {
		struct rcu_head pt_rcu_head;
		struct list_head pt_list;
		struct {
			unsigned long _pt_pad_1;
			pgtable_t pmd_huge_pte;
		};
	};
	unsigned long __page_mapping;

	union {
		pgoff_t pt_index;
		struct mm_struct *pt_mm;
		atomic_t pt_frag_refcount;
#ifdef CONFIG_ARCH_WANT_HUGE_PMD_SHARE
		atomic_t pt_share_count;
#endif
	};

	union {
		unsigned long _pt_pad_2;
#if ALLOC_SPLIT_PTLOCKS
		spinlock_t *ptl;	/* allocated by ptlock_alloc() */
#else
		spinlock_t ptl;		/* fits in the word */
#endif
	};
	unsigned int __page_type;
	atomic_t _refcount;
#ifdef CONFIG_MEMCG
	unsigned long pt_memcg_data;
#endif
};

#define PTDESC_OVERLAYS(pg, pt)						\
	static_assert(offsetof(struct page, pg) == offsetof(struct ptdesc, pt))
PTDESC_OVERLAYS(flags, __page_flags);
PTDESC_OVERLAYS(rcu_head, pt_rcu_head);
PTDESC_OVERLAYS(lru, pt_list);
PTDESC_OVERLAYS(compound_head, _pt_pad_1);
PTDESC_OVERLAYS(lru.prev, pmd_huge_pte);
PTDESC_OVERLAYS(mapping, __page_mapping);
PTDESC_OVERLAYS(index, pt_index);
PTDESC_OVERLAYS(index, pt_mm);
PTDESC_OVERLAYS(index, pt_frag_refcount);
#ifdef CONFIG_ARCH_WANT_HUGE_PMD_SHARE
PTDESC_OVERLAYS(index, pt_share_count);
#endif
PTDESC_OVERLAYS(private, _pt_pad_2);
PTDESC_OVERLAYS(private, ptl);
PTDESC_OVERLAYS(page_type, __page_type);
PTDESC_OVERLAYS(_refcount, _refcount);
#ifdef CONFIG_MEMCG
PTDESC_OVERLAYS(memcg_data, pt_memcg_data);
#endif
#undef PTDESC_OVERLAYS
static_assert(sizeof(struct ptdesc) <= sizeof(struct page));
#endif /* CONFIG_SEPARATE_PTDESC */
