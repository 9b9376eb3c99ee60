# SPDX-License-Identifier: GPL-2.0
"""harness asserts' source edit: a padding word before a descriptor
field, in the definition that has the field.  The fixture is the struct
ptdesc part of include/linux/mm_types.h at the series head 27aad4a,
which has two definitions: the one CONFIG_SEPARATE_PTDESC builds (the
RFC part) and the overlay."""

import shutil

from conftest import data
from mdesc import asserts

PAD = "\tunsigned long harness_misaligned_pad;"


def test_the_overlay_is_misaligned_not_the_separate_descriptor(tmp_path):
    f = tmp_path / "mm_types.h"
    shutil.copy(data("asserts", "mm_types.ptdesc-27aad4a.h"), f)
    before = f.read_text().split("\n")
    assert before.count("struct ptdesc {") == 2
    assert asserts.misalign(str(f), "struct ptdesc {", "__page_type")
    after = f.read_text().split("\n")
    at = after.index(PAD)
    assert after[at + 1].strip() == "unsigned int __page_type;"
    # Only the second definition (the overlay, with the page's words) changed.
    assert at > [n for n, ln in enumerate(after) if ln == "struct ptdesc {"][1]
    assert after[:at] + after[at + 1:] == before


def test_a_field_no_definition_has(tmp_path):
    f = tmp_path / "mm_types.h"
    shutil.copy(data("asserts", "mm_types.ptdesc-27aad4a.h"), f)
    text = f.read_text()
    assert not asserts.misalign(str(f), "struct ptdesc {", "no_such_field")
    assert not asserts.misalign(str(f), "struct nothing {", "ptl")
    assert f.read_text() == text
