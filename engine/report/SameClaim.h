//===- report/SameClaim.h - Findings about the same wait or copy -*- C++
//-*-===//
//
// One blocking copy is a host wait (S001), a blocking device read (S003) and
// a pageable copy (M002) at once; one SendRecv kernel is exposed
// communication (N001) and a long small collective (N002). The reports make
// one claim of it: the finding with the largest bounded impact carries the
// card, the others are one line that refers to it ("same wait: ...", "same
// collective: ..."), and the JSON links them with `see_also`. What a rule's
// findings claim is its `[signature] claims` (docs/rule-format.md); every
// writer asks this one function which findings belong together.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_REPORT_SAMECLAIM_H
#define TRACELINT_REPORT_SAMECLAIM_H

#include "rules/Finding.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <vector>

namespace tracelint::report {

/// For each finding (in rank order), the index of the finding that carries
/// the card for its host wait or copy: itself when it stands alone or leads.
/// Two findings describe the same thing when their rules claim the same
/// kind (Finding::Claims: "wait", "collective") and an example event of one
/// overlaps an example event of the other in time: the wait, the copy that
/// blocks it and the op around them; the collective kernel. The lead is the
/// largest impact, the better rank on a tie.
std::vector<size_t> claimLeads(llvm::ArrayRef<rules::Finding> Findings);

/// The fingerprints of the other findings in \p I's group, in rank order.
std::vector<std::string> seeAlso(llvm::ArrayRef<rules::Finding> Findings,
                                 llvm::ArrayRef<size_t> Leads, size_t I);

} // namespace tracelint::report

#endif
