"""Which findings a ``fail_on`` value selects, and naming them in a message."""

import re

SEVERITIES = ("info", "warning", "error")

_CODE = re.compile(r"^[A-Za-z][0-9]{3}$")
_FAMILY = re.compile(r"^[A-Za-z]$")
# Rule names are kebab-case with at least one hyphen (every built-in one
# is), which also tells a misspelt severity ("warnings") from a name.
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)+$")


def _selectors(fail_on):
    if isinstance(fail_on, str):
        items = fail_on.split(",")
    else:
        items = list(fail_on)
    items = [str(item).strip() for item in items if str(item).strip()]
    if not items:
        raise ValueError("fail_on=%r selects nothing: give a severity (%s) "
                         "or rule codes" % (fail_on, ", ".join(SEVERITIES)))
    for item in items:
        if not (item.lower() in SEVERITIES or _CODE.match(item)
                or _FAMILY.match(item) or _NAME.match(item)):
            raise ValueError(
                "fail_on item %r is neither a severity (%s) nor a rule "
                "code (S001), family letter (S) or rule name "
                "(sync-long-host-wait)" % (item, ", ".join(SEVERITIES)))
    return items


def _matches(finding, item):
    lowered = item.lower()
    if lowered in SEVERITIES:
        severity = finding.get("severity", "info")
        rank = SEVERITIES.index(severity) if severity in SEVERITIES else 0
        return rank >= SEVERITIES.index(lowered)
    code = finding.get("code", "")
    if _CODE.match(item):
        return code.upper() == item.upper()
    if _FAMILY.match(item):
        return code[:1].upper() == item.upper()
    return finding.get("name", "") == item


def matching_findings(findings, fail_on):
    """The findings that match any item of ``fail_on``: a severity selects
    that severity and higher; a code, family letter or rule name selects
    those rules (codes and letters in any case)."""
    items = _selectors(fail_on)
    return [f for f in findings if any(_matches(f, i) for i in items)]


def describe_finding(finding):
    """'S001 [sync-long-host-wait] warning, impact 1.2 ms (5.1 %)'."""
    impact = (finding.get("values", {}).get("impact", {}).get("text")
              or "%d ns" % finding.get("impact_ns", 0))
    share = finding.get("impact_share")
    text = "%s [%s] %s, impact %s" % (finding.get("code", "?"),
                                      finding.get("name", "?"),
                                      finding.get("severity", "?"), impact)
    if isinstance(share, (int, float)):
        text += " (%.1f %% of the target)" % (100.0 * share)
    return text


def describe_findings(findings):
    return "; ".join(describe_finding(f) for f in findings)
