// SPDX-License-Identifier: GPL-2.0
/// Page-table state reached through struct page instead of struct ptdesc,
/// the old page-table constructors, and page-table allocations that do
/// not go through pagetable_alloc().
///
/// Run by scripts/check-ptdesc-cocci.sh; each finding is one line
/// "file:line: kind: detail".
//
// Confidence: High for typed struct page pointers and the page lookups
// listed below; a struct page reached some other way without a visible
// type is not found.
// Options: --no-includes --include-headers

virtual report

@pgfield depends on report@
struct page *p;
identifier f = {pt_frag_refcount, pt_mm, pmd_huge_pte, ptl, pt_share_count,
		_pt_pad_1, _pt_pad_2};
position pos;
@@
  p->f@pos

@pglookup depends on report@
identifier f = {pt_frag_refcount, pt_mm, pmd_huge_pte, ptl, pt_share_count};
identifier get = {virt_to_page, pfn_to_page, pmd_page, pud_page, pmd_pgtable,
		  pmd_to_page, pmd_pgtable_page, ptdesc_page, phys_to_page,
		  compound_head};
expression E;
position pos;
@@
  get(E)->f@pos

@oldctor depends on report@
identifier fn = {pgtable_pte_page_ctor, pgtable_pte_page_dtor,
		 pgtable_pmd_page_ctor, pgtable_pmd_page_dtor};
expression list args;
position pos;
@@
  fn@pos(args)

@rawalloc depends on report@
identifier outer =~ "(^|_)(pte|pmd|pud|p4d|pgd)_alloc|_alloc_one|^crst_table_alloc|^page_table_alloc|^base_pgt_alloc|^base_crst_alloc|^pgtable_alloc";
identifier a = {alloc_pages, alloc_page, __get_free_page, __get_free_pages,
		get_zeroed_page, alloc_pages_node, __alloc_pages};
expression list args;
position pos;
@@
outer(...) {
  <+... a@pos(args) ...+>
}

@script:python depends on pgfield@
pos << pgfield.pos;
f << pgfield.f;
@@
print("%s:%s: page-field: struct page ->%s" % (pos[0].file, pos[0].line, f))

@script:python depends on pglookup@
pos << pglookup.pos;
f << pglookup.f;
get << pglookup.get;
@@
print("%s:%s: page-field: %s()->%s" % (pos[0].file, pos[0].line, get, f))

@script:python depends on oldctor@
pos << oldctor.pos;
fn << oldctor.fn;
@@
print("%s:%s: old-ctor: %s()" % (pos[0].file, pos[0].line, fn))

@script:python depends on rawalloc@
pos << rawalloc.pos;
a << rawalloc.a;
outer << rawalloc.outer;
@@
print("%s:%s: alloc: %s() in %s() bypasses pagetable_alloc()" % (pos[0].file, pos[0].line, a, outer))
